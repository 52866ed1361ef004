// Shared by the fused-node tests: compare a function written with fused matrix nodes with the
// same function written with Eigen's ordinary scalar operations on Var (one statement per
// coefficient), an independent route through the engine, and with finite differences; and check
// that two routes to the same arithmetic (a node driven through a matrix variable and through an
// Eigen matrix of Var, say) give identical bits.
#pragma once

#include <string>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_bitwise.hpp>
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

// f and g give identical bits: value and gradient on Tape<double>, Hessian on
// Tape<Dual<double, 8>>. For two routes that must perform the same operations in the same order.
template <class F, class G>
void check_same_bits(const std::string& what, const F& f, const G& g, const Eigen::VectorXd& x) {
  Eigen::VectorXd grad_f, grad_g;
  const double value_f = ngvi::ad::value_and_gradient(f, x, grad_f);
  const double value_g = ngvi::ad::value_and_gradient(g, x, grad_g);
  NGVI_CHECK_BITWISE(value_f, value_g, what + ": value");
  NGVI_CHECK_BITWISE(grad_f, grad_g, what + ": gradient");
  NGVI_CHECK_BITWISE(ngvi::ad::hessian(f, x), ngvi::ad::hessian(g, x), what + ": Hessian");
}

}  // namespace ngvi::test
