// hessian: the exact Hessian by forward-over-reverse, K columns per sweep.
//
// Inputs carry K tangents seeded with unit vectors; one recording and one reverse sweep on
// Tape<Dual<double, K>> yield K columns of the Hessian. The result is symmetrised,
// (H + Hᵀ)/2, which only averages rounding differences. A function declared on ad::MatrixVar
// gets x as one matrix variable, as value_and_gradient gives it. Cost: ⌈n/K⌉ recordings + sweeps in
// Dual<double, K> arithmetic. K = 8 balances the per-sweep overhead against dual width. The
// sweeps are independent, so with ParallelOptions they run on several threads.
#pragma once

#include <algorithm>
#include <utility>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>
#include <autodiff/functional/parallel.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

// Returns the n×n Hessian of f at x; writes f(x) and ∇f(x) when the pointers are given. The
// ⌈n/K⌉ sweeps run in blocks of ⌈options.grain/K⌉ sweeps on options.threads threads (each on its
// own thread's tape, writing its own K columns), so f is called concurrently unless
// options.threads == 1 and must then be safe to call so (a model evaluated on const data is).
// The result is the same bits for any thread count and whatever the tapes held before.
// Throws std::invalid_argument for options.threads < 0.
// Cost: ⌈n/K⌉ recordings + sweeps in Dual<double, K> arithmetic, spread over the threads.
template <int K = 8, class F>
Eigen::MatrixXd hessian(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                        const ParallelOptions& options, double* value = nullptr,
                        Eigen::VectorXd* grad = nullptr) {
  using D = Dual<double, K>;
  detail::require_scalar_function<F, D>("hessian");
  const Eigen::Index n = x.size();
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n, n);
  if (grad) grad->setZero(n);
  const Eigen::Index sweeps = std::max<Eigen::Index>((n + K - 1) / K, 1);
  // Blocks of ⌈grain/K⌉ sweeps; on one thread one block, so that one recording scope and one
  // tangent matrix serve every sweep (each sweep starts from a rewound tape either way).
  ParallelOptions by_sweeps = options;
  by_sweeps.grain =
      options.threads == 1 ? sweeps : std::max<Eigen::Index>((options.grain + K - 1) / K, 1);
  parallel_blocks(sweeps, by_sweeps, [&](Eigen::Index first, Eigen::Index last) {
    Recording<D> rec;
    Eigen::MatrixXd tangents(n, K);
    for (Eigen::Index s = first; s < last; ++s) {
      rec.rewind();
      const Eigen::Index j0 = s * K, cols = std::min<Eigen::Index>(K, n - j0);
      tangents.setZero();
      tangents.block(j0, 0, cols, cols).setIdentity();
      const auto xv = detail::driver_inputs<F>(rec, x, tangents);
      const Var<D> y = f(xv);
      if (s == 0 && value) *value = y.value().v;
      if (!rec.backward(y)) return;  // y does not depend on x: these columns stay zero
      const auto adjoints = rec.adjoints(xv);
      for (Eigen::Index i = 0; i < n; ++i) {
        const D& a = adjoints(i);
        if (s == 0 && grad) (*grad)(i) = a.v;
        for (Eigen::Index k = 0; k < cols; ++k) H(i, j0 + k) = a.d[k];
      }
    }
  });
  return (0.5 * (H + H.transpose())).eval();
}

// The same on the calling thread only (options.threads = 1): f is never called concurrently.
template <int K = 8, class F>
Eigen::MatrixXd hessian(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x, double* value = nullptr,
                        Eigen::VectorXd* grad = nullptr) {
  return hessian<K>(std::forward<F>(f), x, ParallelOptions{.threads = 1}, value, grad);
}

}  // namespace ngvi::ad
