// hessian: the exact Hessian by forward-over-reverse, K columns per sweep.
//
// Inputs carry K tangents seeded with unit vectors; one recording and one reverse sweep on
// Tape<Dual<double, K>> yield K columns of the Hessian. The result is symmetrised,
// (H + Hᵀ)/2, which only averages rounding differences. A function declared on ad::MatrixVar
// gets x as one matrix variable, as value_and_gradient gives it. Cost: ⌈n/K⌉ recordings + sweeps in
// Dual<double, K> arithmetic. K = 8 balances the per-sweep overhead against dual width.
#pragma once

#include <algorithm>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

// Returns the n×n Hessian of f at x; writes f(x) and ∇f(x) when the pointers are given.
template <int K = 8, class F>
Eigen::MatrixXd hessian(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x, double* value = nullptr,
                        Eigen::VectorXd* grad = nullptr) {
  using D = Dual<double, K>;
  detail::require_scalar_function<F, D>("hessian");
  const Eigen::Index n = x.size();
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n, n);
  if (grad) grad->setZero(n);
  Recording<D> rec;
  Eigen::MatrixXd tangents(n, K);
  for (Eigen::Index j0 = 0; j0 < std::max<Eigen::Index>(n, 1); j0 += K) {
    rec.rewind();
    const Eigen::Index cols = std::min<Eigen::Index>(K, n - j0);
    tangents.setZero();
    tangents.block(j0, 0, cols, cols).setIdentity();
    const auto xv = detail::driver_inputs<F>(rec, x, tangents);
    const Var<D> y = f(xv);
    if (j0 == 0 && value) *value = y.value().v;
    if (!rec.backward(y)) break;
    const auto adjoints = rec.adjoints(xv);
    for (Eigen::Index i = 0; i < n; ++i) {
      const D& a = adjoints(i);
      if (j0 == 0 && grad) (*grad)(i) = a.v;
      for (Eigen::Index k = 0; k < cols; ++k) H(i, j0 + k) = a.d[k];
    }
  }
  return (0.5 * (H + H.transpose())).eval();
}

}  // namespace ngvi::ad
