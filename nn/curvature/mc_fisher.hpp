// The Monte-Carlo true Fisher: F̃(θ) = Σᵢ (1/S) Σₛ gᵢₛgᵢₛᵀ with gᵢₛ = ∇θ ℓ(fᵢ(θ), ỹᵢₛ) and the
// targets ỹᵢₛ ~ p(y | fᵢ(θ)) sampled from the model's own predictive (Zhang, Sun, Duvenaud &
// Grosse 2018, "Noisy Natural Gradient as Variational Inference", footnote 2:
// "sample the targets from the model's predictions, as done in K-FAC ... known as the true
// Fisher"). Its expectation over the targets is Σᵢ Jᵢᵀ Cov[∇f ℓ] Jᵢ = Σᵢ Jᵢᵀ F_L,i Jᵢ with F_L
// the likelihood's output Fisher, i.e. ggn() with OutputCurvature::fisher; for a
// natural-parameter exponential-family output (fixed-noise Gaussian, Bernoulli-logit, softmax,
// Poisson-log) that is the generalized Gauss-Newton itself. The error of the estimate shrinks
// as 1/√S (checked in the tests by the slope of log error against log S).
//
// Randomness: example i draws its S targets, in order, from example_rng(seed, i), so the result
// depends only on (θ, seed, S) and not on the thread count or the order of the examples; on a
// minibatch idx, i is the example's global index, never its position in idx.
//
// Routes: mc_fisher / mc_fisher_diagonal use gᵢₛ = Jᵢᵀ rᵢₛ with rᵢₛ = ∇f ℓ(fᵢ, ỹᵢₛ), so each
// example costs one output Jacobian plus S tiny gradients in the output space, and the sum is
// Σᵢ Jᵢᵀ Mᵢ Jᵢ with Mᵢ = (1/S) Σₛ rᵢₛrᵢₛᵀ by detail::jacobian_sandwich_sum, as the GGN (batched
// blocks for Supervised<Sequential>; the sampled targets depend only on fᵢ and the seed).
// sampled_target_gradients records ∇θ ℓ(fᵢ(θ), ỹᵢₛ) through the whole network for each sample with
// the same targets: the literal definition, an independent check of the fast route, and the
// per-sample gradients themselves for callers that want them.
#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/detail/jacobian_sandwich.hpp>
#include <nn/curvature/example_rng.hpp>
#include <nn/curvature/options.hpp>
#include <nn/curvature/output_jacobians.hpp>
#include <nn/example_indices.hpp>

namespace ngvi::nn {

struct MonteCarloFisherOptions {
  // S, targets sampled per example. 1 is what K-FAC and noisy natural gradient use per step;
  // larger S averages away the sampling noise (error ∝ 1/√S).
  int samples = 1;
  // Seed of the per-example streams example_rng(seed, i, stream).
  std::uint64_t seed = 0;
  // Stream tag mixed into every example's generator, to draw independent targets from the same
  // seed for different purposes. 0 by default.
  std::uint64_t stream = 0;
  // Threads, examples per task and the deterministic reduction of the sum over examples, as
  // in CurvatureOptions.
  int threads = 0;
  Eigen::Index grain = 16;
  Eigen::Index reduction_blocks = 16;
};

namespace detail {
inline void check_samples(const MonteCarloFisherOptions& o, const char* who) {
  if (o.samples < 1)
    throw std::invalid_argument(std::string("ngvi::nn::") + who +
                                ": samples = " + std::to_string(o.samples) + ", expected >= 1");
}

// The S targets of example i drawn from p(y | f) with example i's stream, in order.
template <class Lik>
std::vector<Eigen::VectorXd> sample_targets(const Lik& lik, const Eigen::VectorXd& f,
                                            Eigen::Index i, const MonteCarloFisherOptions& o) {
  std::mt19937_64 rng = example_rng(o.seed, i, o.stream);
  std::vector<Eigen::VectorXd> y(static_cast<std::size_t>(o.samples));
  for (auto& ys : y) ys = lik.sample_target(f, rng);
  return y;
}

// rₛ = ∇f ℓ(f, ỹₛ) for the S targets example i draws at its output f.
template <class Model>
std::vector<Eigen::VectorXd> sampled_output_gradients(const Model& model, const Eigen::VectorXd& f,
                                                      Eigen::Index i,
                                                      const MonteCarloFisherOptions& o) {
  const auto& lik = model.likelihood();
  const std::vector<Eigen::VectorXd> y = sample_targets(lik, f, i, o);
  std::vector<Eigen::VectorXd> r(y.size());
  for (std::size_t s = 0; s < y.size(); ++s)
    r[s] = ad::gradient([&](const auto& fv) { return lik.nll(fv, y[s]); }, f);
  return r;
}

// (1/S) Σₛ rₛrₛᵀ.
inline Eigen::MatrixXd mean_outer(const std::vector<Eigen::VectorXd>& r, Eigen::Index m) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(m, m);
  for (const auto& rs : r) R.noalias() += rs * rs.transpose();
  if (!r.empty()) R /= static_cast<double>(r.size());
  return R;
}
}  // namespace detail

namespace detail {
// Σ_k (1/S) Σₛ J_{idx[k]}ᵀ rₛrₛᵀ J_{idx[k]} over the examples idx (already checked), full or
// diagonal.
template <class Model>
Eigen::MatrixXd mc_fisher_sum(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx,
                              const MonteCarloFisherOptions& options, SandwichShape shape) {
  return jacobian_sandwich_sum(model, theta, idx, curvature_options(options), shape,
                               [&](const Eigen::VectorXd& f, Eigen::Index i) {
                                 return mean_outer(sampled_output_gradients(model, f, i, options),
                                                   f.size());
                               });
}

// Row k·S + s is ∇θ ℓ(f_{idx[k]}(θ), ỹ_{idx[k],s}), recorded through the whole network.
template <class Model>
ad::RowMatrixXd sampled_target_gradients(const Model& model, const Eigen::VectorXd& theta,
                                         ExampleIndices idx,
                                         const MonteCarloFisherOptions& options) {
  const auto n = static_cast<Eigen::Index>(idx.size());
  const Eigen::Index S = options.samples;
  // The same outputs as mc_fisher's, so the same targets are drawn.
  const Eigen::MatrixXd F = outputs_at(model, theta, idx);
  std::vector<Eigen::VectorXd> targets(static_cast<std::size_t>(n * S));
  for (Eigen::Index k = 0; k < n; ++k) {
    std::vector<Eigen::VectorXd> y =
        sample_targets(model.likelihood(), Eigen::VectorXd(F.row(k).transpose()),
                       idx[static_cast<std::size_t>(k)], options);
    for (Eigen::Index s = 0; s < S; ++s)
      targets[static_cast<std::size_t>(k * S + s)] = std::move(y[static_cast<std::size_t>(s)]);
  }
  ad::RowMatrixXd G;
  ad::per_example_gradients(
      [&](const auto& th, Eigen::Index q) {
        return model.likelihood().nll(
            model.example_output(th, idx[static_cast<std::size_t>(q / S)]),
            targets[static_cast<std::size_t>(q)]);
      },
      theta, n * S, G, ad::parallel_options(options));
  return G;
}
}  // namespace detail

// F̃(θ), P×P, exactly symmetric (see the file comment).
// Memory: per task a block's B·m·P Jacobians + reduction_blocks·P² of scratch.
// Cost: that of ggn + N·S output-space gradients + N·S·m² flops, over the threads.
template <class Model>
Eigen::MatrixXd mc_fisher(const Model& model, const Eigen::VectorXd& theta,
                          const MonteCarloFisherOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "mc_fisher");
  detail::check_samples(options, "mc_fisher");
  return detail::mc_fisher_sum(model, theta, all_examples(model.num_examples()), options,
                               detail::SandwichShape::full);
}
// The minibatch form Σ_{i ∈ idx} (1/S) Σₛ gᵢₛgᵢₛᵀ (a sum). Example i still draws from
// example_rng(seed, i, stream) with its GLOBAL index i, so its targets do not depend on the
// batch it is in or its position there (a repeated index draws the same targets). Throws for an
// empty idx or an index outside 0..N−1. Cost: as above with |idx| for N.
template <class Model>
Eigen::MatrixXd mc_fisher(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx,
                          const MonteCarloFisherOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "mc_fisher");
  detail::check_samples(options, "mc_fisher");
  check_example_indices(idx, model.num_examples(), "mc_fisher");
  return detail::mc_fisher_sum(model, theta, idx, options, detail::SandwichShape::full);
}

// diag F̃(θ) = Σᵢ (1/S) Σₛ gᵢₛ². Cost: that of ggn_diagonal + N·S output-space gradients.
template <class Model>
Eigen::VectorXd mc_fisher_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                   const MonteCarloFisherOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "mc_fisher_diagonal");
  detail::check_samples(options, "mc_fisher_diagonal");
  return detail::mc_fisher_sum(model, theta, all_examples(model.num_examples()), options,
                               detail::SandwichShape::diagonal)
      .col(0);
}
// The minibatch form, summed over i ∈ idx, targets as for mc_fisher on idx. Throws for an
// empty idx or an index outside 0..N−1. Cost: as above with |idx| for N.
template <class Model>
Eigen::VectorXd mc_fisher_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                   ExampleIndices idx,
                                   const MonteCarloFisherOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "mc_fisher_diagonal");
  detail::check_samples(options, "mc_fisher_diagonal");
  check_example_indices(idx, model.num_examples(), "mc_fisher_diagonal");
  return detail::mc_fisher_sum(model, theta, idx, options, detail::SandwichShape::diagonal).col(0);
}

// The (N·S)×P matrix whose row i·S + s is gᵢₛ = ∇θ ℓ(fᵢ(θ), ỹᵢₛ), recorded through the whole
// network for every sample; ỹᵢₛ are the targets mc_fisher uses for the same options, so
// Σ rows' outer products / S equals mc_fisher up to rounding. Memory N·S·P doubles.
// Cost: one forward pass + N·S single-example recordings + reverse sweeps, over the threads.
template <class Model>
ad::RowMatrixXd sampled_target_gradients(const Model& model, const Eigen::VectorXd& theta,
                                         const MonteCarloFisherOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "sampled_target_gradients");
  detail::check_samples(options, "sampled_target_gradients");
  return detail::sampled_target_gradients(model, theta, all_examples(model.num_examples()),
                                          options);
}
// The minibatch form: (|idx|·S)×P, row k·S + s for example idx[k], the targets of mc_fisher on
// idx. Throws for an empty idx or an index outside 0..N−1. Cost: as above with |idx| for N.
template <class Model>
ad::RowMatrixXd sampled_target_gradients(const Model& model, const Eigen::VectorXd& theta,
                                         ExampleIndices idx,
                                         const MonteCarloFisherOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "sampled_target_gradients");
  detail::check_samples(options, "sampled_target_gradients");
  check_example_indices(idx, model.num_examples(), "sampled_target_gradients");
  return detail::sampled_target_gradients(model, theta, idx, options);
}

}  // namespace ngvi::nn
