// The empirical Fisher F̂(θ) = Σᵢ gᵢgᵢᵀ with gᵢ = ∇θ ℓᵢ(θ) at the observed targets, and its
// diagonal Σᵢ gᵢ² (the curvature VOGN's diagonal form uses; Khan et al. 2018 call (1/N)Σ gᵢgᵢᵀ
// the "Gauss-Newton" approximation, Zhang et al. 2018, footnote 2, the empirical Fisher).
//
// It is summed over fixed blocks of examples from the blocks' per-example gradients
// (nn/per_example.hpp: batched for Supervised<Sequential>), bitwise identical for any thread
// count; the N×P matrix itself is example_gradients. Unlike
// the generalized Gauss-Newton it uses the observed residuals: it is always PSD, but it is not
// an unbiased estimate of the Hessian or the Fisher away from a well-specified optimum.
#pragma once

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/detail/blocked_sum.hpp>
#include <nn/curvature/detail/jacobian_sandwich.hpp>
#include <nn/curvature/options.hpp>
#include <nn/example_indices.hpp>
#include <nn/per_example.hpp>
#include <nn/supervised.hpp>

namespace ngvi::nn {

// The N×P matrix whose row i is ∇θ ℓᵢ(θ) (nn::per_example_gradients: the batched route for
// Supervised<Sequential>, the generic one otherwise); writes ℓᵢ into losses if given.
// Cost: that of nn::per_example_gradients (at most N recordings + N reverse sweeps).
template <class Model>
ad::RowMatrixXd example_gradients(const Model& model, const Eigen::VectorXd& theta,
                                  const CurvatureOptions& options = {},
                                  Eigen::VectorXd* losses = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "example_gradients");
  ad::RowMatrixXd G;
  per_example_gradients(model, theta, G, ad::parallel_options(options), losses);
  return G;
}
// The |idx|×P matrix whose row k is ∇θ ℓ_{idx[k]}(θ). Throws for an empty idx or an index
// outside 0..N−1. Cost: that of nn::per_example_gradients on idx.
template <class Model>
ad::RowMatrixXd example_gradients(const Model& model, const Eigen::VectorXd& theta,
                                  ExampleIndices idx, const CurvatureOptions& options = {},
                                  Eigen::VectorXd* losses = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "example_gradients");
  ad::RowMatrixXd G;
  per_example_gradients(model, theta, idx, G, ad::parallel_options(options), losses);
  return G;
}

namespace detail {
// Σ_{i ∈ idx} gᵢgᵢᵀ (full, P×P, exactly symmetric) or Σ gᵢ² (diagonal, P×1) over the examples
// idx (already checked), over the fixed blocks of CurvatureOptions (boundaries
// independent of the thread count, block sums added in block order). Each block is one task:
// full, the block's gradients Gb from nn's per-example route and the rank-B update GbᵀGb;
// diagonal, for Supervised<Sequential, L> the batched moments (D∘D)ᵀ(A∘A) of
// nn::add_gradient_sums_and_squares without forming Gb, otherwise Gb's squared column norms.
template <class Model>
Eigen::MatrixXd empirical_fisher_sum(const Model& model, const Eigen::VectorXd& theta,
                                     ExampleIndices idx, const CurvatureOptions& options,
                                     SandwichShape shape) {
  const Eigen::Index P = theta.size();
  const bool full = shape == SandwichShape::full;
  Eigen::MatrixXd F = blocked_range_sum(
      static_cast<Eigen::Index>(idx.size()), P, full ? P : 1, options,
      [&](Eigen::Index begin, Eigen::Index end, Eigen::MatrixXd& acc) {
        const ExampleIndices block =
            idx.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
        const ad::ParallelOptions one_task{.threads = 1, .grain = end - begin};
        if constexpr (BatchedSequentialModel<Model>) {
          if (!full) {
            Eigen::VectorXd squares = Eigen::VectorXd::Zero(P);
            nn::add_gradient_squares(model, theta, block, squares, one_task);
            acc.col(0) = squares;
            return;
          }
        }
        ad::RowMatrixXd G;
        nn::per_example_gradients(model, theta, block, G, one_task);
        if (full)
          acc.selfadjointView<Eigen::Lower>().rankUpdate(G.transpose());
        else
          acc.col(0) = G.colwise().squaredNorm().transpose();
      });
  if (full) F.triangularView<Eigen::StrictlyUpper>() = F.transpose();
  return F;
}
}  // namespace detail

// F̂(θ) = Σᵢ gᵢgᵢᵀ, P×P, exactly symmetric. Memory: per task B·P doubles for a block's
// gradients, reduction_blocks (16)·P² for the block sums.
// Cost: nn::per_example_gradients (batched for Supervised<Sequential>) + N·P²/2 flops (one
// symmetric rank-B update per block), over the threads.
template <class Model>
Eigen::MatrixXd empirical_fisher(const Model& model, const Eigen::VectorXd& theta,
                                 const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "empirical_fisher");
  return detail::empirical_fisher_sum(model, theta, all_examples(model.num_examples()), options,
                                      detail::SandwichShape::full);
}
// The minibatch form Σ_{i ∈ idx} gᵢgᵢᵀ (a sum; repeated indices count repeatedly). Throws for
// an empty idx or an index outside 0..N−1. Cost: as above with |idx| for N.
template <class Model>
Eigen::MatrixXd empirical_fisher(const Model& model, const Eigen::VectorXd& theta,
                                 ExampleIndices idx, const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "empirical_fisher");
  check_example_indices(idx, model.num_examples(), "empirical_fisher");
  return detail::empirical_fisher_sum(model, theta, idx, options, detail::SandwichShape::full);
}

// diag F̂(θ) = Σᵢ gᵢ². Cost: for Supervised<Sequential>, per block one batched forward pass and
// reverse sweep + O(B·Σ in·out) flops, no per-example gradient stored; otherwise N gradient
// recordings + sweeps + N·P flops. Over the threads.
template <class Model>
Eigen::VectorXd empirical_fisher_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                          const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "empirical_fisher_diagonal");
  return detail::empirical_fisher_sum(model, theta, all_examples(model.num_examples()), options,
                                      detail::SandwichShape::diagonal)
      .col(0);
}
// The minibatch form Σ_{i ∈ idx} gᵢ². Throws for an empty idx or an index outside 0..N−1.
// Cost: as above with |idx| for N.
template <class Model>
Eigen::VectorXd empirical_fisher_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                          ExampleIndices idx,
                                          const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "empirical_fisher_diagonal");
  check_example_indices(idx, model.num_examples(), "empirical_fisher_diagonal");
  return detail::empirical_fisher_sum(model, theta, idx, options, detail::SandwichShape::diagonal)
      .col(0);
}

}  // namespace ngvi::nn
