// check_gradient / check_hvp / check_hessian: one call that verifies a derivative of f at x.
//
// Each check computes the derivative with ngvi's AD drivers and compares it with independent
// references, returning one CheckReport (see report.hpp) that names the worst component:
//   check_gradient  AD gradient vs finite differences of f on double; Var value vs double value
//   check_hvp       AD hvp vs finite differences of the AD gradient along v; hvp vs hessian·v
//   check_hessian   AD Hessian vs finite differences of the AD gradient; the raw
//                   forward-over-reverse columns (hvp with e_j) are symmetric and agree with
//                   the blocked hessian<K> driver
// The FD routes catch wrong first- or second-derivative formulas; the AD-vs-AD routes catch
// mistakes in the tape machinery (seeding, blocking of K directions, symmetrisation hiding an
// asymmetric cross-derivative). f must be generic in its scalar ([](const auto& x) {...}),
// taking an Eigen column vector; it is called with VectorXd, Var<double> and Var<Dual>.
// compare() (compare.hpp) is available from this header for AD-vs-AD checks of your own;
// boost_test.hpp and gtest.hpp wrap the checks as one-line test macros.
#pragma once

#include <string>
#include <utility>

#include <Eigen/Core>

#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/hvp.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/finite_diff.hpp>
#include <autodiff/verify/report.hpp>
#include <autodiff/verify/tolerances.hpp>

namespace ngvi::ad::verify {

// Checks ∇f(x) from value_and_gradient against finite_diff_gradient (with `tol`) and the
// recorded value against f evaluated on double (with tolerances::ad_vs_ad).
// Cost: one AD gradient + one evaluation of f + the FD gradient (typically 40-64 evaluations
// of f per coordinate with the step search, i.e. 5-8 trial steps of order + 2 evaluations;
// order + 2 with fd.scale).
template <class F>
CheckReport check_gradient(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                           const Tolerance& tol = tolerances::gradient_vs_fd,
                           const FiniteDiffOptions& fd = {}) {
  Eigen::VectorXd g;
  const double value = ngvi::ad::value_and_gradient(f, x, g);
  const Eigen::VectorXd xd = x;
  const double value_double = static_cast<double>(f(xd));
  const Eigen::VectorXd g_fd = finite_diff_gradient(f, x, fd);
  return combine(compare(g, g_fd, tol, "AD gradient vs finite differences"),
                 compare(value, value_double, tolerances::ad_vs_ad,
                         "value recorded on Var vs value on double"));
}

// Checks ∇²f(x)·v from hvp against finite_diff_hvp (with `tol`) and against hessian(f, x)·v
// (with `ad_tol`); the gradient that gradient_and_hvp returns is checked against gradient()
// (with `ad_tol`). Cost: one hvp + one gradient + one Hessian (⌈n/8⌉ dual sweeps) + the FD
// (typically 40-64 AD gradients with the step search, order + 2 with fd.scale).
template <class F>
CheckReport check_hvp(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                      const Eigen::Ref<const Eigen::VectorXd>& v,
                      const Tolerance& tol = tolerances::hessian_vs_fd,
                      const Tolerance& ad_tol = tolerances::ad_vs_ad,
                      const FiniteDiffOptions& fd = {}) {
  Eigen::VectorXd g_dual, hv;
  ngvi::ad::gradient_and_hvp(f, x, v, g_dual, hv);
  const Eigen::VectorXd g = ngvi::ad::gradient(f, x);
  const Eigen::MatrixXd H = ngvi::ad::hessian(f, x);
  const Eigen::VectorXd Hv = H * v;
  const Eigen::VectorXd hv_fd = finite_diff_hvp(f, x, v, fd);
  CheckReport r =
      compare(hv, hv_fd, tol, "AD hvp vs finite differences of the AD gradient along v");
  r = combine(r, compare(hv, Hv, ad_tol, "AD hvp vs AD hessian·v"));
  return combine(r, compare(g_dual, g, ad_tol, "gradient from the dual sweep vs gradient()"));
}

// Checks hessian(f, x) against finite_diff_hessian (with `tol`); builds the unsymmetrised
// Hessian column by column from hvp(f, x, e_j) and checks it is symmetric and that its
// symmetric part equals hessian(f, x) (both with `ad_tol`). The driver symmetrises its
// result, so the raw columns are where an inconsistent cross-derivative shows.
// Cost: one Hessian (⌈n/8⌉ dual sweeps) + n hvps + the FD Hessian (typically 40-64 AD
// gradients per column with the step search, order + 2 with fd.scale).
template <class F>
CheckReport check_hessian(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                          const Tolerance& tol = tolerances::hessian_vs_fd,
                          const Tolerance& ad_tol = tolerances::ad_vs_ad,
                          const FiniteDiffOptions& fd = {}) {
  const Eigen::Index n = x.size();
  const Eigen::MatrixXd H = ngvi::ad::hessian(f, x);
  Eigen::MatrixXd raw(n, n);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    e(j) = 1.0;
    raw.col(j) = ngvi::ad::hvp(f, x, e);
    e(j) = 0.0;
  }
  const Eigen::MatrixXd H_fd = finite_diff_hessian(f, x, fd);
  CheckReport r = compare(H, H_fd, tol, "AD Hessian vs finite differences of the AD gradient");
  r = combine(r,
              compare(raw, raw.transpose(), ad_tol,
                      "symmetry of the unsymmetrised forward-over-reverse Hessian (hvp columns)"));
  return combine(r, compare(H, (0.5 * (raw + raw.transpose())).eval(), ad_tol,
                            "hessian<K> vs symmetrised hvp columns"));
}

// check_gradient and check_hessian at one point, merged into one report: what a model's
// verification test usually wants in one line (NGVI_CHECK_DERIVATIVES in boost_test.hpp).
// Cost: the sum of the two.
template <class F>
CheckReport check_derivatives(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x) {
  return combine(check_gradient(f, x), check_hessian(f, x));
}

}  // namespace ngvi::ad::verify
