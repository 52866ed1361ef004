// Hyperparameters from the evidence's gradient: a prior precision δ_b for each parameter block b
// (the model's named blocks, "dense0.weight", "dense0.bias", ...) and, for a Gaussian likelihood,
// the noise precision τ, learned during training by ascending the Laplace-GGN log marginal
// likelihood (Immer, Bauer, Fortuin, Rätsch & Khan 2021, "Scalable Marginal Likelihood Estimation
// for Model Selection in Deep Learning", Algorithm 1) or by MacKay's fixed-point updates (MacKay
// 1992, "A Practical Bayesian Framework for Backpropagation Networks").
//
// The evidence at a fixed θ* (laplace.hpp's, with the prior N(0, D⁻¹), D = diag(δ_b on block b)):
//
//   log Z(δ, τ) = (Nd/2) log(τ/2π) − (τ/2) r² − ½ Σ_b δ_b‖θ*_b‖² + ½ Σ_b P_b log δ_b − ½ log det Λ,
//   Λ = τG + D,
//
// for N examples of d outputs with r² = Σᵢ‖yᵢ − fᵢ(θ*)‖² and G the curvature (GGN by default) of
// the data term at τ = 1 (an nn::GaussianFixedNoise likelihood: its Hessian, GGN and K-FAC are all
// τ times G); P_b is the size of block b. For any other likelihood the first two terms are
// −Σᵢℓᵢ(θ*) and τG is its curvature H. With Σ = Λ⁻¹ and tr_b the trace over block b, the exact
// gradient in the log-values (evidence_gradient) is
//
//   ∂ log Z/∂ log δ_b = ½ [P_b − δ_b tr_b Σ − δ_b‖θ*_b‖²] = ½ [γ_b − δ_b‖θ*_b‖²],
//   ∂ log Z/∂ log τ   = ½ [Nd − τr² − τ tr(ΣG)]          = ½ [Nd − τr² − γ],
//
// since τ tr(ΣG) = tr(Σ(Λ − D)) = P − Σ_b δ_b tr_b Σ = γ, the effective number of parameters
// (γ_b = P_b − δ_b tr_b Σ per block). Each set to zero with Σ held fixed gives MacKay's updates
// δ_b ← γ_b/‖θ*_b‖², τ ← (Nd − γ)/r² (mackay_update).
//
// The online procedure (fit_with_evidence, Immer et al.'s Algorithm 1) runs in the shared fit loop
// (fit.hpp) as the method "evidence_map": MAP training of θ by Adam on the minibatch estimate of
//
//   (τ/τ₀) Σᵢ ℓᵢ(θ) + ½ Σ_b δ_b‖θ_b‖²
//
// (τ₀ the model's own noise precision: (τ/τ₀)Σᵢℓᵢ is the data term at τ up to a constant in θ),
// and after epoch e whenever e > B (the burn-in) and e is a multiple of F: the curvature G at the
// current θ once, then K steps on (log δ_1, …, log δ_B, log τ) — Adam ascending log Z with its
// gradient above, or MacKay's updates — each step one P×P Cholesky. The hyperparameters' Adam
// state persists across updates, as in Immer et al.'s implementation, whose defaults are the
// options' (F = 1, B = 0, K = 100, step 0.1).
//
// For a variational posterior q = N(μ, Σ) the ELBO depends on δ_b only through the prior term
// E_q[log p₀(θ)] = Σ_b [(P_b/2) log(δ_b/2π) − (δ_b/2)(‖μ_b‖² + tr Σ_b)], maximised at
//
//   δ_b = P_b / (‖μ_b‖² + tr Σ_b)                                   (optimal_prior_precisions),
//
// the M-step of variational EM over the prior (any Gaussian posterior: diagonal, full, Kronecker).
// A Laplace approximation takes the learned δ_b per parameter through LaplaceOptions::
// prior_precisions = per_parameter_precisions(blocks, δ).
// Functions that would not otherwise be templates are written `template <int = 0>`
// (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/adam.hpp>
#include <inference/elbo.hpp>
#include <inference/fit.hpp>
#include <inference/laplace.hpp>
#include <inference/minibatch.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/point_estimate.hpp>
#include <inference/schedule.hpp>
#include <inference/step_failure.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/parameters.hpp>

namespace ngvi::vi {

// The blocks that get a prior precision each: the non-empty blocks of model.layout() in θ's
// order, or one block "theta" of all P parameters for a model without a layout. Cost: O(blocks).
template <class Model>
std::vector<nn::Block> prior_blocks(const Model& model) {
  if constexpr (requires { model.layout().blocks(); }) {
    std::vector<nn::Block> blocks;
    for (const nn::Block& b : model.layout().blocks())
      if (b.size() > 0) blocks.push_back(b);
    return blocks;
  } else {
    return {nn::Block{"theta", 1, model.num_params(), 0}};
  }
}

// Hyperparameters of the evidence: δ_b per block and, for a Gaussian likelihood, τ.
struct EvidenceHyperparameters {
  Eigen::VectorXd prior_precisions;                                   // δ_b, one per block
  double noise_precision = std::numeric_limits<double>::quiet_NaN();  // τ; NaN: not learned
};

namespace detail {

// Throws std::invalid_argument naming `who` unless the blocks are non-empty and cover 0..p−1
// exactly once (in any order). Cost: O(B log B).
template <int = 0>
void check_prior_blocks(const std::vector<nn::Block>& blocks, Eigen::Index p,
                        const std::string& who) {
  if (blocks.empty()) throw std::invalid_argument(who + ": no parameter blocks");
  std::vector<const nn::Block*> sorted;
  for (const nn::Block& b : blocks) {
    if (b.size() < 1)
      throw std::invalid_argument(who + ": the parameter block \"" + b.name + "\" is empty");
    sorted.push_back(&b);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const nn::Block* a, const nn::Block* b) { return a->offset < b->offset; });
  Eigen::Index next = 0;
  for (const nn::Block* b : sorted) {
    if (b->offset != next)
      throw std::invalid_argument(who + ": the parameter blocks must cover θ (0.." +
                                  std::to_string(p - 1) + ") once each; the block \"" + b->name +
                                  "\" starts at " + std::to_string(b->offset) + ", expected " +
                                  std::to_string(next));
    next = b->end();
  }
  if (next != p)
    throw std::invalid_argument(who + ": the parameter blocks cover 0.." +
                                std::to_string(next - 1) + " but θ has " + std::to_string(p) +
                                " entries");
}

// Throws std::invalid_argument unless δ has one positive finite entry per block.
template <int = 0>
void check_block_precisions(const Eigen::VectorXd& delta, const std::vector<nn::Block>& blocks,
                            const std::string& who) {
  if (delta.size() != static_cast<Eigen::Index>(blocks.size()))
    throw std::invalid_argument(who + ": prior_precisions has " + std::to_string(delta.size()) +
                                " entries for " + std::to_string(blocks.size()) + " blocks");
  for (std::size_t b = 0; b < blocks.size(); ++b)
    check_positive_finite(
        who, "prior_precisions(" + std::to_string(b) + ") of block \"" + blocks[b].name + "\"",
        delta(static_cast<Eigen::Index>(b)));
}

}  // namespace detail

// D's diagonal: δ_b on every entry of block b (the P-vector LaplaceOptions::prior_precisions
// takes). Throws std::invalid_argument unless the blocks cover θ once each and δ has one positive
// finite entry per block. Cost: O(P).
template <int = 0>
Eigen::VectorXd per_parameter_precisions(const std::vector<nn::Block>& blocks,
                                         const Eigen::VectorXd& prior_precisions) {
  const std::string who = "ngvi::vi::per_parameter_precisions";
  Eigen::Index p = 0;
  for (const nn::Block& b : blocks) p += std::max<Eigen::Index>(b.size(), 0);
  detail::check_prior_blocks(blocks, p, who);
  detail::check_block_precisions(prior_precisions, blocks, who);
  Eigen::VectorXd d(p);
  for (std::size_t b = 0; b < blocks.size(); ++b)
    d.segment(blocks[b].offset, blocks[b].size())
        .setConstant(prior_precisions(static_cast<Eigen::Index>(b)));
  return d;
}

// What the evidence at θ* needs, computed once: every (δ, τ) then costs one P×P Cholesky.
struct EvidenceTerms {
  Eigen::VectorXd theta;          // θ*
  std::vector<nn::Block> blocks;  // b = 1..B
  Eigen::MatrixXd curvature;  // G: the data term's curvature at τ = 1 (GaussianFixedNoise), else H
  double log_likelihood = 0.0;  // −Σᵢℓᵢ(θ*) under the model's own likelihood
  // For an nn::GaussianFixedNoise likelihood: its τ₀, r² = Σᵢ‖yᵢ − fᵢ(θ*)‖² and N·d; NaN, NaN
  // and 0 for any other likelihood.
  double noise_precision = std::numeric_limits<double>::quiet_NaN();
  double squared_residuals = std::numeric_limits<double>::quiet_NaN();
  Eigen::Index targets = 0;
};

// The terms of the evidence at theta over `blocks` (empty: prior_blocks(model)), with the
// curvature, threads and reducer of `options` (its prior precisions are not used). Throws
// std::invalid_argument as laplace() and for blocks that do not cover θ once each. Cost: the
// curvature as in laplace() and one full-data loss.
template <class Model>
EvidenceTerms evidence_terms(const Model& model, const Eigen::VectorXd& theta,
                             const std::vector<nn::Block>& blocks = {},
                             const LaplaceOptions& options = {}) {
  detail::check_laplace_inputs(model, theta, options, "evidence_terms");
  EvidenceTerms t;
  t.blocks = blocks.empty() ? prior_blocks(model) : blocks;
  detail::check_prior_blocks(t.blocks, theta.size(), "ngvi::vi::evidence_terms");
  t.theta = theta;
  t.curvature = detail::data_curvature(model, theta, options, false, "evidence_terms");
  const double loss = total_nll(model, theta);
  t.log_likelihood = -loss;
  const double tau = detail::fixed_noise_precision(model);
  if (!std::isnan(tau)) {
    t.noise_precision = tau;
    t.targets = model.num_examples() * model.output_dim();
    // Σᵢℓᵢ = τ/2 r² + N·d/2 log(2π/τ), solved for r².
    t.squared_residuals =
        2.0 / tau *
        (loss - 0.5 * static_cast<double>(t.targets) * std::log(2.0 * std::numbers::pi / tau));
    t.curvature /= tau;
  }
  return t;
}

// log Z at (δ, τ), its gradient and the effective numbers of parameters.
struct EvidenceGradient {
  double log_marginal_likelihood = 0.0;
  // ∂ log Z/∂ log δ_b for b = 1..B, then ∂ log Z/∂ log τ if τ was given.
  Eigen::VectorXd gradient;
  Eigen::VectorXd effective_parameters;  // γ_b = P_b − δ_b tr_b Σ
};

// log Z(δ, τ) at t's θ* and its exact gradient in (log δ_b, log τ) (top of this file). τ NaN: the
// model's own (τ₀ for a Gaussian likelihood), not differentiated. Throws std::invalid_argument
// for a δ without one positive finite entry per block, a τ that is not positive and finite, or a
// τ for a likelihood that is not nn::GaussianFixedNoise; std::domain_error if Λ is not positive
// definite. Cost: one P×P Cholesky and its inverse factor (P³/3 + P³/3 flops).
template <int = 0>
EvidenceGradient evidence_gradient(const EvidenceTerms& t, const EvidenceHyperparameters& h) {
  const std::string who = "ngvi::vi::evidence_gradient";
  detail::check_block_precisions(h.prior_precisions, t.blocks, who);
  const bool with_tau = !std::isnan(h.noise_precision);
  const bool gaussian = !std::isnan(t.noise_precision);
  if (with_tau && !gaussian)
    throw std::invalid_argument(who +
                                ": a noise precision τ needs a model with an "
                                "nn::GaussianFixedNoise likelihood");
  if (with_tau) detail::check_positive_finite(who, "noise_precision", h.noise_precision);
  const double tau = with_tau ? h.noise_precision : t.noise_precision;
  const Eigen::VectorXd d = per_parameter_precisions(t.blocks, h.prior_precisions);
  Eigen::MatrixXd lambda = gaussian ? Eigen::MatrixXd(tau * t.curvature) : t.curvature;
  lambda.diagonal() += d;
  const std::optional<FullGaussian> q = FullGaussian::from_precision_if_pd(t.theta, lambda);
  if (!q)
    throw std::domain_error(who + ": Λ = τG + D is not positive definite at " +
                            (gaussian ? "τ = " + std::to_string(tau) + " and " : std::string()) +
                            "δ in [" + std::to_string(d.minCoeff()) + ", " +
                            std::to_string(d.maxCoeff()) + "]");
  const Eigen::VectorXd variances = q->marginal_variances();
  const double log_likelihood =
      with_tau ? 0.5 * static_cast<double>(t.targets) * std::log(tau / (2.0 * std::numbers::pi)) -
                     0.5 * tau * t.squared_residuals
               : t.log_likelihood;
  EvidenceGradient r;
  r.log_marginal_likelihood = log_likelihood - 0.5 * (d.array() * t.theta.array().square()).sum() +
                              0.5 * d.array().log().sum() - 0.5 * q->log_det_precision();
  const auto B = static_cast<Eigen::Index>(t.blocks.size());
  r.gradient.resize(with_tau ? B + 1 : B);
  r.effective_parameters.resize(B);
  for (Eigen::Index b = 0; b < B; ++b) {
    const nn::Block& k = t.blocks[static_cast<std::size_t>(b)];
    const double delta = h.prior_precisions(b);
    r.effective_parameters(b) =
        static_cast<double>(k.size()) - delta * variances.segment(k.offset, k.size()).sum();
    r.gradient(b) = 0.5 * (r.effective_parameters(b) -
                           delta * t.theta.segment(k.offset, k.size()).squaredNorm());
  }
  if (with_tau)
    r.gradient(B) = 0.5 * (static_cast<double>(t.targets) - tau * t.squared_residuals -
                           r.effective_parameters.sum());
  return r;
}

// One MacKay update at t's θ*: δ_b ← γ_b/‖θ*_b‖² and, if h has a τ, τ ← (Nd − γ)/r² (top of this
// file). Throws as evidence_gradient, and std::domain_error naming the block (or τ) whose update
// is not positive and finite (θ*_b = 0, or r² = 0). Cost: that of evidence_gradient.
template <int = 0>
EvidenceHyperparameters mackay_update(const EvidenceTerms& t, const EvidenceHyperparameters& h) {
  const std::string who = "ngvi::vi::mackay_update";
  const EvidenceGradient g = evidence_gradient(t, h);
  EvidenceHyperparameters next = h;
  for (std::size_t b = 0; b < t.blocks.size(); ++b) {
    const nn::Block& k = t.blocks[b];
    const double v = g.effective_parameters(static_cast<Eigen::Index>(b)) /
                     t.theta.segment(k.offset, k.size()).squaredNorm();
    if (!(v > 0.0) || !std::isfinite(v))
      throw std::domain_error(who + ": the update of δ of block \"" + k.name + "\" is " +
                              detail::number_or_not_finite(v) + ", not positive and finite");
    next.prior_precisions(static_cast<Eigen::Index>(b)) = v;
  }
  if (!std::isnan(h.noise_precision)) {
    const double v =
        (static_cast<double>(t.targets) - g.effective_parameters.sum()) / t.squared_residuals;
    if (!(v > 0.0) || !std::isfinite(v))
      throw std::domain_error(who + ": the update of τ is " + detail::number_or_not_finite(v) +
                              ", not positive and finite");
    next.noise_precision = v;
  }
  return next;
}

// The ELBO's optimal prior precision per block for a Gaussian posterior q:
// δ_b = P_b / (‖μ_b‖² + tr Σ_b) (top of this file). Throws std::invalid_argument unless the
// blocks cover q's dimension once each, std::domain_error if a block's ‖μ_b‖² + tr Σ_b is 0.
// Cost: q.marginal_variances() (O(P) diagonal, P³/3 flops full) + O(P).
template <class Posterior>
Eigen::VectorXd optimal_prior_precisions(const Posterior& q, const std::vector<nn::Block>& blocks) {
  const std::string who = "ngvi::vi::optimal_prior_precisions";
  detail::check_prior_blocks(blocks, q.dim(), who);
  const Eigen::VectorXd mean = q.mean();
  const Eigen::VectorXd variances = q.marginal_variances();
  Eigen::VectorXd delta(static_cast<Eigen::Index>(blocks.size()));
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const nn::Block& k = blocks[b];
    const double second_moment = mean.segment(k.offset, k.size()).squaredNorm() +
                                 variances.segment(k.offset, k.size()).sum();
    if (!(second_moment > 0.0))
      throw std::domain_error(who + ": block \"" + k.name +
                              "\" has ‖μ_b‖² + tr Σ_b = 0 (no finite optimum)");
    delta(static_cast<Eigen::Index>(b)) = static_cast<double>(k.size()) / second_moment;
  }
  return delta;
}

// How the hyperparameters move at each update of the online procedure.
enum class HyperparameterUpdate {
  adam,    // K Adam steps ascending log Z (Immer et al. 2021)
  mackay,  // K fixed-point updates δ_b ← γ_b/‖θ_b‖², τ ← (Nd − γ)/r² (MacKay 1992)
};

template <class Model>
class EvidenceMap;

struct EvidenceMapOptions {
  // Epochs, minibatch size M, history. elbo_samples = 0: every draw from a point mass is θ.
  LoopOptions loop{.elbo_samples = 0};
  // The initial δ_b of every block (the loop's history uses it as the δ of its rows).
  double prior_precision = 1.0;
  // The initial τ of a model with an nn::GaussianFixedNoise likelihood; NaN: the model's τ₀.
  double noise_precision = std::numeric_limits<double>::quiet_NaN();
  // Whether τ is learned (a Gaussian likelihood only; other likelihoods have none).
  bool learn_noise_precision = true;
  // The blocks of θ with a δ each; empty: prior_blocks(model), one per named block.
  std::vector<nn::Block> blocks{};
  // θ's Adam step size α_t (as MapOptions), its moment decays and ε, and where θ starts (empty:
  // the model's initialisation).
  Schedule learning_rate{.initial = 1e-2};
  AdamOptions adam{};
  Eigen::VectorXd initial{};
  // F: update the hyperparameters after every F-th epoch. 1, Immer et al.'s default.
  Eigen::Index frequency = 1;
  // B: no update after the first B epochs. 0, Immer et al.'s default.
  Eigen::Index burn_in = 0;
  // K: steps on the hyperparameters per update. 100, Immer et al.'s default.
  Eigen::Index hyper_steps = 100;
  // The hyperparameters' Adam step size, at their k-th step counted over the run. 0.1 constant,
  // Immer et al.'s default; unused by the MacKay update.
  Schedule hyper_learning_rate{.initial = 0.1};
  HyperparameterUpdate update = HyperparameterUpdate::adam;
  // The curvature G of the evidence (laplace.hpp's LaplaceCurvature): the GGN by default.
  LaplaceCurvature curvature = LaplaceCurvature::ggn;

  static constexpr const char* name = "evidence_map";
  using posterior_type = PointEstimate;
  template <class Model>
  using method = EvidenceMap<Model>;

  // Throws std::invalid_argument naming `who`, the field and its value.
  void validate(const std::string& who) const {
    detail::check_positive_finite(who, "prior_precision", prior_precision);
    if (!std::isnan(noise_precision))
      detail::check_positive_finite(who, "noise_precision", noise_precision);
    detail::check_at_least(who, "frequency", frequency, 1);
    detail::check_at_least(who, "burn_in", burn_in, 0);
    detail::check_at_least(who, "hyper_steps", hyper_steps, 1);
    learning_rate.validate(who + ": learning_rate");
    hyper_learning_rate.validate(who + ": hyper_learning_rate");
    adam.validate(who);
  }
};

template <class Model>
class EvidenceMap {
 public:
  using posterior_type = EvidenceMapOptions::posterior_type;

  // Throws std::invalid_argument for bad options (naming the field), blocks that do not cover θ
  // once each, an initial θ of the wrong size or not finite, or a noise_precision for a model
  // whose likelihood is not nn::GaussianFixedNoise.
  EvidenceMap(const Model& model, const EvidenceMapOptions& options, Rng& rng)
      : model_(model), o_(options) {
    const std::string who = "ngvi::vi::fit(evidence_map)";
    o_.validate(who);
    blocks_ = o_.blocks.empty() ? prior_blocks(model) : o_.blocks;
    detail::check_prior_blocks(blocks_, model.num_params(), who);
    theta_ = o_.initial.size() > 0 ? o_.initial : initial_mean(model, rng);
    nn::check_theta_size(theta_.size(), model.num_params(), who, "initial");
    if (!theta_.allFinite()) throw std::invalid_argument(who + ": the initial θ is not finite");
    tau0_ = detail::fixed_noise_precision(model);
    if (!std::isnan(o_.noise_precision) && std::isnan(tau0_))
      throw std::invalid_argument(who +
                                  ": noise_precision = " + std::to_string(o_.noise_precision) +
                                  " needs a model with an nn::GaussianFixedNoise likelihood");
    learn_tau_ = o_.learn_noise_precision && !std::isnan(tau0_);
    const auto B = static_cast<Eigen::Index>(blocks_.size());
    log_h_ = Eigen::VectorXd::Constant(learn_tau_ ? B + 1 : B, std::log(o_.prior_precision));
    if (learn_tau_)
      log_h_(B) = std::log(std::isnan(o_.noise_precision) ? tau0_ : o_.noise_precision);
    d_ = per_parameter_precisions(blocks_, prior_precisions());
    adam_ = Adam(theta_.size(), o_.adam);
    hyper_adam_ = Adam(log_h_.size(), o_.adam);
    batches_per_epoch_ =
        MinibatchSampler(model.num_examples(), o_.loop.minibatch).batches_per_epoch();
  }

  // θ ← Adam(θ, (N/M)(τ/τ₀)∇Σ_{i∈B} ℓᵢ(θ) + Dθ), and at the end of an epoch due an update of the
  // hyperparameters (top of this file). Throws StepFailure if Λ is not positive definite at an
  // update or the hyperparameters leave the finite numbers. Cost: one minibatch gradient + O(P);
  // an update adds the curvature over all N examples and K + 1 P×P Cholesky factorisations.
  void step(const StepInput& in, Rng&, Counters& c) {
    Eigen::VectorXd g;
    {
      ScopedTimer t(c.seconds_gradients);
      minibatch_loss_and_gradient(model_, theta_, in.batch, in.reducer, in.parallel, g);
    }
    const double scale =
        static_cast<double>(in.num_examples) / static_cast<double>(in.batch.size()) * noise_ratio();
    g = scale * g + d_.cwiseProduct(theta_);
    adam_.step(theta_, g, o_.learning_rate.at(in.iteration));
    if (in.iteration % batches_per_epoch_ != 0) return;
    const Eigen::Index epoch = in.iteration / batches_per_epoch_;
    if (epoch > o_.burn_in && epoch % o_.frequency == 0) update_hyperparameters(c);
  }

  // The current δ_b (and τ, NaN unless learned).
  EvidenceHyperparameters hyperparameters() const {
    return {prior_precisions(), learn_tau_ ? std::exp(log_h_(log_h_.size() - 1))
                                           : std::numeric_limits<double>::quiet_NaN()};
  }
  const std::vector<nn::Block>& blocks() const { return blocks_; }
  // log Z at the last update (at that update's θ and final hyperparameters); NaN before one.
  double log_marginal_likelihood() const { return log_z_; }

  PointEstimate posterior() const { return PointEstimate(theta_); }
  NamedArrays state() const {
    NamedArrays s = adam_.state("adam");
    for (auto& a : hyper_adam_.state("hyper_adam")) s.push_back(std::move(a));
    s.emplace_back("theta", theta_);
    s.emplace_back("log_hyperparameters", log_h_);
    s.emplace_back("log_marginal_likelihood", Eigen::MatrixXd::Constant(1, 1, log_z_));
    return s;
  }
  void restore(const NamedArrays& s) {
    theta_ = state_array(s, "theta", theta_.size(), 1);
    log_h_ = state_array(s, "log_hyperparameters", log_h_.size(), 1);
    log_z_ = state_array(s, "log_marginal_likelihood", 1, 1)(0, 0);
    adam_.restore(s, "adam");
    hyper_adam_.restore(s, "hyper_adam");
    d_ = per_parameter_precisions(blocks_, prior_precisions());
  }
  std::optional<NonFinite> first_non_finite() const {
    if (const auto i = first_non_finite_entry(theta_)) return NonFinite{*i, "mean"};
    return std::nullopt;
  }

 private:
  Eigen::VectorXd prior_precisions() const {
    return log_h_.head(static_cast<Eigen::Index>(blocks_.size())).array().exp();
  }
  // τ/τ₀: the data term's weight at the current τ (1 when τ is not learned).
  double noise_ratio() const {
    return learn_tau_ ? std::exp(log_h_(log_h_.size() - 1)) / tau0_ : 1.0;
  }

  void update_hyperparameters(Counters& c) {
    LaplaceOptions lo;
    lo.curvature = o_.curvature;
    lo.threads = o_.loop.threads;
    lo.grain = o_.loop.grain;
    lo.reducer = o_.loop.reducer;
    EvidenceTerms t;
    {
      ScopedTimer timer(c.seconds_curvature);
      t = evidence_terms(model_, theta_, blocks_, lo);
    }
    ScopedTimer timer(c.seconds_linear_algebra);
    try {
      for (Eigen::Index k = 0; k < o_.hyper_steps; ++k) {
        if (o_.update == HyperparameterUpdate::adam) {
          const EvidenceGradient g = evidence_gradient(t, hyperparameters());
          hyper_adam_.step(log_h_, -g.gradient, o_.hyper_learning_rate.at(hyper_adam_.steps() + 1));
        } else {
          const EvidenceHyperparameters h = mackay_update(t, hyperparameters());
          log_h_.head(h.prior_precisions.size()) = h.prior_precisions.array().log();
          if (learn_tau_) log_h_(log_h_.size() - 1) = std::log(h.noise_precision);
        }
        if (!log_h_.allFinite())
          throw std::domain_error("the hyperparameters are not finite after step " +
                                  std::to_string(k + 1));
      }
      log_z_ = evidence_gradient(t, hyperparameters()).log_marginal_likelihood;
      d_ = per_parameter_precisions(blocks_, prior_precisions());
    } catch (const std::domain_error& e) {
      throw StepFailure(std::string("ngvi::vi::fit(evidence_map): updating the hyperparameters: ") +
                        e.what());
    }
  }

  const Model& model_;
  EvidenceMapOptions o_;
  std::vector<nn::Block> blocks_;
  Eigen::VectorXd theta_;
  Eigen::VectorXd log_h_;  // log δ_1, …, log δ_B, then log τ if learned
  Eigen::VectorXd d_;      // D's diagonal: δ_b on block b
  double tau0_ = std::numeric_limits<double>::quiet_NaN();
  bool learn_tau_ = false;
  Adam adam_, hyper_adam_;
  Eigen::Index batches_per_epoch_ = 1;
  double log_z_ = std::numeric_limits<double>::quiet_NaN();
};

// What fit_with_evidence returns: the fit of θ and the learned hyperparameters.
struct EvidenceFit {
  FitResult<PointEstimate> fit;             // θ (as MAP's result) and the loop's record
  EvidenceHyperparameters hyperparameters;  // the learned δ_b (and τ, NaN unless learned)
  std::vector<nn::Block> blocks;            // b = 1..B
  double log_marginal_likelihood = std::numeric_limits<double>::quiet_NaN();  // at the last update
};

namespace detail {

// The fit loop's callback that copies the learned hyperparameters out at the end of the run.
struct CaptureHyperparameters {
  EvidenceFit* out;
  template <class Context, class Result>
  void on_end(const Context& ctx, const Result&) {
    out->hyperparameters = ctx.method().hyperparameters();
    out->blocks = ctx.method().blocks();
    out->log_marginal_likelihood = ctx.method().log_marginal_likelihood();
  }
};

}  // namespace detail

// Immer et al.'s online procedure (top of this file) in the shared fit loop. The history's rows
// are those of the model as given (its own τ₀ in train_nll). For the final Laplace approximation,
// give LaplaceOptions::prior_precisions = per_parameter_precisions(blocks, δ) and a model with
// the learned τ. Throws as fit() and EvidenceMap's constructor; a failed update stops the run
// (status `failed`, the last good θ and hyperparameters). Cost: the epochs of MAP's steps plus,
// per update, the curvature over the N examples and K + 1 P×P Cholesky factorisations.
template <class Model, class... Callbacks>
EvidenceFit fit_with_evidence(const Model& model, const EvidenceMapOptions& options, Rng& rng,
                              Callbacks&&... callbacks) {
  EvidenceFit r;
  r.fit = fit(model, options, rng, detail::CaptureHyperparameters{&r},
              std::forward<Callbacks>(callbacks)...);
  return r;
}

// Continues the run saved in `checkpoint` (a FitCheckpoint of an evidence_map fit) with the same
// options, bitwise as the uninterrupted run. Throws as vi::resume. Cost: that of the epochs left.
template <class Model, class... Callbacks>
EvidenceFit resume_with_evidence(const Model& model, const EvidenceMapOptions& options,
                                 const FitCheckpoint& checkpoint, Callbacks&&... callbacks) {
  EvidenceFit r;
  r.fit = resume(model, options, checkpoint, detail::CaptureHyperparameters{&r},
                 std::forward<Callbacks>(callbacks)...);
  return r;
}

}  // namespace ngvi::vi
