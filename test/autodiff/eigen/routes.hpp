// Shared by the fused-node tests: compare a function written with fused matrix nodes with the
// same function written with Eigen's ordinary scalar operations on Var (one statement per
// coefficient), an independent route through the engine, and with finite differences.
#pragma once

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_report.hpp>

namespace ngvi::test {

// Value, gradient and Hessian of `fused` against `scalar` (AD vs AD), and gradient and Hessian
// of `fused` against finite differences.
template <class Fused, class Scalar>
void check_fused_against_scalar(const Fused& fused, const Scalar& scalar,
                                const Eigen::VectorXd& x) {
  namespace vf = ngvi::ad::verify;
  namespace tol = ngvi::ad::verify::tolerances;
  Eigen::VectorXd g_fused, g_scalar;
  const double v_fused = ngvi::ad::value_and_gradient(fused, x, g_fused);
  const double v_scalar = ngvi::ad::value_and_gradient(scalar, x, g_scalar);
  NGVI_CHECK_REPORT(vf::compare(v_fused, v_scalar, tol::ad_vs_ad, "value: fused vs scalar route"));
  NGVI_CHECK_REPORT(
      vf::compare(g_fused, g_scalar, tol::ad_vs_ad, "gradient: fused vs scalar route"));
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hessian(fused, x), ngvi::ad::hessian(scalar, x),
                                tol::ad_vs_ad, "Hessian: fused vs scalar route"));
  Eigen::VectorXd v(x.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = 1.0 - 0.3 * static_cast<double>(i % 5);
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hvp(fused, x, v), ngvi::ad::hvp(scalar, x, v),
                                tol::ad_vs_ad, "Hessian-vector product: fused vs scalar route"));
  NGVI_CHECK_REPORT(vf::check_gradient(fused, x));
  NGVI_CHECK_REPORT(vf::check_hessian(fused, x));
}

}  // namespace ngvi::test
