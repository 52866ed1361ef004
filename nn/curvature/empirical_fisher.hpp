// The empirical Fisher F̂(θ) = Σᵢ gᵢgᵢᵀ with gᵢ = ∇θ ℓᵢ(θ) at the observed targets, and its
// diagonal Σᵢ gᵢ² (the curvature VOGN's diagonal form uses; seed 000 calls (1/N)Σ gᵢgᵢᵀ the
// "Gauss-Newton" approximation, seed 004 footnote 2 names it the empirical Fisher).
//
// It is built from the N×P matrix of per-example gradients (nn::per_example_gradients,
// TBB-parallel, bitwise identical for any thread count). Unlike
// the generalized Gauss-Newton it uses the observed residuals: it is always PSD, but it is not
// an unbiased estimate of the Hessian or the Fisher away from a well-specified optimum.
#pragma once

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/example_indices.hpp>
#include <nn/per_example.hpp>

namespace ngvi::nn {

// The N×P matrix whose row i is ∇θ ℓᵢ(θ) (nn::per_example_gradients: the batched route for
// Supervised<Sequential>, the generic one otherwise); writes ℓᵢ into losses if given.
// Cost: that of nn::per_example_gradients (at most N recordings + N reverse sweeps).
template <class Model>
ad::RowMatrixXd example_gradients(const Model& model, const Eigen::VectorXd& theta,
                                  const ad::ParallelOptions& parallel = {},
                                  Eigen::VectorXd* losses = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "example_gradients");
  ad::RowMatrixXd G;
  per_example_gradients(model, theta, G, parallel, losses);
  return G;
}
// The |idx|×P matrix whose row k is ∇θ ℓ_{idx[k]}(θ). Throws for an empty idx or an index
// outside 0..N−1. Cost: that of nn::per_example_gradients on idx.
template <class Model>
ad::RowMatrixXd example_gradients(const Model& model, const Eigen::VectorXd& theta,
                                  ExampleIndices idx, const ad::ParallelOptions& parallel = {},
                                  Eigen::VectorXd* losses = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "example_gradients");
  ad::RowMatrixXd G;
  per_example_gradients(model, theta, idx, G, parallel, losses);
  return G;
}

// Σᵢ gᵢgᵢᵀ = GᵀG from a matrix of per-example gradients (rows). Cost: N·P² flops (one
// symmetric rank-N update, single-threaded Eigen, deterministic).
inline Eigen::MatrixXd empirical_fisher_from_gradients(const ad::RowMatrixXd& G) {
  Eigen::MatrixXd F = Eigen::MatrixXd::Zero(G.cols(), G.cols());
  F.selfadjointView<Eigen::Lower>().rankUpdate(G.transpose());
  F.triangularView<Eigen::StrictlyUpper>() = F.transpose();
  return F;
}

// Σᵢ gᵢ² (component-wise) from a matrix of per-example gradients. Cost: N·P flops.
inline Eigen::VectorXd empirical_fisher_diagonal_from_gradients(const ad::RowMatrixXd& G) {
  return G.colwise().squaredNorm().transpose();
}

// F̂(θ) = Σᵢ gᵢgᵢᵀ, P×P. Memory N·P doubles for the gradients.
// Cost: N gradient recordings + sweeps (over the threads) + N·P² flops.
template <class Model>
Eigen::MatrixXd empirical_fisher(const Model& model, const Eigen::VectorXd& theta,
                                 const ad::ParallelOptions& parallel = {}) {
  return empirical_fisher_from_gradients(example_gradients(model, theta, parallel));
}
// The minibatch form Σ_{i ∈ idx} gᵢgᵢᵀ (a sum; repeated indices count repeatedly). Throws for
// an empty idx or an index outside 0..N−1. Cost: as above with |idx| for N.
template <class Model>
Eigen::MatrixXd empirical_fisher(const Model& model, const Eigen::VectorXd& theta,
                                 ExampleIndices idx, const ad::ParallelOptions& parallel = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "empirical_fisher");
  check_example_indices(idx, model.num_examples(), "empirical_fisher");
  ad::RowMatrixXd G;
  per_example_gradients(model, theta, idx, G, parallel);
  return empirical_fisher_from_gradients(G);
}

// diag F̂(θ) = Σᵢ gᵢ². Cost: N gradient recordings + sweeps (over the threads) + N·P flops.
template <class Model>
Eigen::VectorXd empirical_fisher_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                          const ad::ParallelOptions& parallel = {}) {
  return empirical_fisher_diagonal_from_gradients(example_gradients(model, theta, parallel));
}
// The minibatch form Σ_{i ∈ idx} gᵢ². Throws for an empty idx or an index outside 0..N−1.
// Cost: as above with |idx| for N.
template <class Model>
Eigen::VectorXd empirical_fisher_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                          ExampleIndices idx,
                                          const ad::ParallelOptions& parallel = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "empirical_fisher_diagonal");
  check_example_indices(idx, model.num_examples(), "empirical_fisher_diagonal");
  ad::RowMatrixXd G;
  per_example_gradients(model, theta, idx, G, parallel);
  return empirical_fisher_diagonal_from_gradients(G);
}

}  // namespace ngvi::nn
