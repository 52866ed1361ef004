// Shared by the fused-node tests: compare a function written with fused matrix nodes with the
// same function written with Eigen's ordinary scalar operations on Var (one statement per
// coefficient), an independent route through the engine, and with finite differences; and check
// that two routes to the same arithmetic (a node driven through a matrix variable and through an
// Eigen matrix of Var, say) give identical bits.
#pragma once

#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>

namespace ngvi::test {

// A scalar from a node's outputs y by scalar statements only: Σ w_k y_k (1 + y_k / 4), w_k
// cycling through 0.3 … 0.6. Nonlinear, so that Hessians go through the node's second-order
// (dual) path.
template <class M>
auto readout(const M& y) {
  using T = typename M::Scalar;
  T s = 0.0;
  for (Eigen::Index k = 0; k < y.size(); ++k) {
    const double w = 0.3 + 0.05 * static_cast<double>(k % 7);
    s += w * y(k) * (1.0 + 0.25 * y(k));
  }
  return s;
}

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

// A node's result as one scalar: a scalar as it is, a matrix (Eigen or matrix variable) through
// readout.
template <class T, class R>
T scalar_of_result(const R& r) {
  if constexpr (ngvi::ad::is_matrix_var_v<R>)
    return readout(r);
  else if constexpr (requires { r.rows(); })
    return readout(Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>(r));
  else
    return T(r);
}

// op on a rows×cols matrix variable, and on its transpose view, gives the bits of op on the same
// Eigen matrix of Var (and on its transpose): the handle route reads the values in place, the
// Eigen route copies them first, and the arithmetic must be the same. x has rows·cols entries.
template <class Op>
void check_handle_gives_eigen_bits(const std::string& what, const Op& op, Eigen::Index rows,
                                   Eigen::Index cols, const Eigen::VectorXd& x) {
  auto map = [rows, cols](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    return Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>(th.data(), rows,
                                                                              cols);
  };
  check_same_bits(
      what + " of a matrix variable",
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return scalar_of_result<T>(op(ngvi::ad::as_matrix(map(th))));
      },
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return scalar_of_result<T>(op(map(th)));
      },
      x);
  check_same_bits(
      what + " of the transpose view",
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return scalar_of_result<T>(op(ngvi::ad::as_matrix(map(th)).transpose()));
      },
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return scalar_of_result<T>(op(map(th).transpose()));
      },
      x);
}

}  // namespace ngvi::test
