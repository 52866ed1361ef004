// hessian: the exact Hessian by forward-over-reverse, K columns per sweep.
//
// Inputs carry K tangents seeded with unit vectors; one recording and one reverse sweep on
// Tape<Dual<double, K>> yield K columns of the Hessian. The result is symmetrised,
// (H + Hᵀ)/2, which only averages rounding differences. Cost: ⌈n/K⌉ recordings + sweeps in
// Dual<double, K> arithmetic. K = 8 balances the per-sweep overhead against dual width.
#pragma once

#include <algorithm>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/core/tape_scope.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>

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
  TapeScope<D> scope;
  Tape<D>& t = scope.tape();
  VarVector<D> xv(n);
  for (Eigen::Index j0 = 0; j0 < std::max<Eigen::Index>(n, 1); j0 += K) {
    scope.rewind();
    const index_t first = t.new_indices(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      D xi(x(i));
      if (i >= j0 && i < j0 + K) xi.d[i - j0] = 1.0;
      xv(i) = Var<D>::from_index(xi, first + static_cast<index_t>(i), t);
    }
    const Var<D> y = f(xv);
    if (j0 == 0 && value) *value = y.value().v;
    if (!y.is_active()) break;
    t.zero_adjoints();
    t.adjoint(y.index()) = D(1.0);
    t.reverse(scope.mark());
    const Eigen::Index cols = std::min<Eigen::Index>(K, n - j0);
    for (Eigen::Index i = 0; i < n; ++i) {
      const D& a = t.adjoint(first + static_cast<index_t>(i));
      if (j0 == 0 && grad) (*grad)(i) = a.v;
      for (Eigen::Index k = 0; k < cols; ++k) H(i, j0 + k) = a.d[k];
    }
  }
  return (0.5 * (H + H.transpose())).eval();
}

}  // namespace ngvi::ad
