// per_example_gradients / per_example_hessians: derivatives of each term of a separable
// loss, computed in parallel with oneTBB.
//
// The loss is a callable loss(theta, i) generic in its scalar, giving example i's term ℓᵢ(θ).
// Examples are split into fixed blocks; each TBB task records on its own thread's tape: it
// registers θ once, then for each example records ℓᵢ, sweeps back and rewinds to just after
// θ, so the tape memory is reused. Row i of the result depends only on example i, so results
// are bitwise identical for any number of threads (the blocks run by parallel_blocks,
// autodiff/functional/parallel.hpp).
#pragma once

#include <algorithm>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/parallel.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Writes ∇ℓᵢ(θ) into row i of G (N×P) and, if given, ℓᵢ(θ) into losses(i).
// Cost: N recordings + N reverse sweeps of one example each, spread over the threads.
template <class F>
void per_example_gradients(F&& loss, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           Eigen::Index n_examples, RowMatrixXd& G,
                           const ParallelOptions& options = {}, Eigen::VectorXd* losses = nullptr) {
  static_assert(std::is_invocable_v<F&, const VarVector<double>&, Eigen::Index>,
                "ngvi::ad::per_example_gradients: the loss must be callable as loss(theta, i) "
                "with an Eigen vector of the AD scalar (write it generic) and an example index");
  const Eigen::Index P = theta.size();
  G.resize(n_examples, P);
  if (losses) losses->resize(n_examples);
  parallel_blocks(n_examples, options, [&](Eigen::Index begin, Eigen::Index end) {
    Recording<double> rec;
    const VarVector<double> th = rec.inputs(theta);
    const auto after_inputs = rec.mark();
    for (Eigen::Index i = begin; i < end; ++i) {
      const Var<double> li = loss(th, i);
      if (losses) (*losses)(i) = li.value();
      if (rec.backward(li))
        G.row(i) = rec.adjoints(th).transpose();
      else
        G.row(i).setZero();
      rec.rewind(after_inputs);
    }
  });
}

// Writes ∇²ℓᵢ(θ) for each example into hessians[i] (P×P each). For small P only.
// Cost: N·⌈P/K⌉ dual recordings + sweeps, spread over the threads.
template <int K = 8, class F>
void per_example_hessians(F&& loss, const Eigen::Ref<const Eigen::VectorXd>& theta,
                          Eigen::Index n_examples, std::vector<Eigen::MatrixXd>& hessians,
                          const ParallelOptions& options = {}) {
  hessians.assign(static_cast<std::size_t>(n_examples), Eigen::MatrixXd());
  const Eigen::VectorXd th = theta;
  parallel_blocks(n_examples, options, [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index i = begin; i < end; ++i)
      hessians[static_cast<std::size_t>(i)] =
          hessian<K>([&](const auto& x) { return loss(x, i); }, th);
  });
}

}  // namespace ngvi::ad
