// Models for the tests of the derivative-check macros (autodiff/verify/boost_test.hpp and
// gtest.hpp): one whose derivatives are right, and two that are wrong on purpose — one at first
// order, one at second order only — so that a macro that stays silent on them is caught.
// Each is written once, generic in the scalar, like a user's model.
#pragma once

#include <type_traits>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>

namespace ngvi::test::wrong_derivative_models {

// f(x) = log1p(x_0²) + Σ x_i² exp(x_{i+1}): right on every scalar.
inline const auto good_model = [](const auto& x) {
  using T = typename std::decay_t<decltype(x)>::Scalar;
  T s = ad::log1p(x(0) * x(0));
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) s += x(i) * x(i) * ad::exp(x(i + 1));
  return s;
};

// Wrong at first order: Σ x_i² on every scalar, but on the AD scalars plus 0.01·(x_1 − c) with
// c a constant equal to x_1's value — zero in value, 0.01 in the derivative — so the AD
// gradient's component 1 is off by 0.01 against finite differences of the double function
// while the values agree.
inline const auto wrong_gradient = [](const auto& x) {
  using T = typename std::decay_t<decltype(x)>::Scalar;
  T s = x.squaredNorm();
  if constexpr (!std::is_same_v<T, double>) s += 0.01 * (x(1) - T(x(1).value()));
  return s;
};

template <class T>
constexpr bool is_second_order = false;
template <class R>
constexpr bool is_second_order<ad::Var<R>> = ad::is_dual<R>::value;

// Wrong at second order only: the cubic term is there on the forward-over-reverse scalar
// Var<Dual> alone, so the gradient is right but H·v and the Hessian's (1, 1) (off by 0.06·x_1)
// disagree with finite differences of the (right) AD gradient.
inline const auto wrong_hessian = [](const auto& x) {
  using T = typename std::decay_t<decltype(x)>::Scalar;
  T s = x.squaredNorm();
  if constexpr (is_second_order<T>) s += 0.01 * x(1) * x(1) * x(1);
  return s;
};

inline Eigen::VectorXd point() { return Eigen::Vector3d(0.4, -0.7, 1.2); }
// The direction of the Hessian-vector checks: the wrong (1, 1) entry shows in H·e_1.
inline Eigen::VectorXd direction() { return Eigen::Vector3d(0.0, 1.0, 0.0); }

}  // namespace ngvi::test::wrong_derivative_models
