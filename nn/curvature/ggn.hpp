// The generalized Gauss-Newton matrix G(θ) = Σᵢ Jᵢᵀ H_L,i Jᵢ (Schraudolph 2002; Martens 2020,
// "New Insights and Perspectives on the Natural Gradient Method"), its diagonal, and a
// matrix-free G·v.
//
// Jᵢ = ∂fᵢ/∂θ is the output Jacobian of example i and H_L,i = ∂²ℓ/∂f² at (fᵢ, yᵢ), from the
// likelihood's output_hessian. G drops the term Σᵢ Σₖ (∂ℓ/∂fₖ) ∇²fᵢₖ of the exact Hessian, so it
// equals the Hessian when the network is linear in θ, and it is positive semi-definite whenever
// H_L is (Gaussian, Bernoulli-logit, softmax, Poisson-log). With a natural-parameter output
// of an exponential family it also equals the expected (true) Fisher, which mc_fisher.hpp
// estimates by sampling.
//
// Routes: ggn and ggn_diagonal are Σᵢ Jᵢᵀ H_L,i Jᵢ by detail::jacobian_sandwich_sum, over fixed
// blocks of examples: for Supervised<Sequential> each block is one batched forward pass and m
// reverse sweeps, then one matrix product (full) or, for the diagonal, BackPACK's sums of
// squared δs against squared layer inputs without forming Jᵢ; other models take Jᵢ by reverse
// mode one example at a time. ggn_vector_product never forms Jᵢ: it records fᵢ once on a
// Var<Dual<double,1>> tape with the input tangents set to v, reads Jᵢv from the outputs'
// tangents, and gets Jᵢᵀ(H_L,i Jᵢ v) from
// one reverse sweep seeded with that vector — an independent route to the same numbers.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/recording.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/detail/blocked_sum.hpp>
#include <nn/curvature/detail/jacobian_sandwich.hpp>
#include <nn/curvature/options.hpp>
#include <nn/example_indices.hpp>

namespace ngvi::nn {

// Which second-order matrix of ℓ(f, y) w.r.t. the output f sits between the Jacobians.
enum class OutputCurvature {
  // ∂²ℓ/∂f² at (fᵢ, yᵢ) (likelihood().output_hessian): the generalized Gauss-Newton.
  // Indefinite for likelihoods whose loss is not convex in f (learned-noise and
  // heteroscedastic Gaussians away from the optimum).
  hessian,
  // E_{y~p(y|fᵢ)}[∂²ℓ/∂f²] (likelihood().output_fisher): always PSD; the expected (true)
  // Fisher of θ, which the Monte-Carlo Fisher estimates. Equals `hessian` for canonical-link
  // likelihoods (fixed-noise Gaussian, Bernoulli-logit, softmax, Poisson-log).
  fisher,
};

struct GgnOptions {
  // The matrix between Jᵢᵀ and Jᵢ. Default: the exact output Hessian, the textbook GGN.
  OutputCurvature output_curvature = OutputCurvature::hessian;
  // Threads, examples per task and the deterministic reduction of the sum over examples, as
  // in CurvatureOptions.
  int threads = 0;
  Eigen::Index grain = 16;
  Eigen::Index reduction_blocks = 16;
};

namespace detail {
// H_L,i (or its expectation over y) for example i at output f.
template <class Model>
Eigen::MatrixXd output_curvature(const Model& model, const Eigen::VectorXd& f, Eigen::Index i,
                                 OutputCurvature which) {
  const auto& lik = model.likelihood();
  if (which == OutputCurvature::fisher) {
    if constexpr (requires { lik.output_fisher(f); }) {
      return lik.output_fisher(f);
    } else {
      throw std::invalid_argument(
          "ngvi::nn::ggn: OutputCurvature::fisher needs likelihood().output_fisher(f), which this "
          "likelihood does not have");
    }
  }
  return lik.output_hessian(f, example_target(model, i));
}
}  // namespace detail

namespace detail {
// Σ_k J_{idx[k]}ᵀ H_L,idx[k] J_{idx[k]} over the examples idx (already checked), full or diagonal.
template <class Model>
Eigen::MatrixXd ggn_sum(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx,
                        const GgnOptions& options, SandwichShape shape) {
  return jacobian_sandwich_sum(model, theta, idx, curvature_options(options), shape,
                               [&](const Eigen::VectorXd& f, Eigen::Index i) {
                                 return output_curvature(model, f, i, options.output_curvature);
                               });
}

// Σ_k J_{idx[k]}ᵀ H_L J_{idx[k]} v over the examples idx (already checked), matrix-free.
template <class Model>
Eigen::VectorXd ggn_vector_product(const Model& model, const Eigen::VectorXd& theta,
                                   ExampleIndices idx, const Eigen::VectorXd& v,
                                   const GgnOptions& options) {
  if (v.size() != theta.size())
    throw std::invalid_argument("ngvi::nn::ggn_vector_product: v has " + std::to_string(v.size()) +
                                " entries, theta has " + std::to_string(theta.size()));
  using D = ad::Dual<double, 1>;
  const Eigen::Index P = theta.size();
  return blocked_sum(static_cast<Eigen::Index>(idx.size()), P, 1, curvature_options(options),
                     [&](Eigen::Index k, Eigen::MatrixXd& acc) {
                       const Eigen::Index i = idx[static_cast<std::size_t>(k)];
                       ad::Recording<D> rec;
                       const ad::VarVector<D> th = rec.inputs(theta, v);
                       const ad::VarVector<D> out = model.example_output(th, i);
                       const Eigen::Index m = out.size();
                       Eigen::VectorXd f(m), Jv(m);
                       for (Eigen::Index q = 0; q < m; ++q) {
                         f(q) = out(q).value().v;
                         Jv(q) = out(q).value().d[0];
                       }
                       const Eigen::VectorXd u =
                           output_curvature(model, f, i, options.output_curvature) * Jv;
                       if (!rec.backward(out, u)) return;
                       const auto adjoints = rec.adjoints(th);
                       for (Eigen::Index p = 0; p < P; ++p) acc(p, 0) += adjoints(p).v;
                     });
}
}  // namespace detail

// G(θ) = Σᵢ Jᵢᵀ H_L,i Jᵢ, P×P, exactly symmetric.
// Memory: per task a block's B·m·P Jacobians + reduction_blocks·P² of scratch.
// Cost: nn's per-example Jacobians (for Supervised<Sequential>: per block one batched forward
// pass and m reverse sweeps) + N·(m·P² + m²·P) flops, over the threads.
template <class Model>
Eigen::MatrixXd ggn(const Model& model, const Eigen::VectorXd& theta,
                    const GgnOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "ggn");
  return detail::ggn_sum(model, theta, all_examples(model.num_examples()), options,
                         detail::SandwichShape::full);
}
// The minibatch form Σ_{i ∈ idx} Jᵢᵀ H_L,i Jᵢ (a sum, not a mean; repeated indices count
// repeatedly). Throws for an empty idx or an index outside 0..N−1. Cost: as above with |idx|
// for N.
template <class Model>
Eigen::MatrixXd ggn(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx,
                    const GgnOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "ggn");
  check_example_indices(idx, model.num_examples(), "ggn");
  return detail::ggn_sum(model, theta, idx, options, detail::SandwichShape::full);
}

// diag G(θ) = Σᵢ Σₖₗ H_L,i(k,l) Jᵢ(k,:) ∘ Jᵢ(l,:), without forming G.
// Memory: per task a block's B·m·P Jacobians (none for Supervised<Sequential>).
// Cost: for Supervised<Sequential> per block one batched forward pass and m reverse sweeps +
// N·(m²·Σout + Σ in·out) flops; otherwise N single-example Jacobians + N·m²·P flops.
template <class Model>
Eigen::VectorXd ggn_diagonal(const Model& model, const Eigen::VectorXd& theta,
                             const GgnOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "ggn_diagonal");
  return detail::ggn_sum(model, theta, all_examples(model.num_examples()), options,
                         detail::SandwichShape::diagonal)
      .col(0);
}
// The minibatch form, summed over i ∈ idx. Throws for an empty idx or an index outside
// 0..N−1. Cost: as above with |idx| for N.
template <class Model>
Eigen::VectorXd ggn_diagonal(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx,
                             const GgnOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "ggn_diagonal");
  check_example_indices(idx, model.num_examples(), "ggn_diagonal");
  return detail::ggn_sum(model, theta, idx, options, detail::SandwichShape::diagonal).col(0);
}

// G(θ)·v without forming G or any Jᵢ (see the file comment).
// Cost: N recordings of fᵢ in Dual<double,1> arithmetic + N reverse sweeps (about 2-3 gradient
// evaluations of the loss), over the threads; memory O(P·reduction_blocks).
template <class Model>
Eigen::VectorXd ggn_vector_product(const Model& model, const Eigen::VectorXd& theta,
                                   const Eigen::VectorXd& v, const GgnOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "ggn_vector_product");
  return detail::ggn_vector_product(model, theta, all_examples(model.num_examples()), v, options);
}
// The minibatch form Σ_{i ∈ idx} Jᵢᵀ H_L,i Jᵢ v. Throws for an empty idx or an index outside
// 0..N−1. Cost: as above with |idx| for N.
template <class Model>
Eigen::VectorXd ggn_vector_product(const Model& model, const Eigen::VectorXd& theta,
                                   ExampleIndices idx, const Eigen::VectorXd& v,
                                   const GgnOptions& options = {}) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "ggn_vector_product");
  check_example_indices(idx, model.num_examples(), "ggn_vector_product");
  return detail::ggn_vector_product(model, theta, idx, v, options);
}

}  // namespace ngvi::nn
