// Bayes-by-backprop (Blundell et al. 2015, "Weight Uncertainty in Neural Networks"): mean-field
// Gaussian VI by reparameterisation gradients and Adam — the non-natural baseline that the
// natural-gradient papers (Khan et al. 2018; Zhang et al. 2018) compare against.
//
// q = N(μ, diag(σ²)) with σ = softplus(ρ) = log(1 + e^ρ), so (μ, ρ) are unconstrained. Each
// step minimises the minibatch estimate of the negative (λ-weighted) ELBO
//
//   F(μ, ρ) = E_q[(N/M) Σ_{i∈B} ℓᵢ(θ)] + λ KL(q ‖ N(0, δ⁻¹I)),
//   KL = ½ Σⱼ (δσⱼ² + δμⱼ² − 1 − log(δσⱼ²))                      (closed form)
//
// through θₛ = μ + σ⊙εₛ, εₛ ~ N(0, I), s = 1..S, and ĝₛ = (N/M) Σ_{i∈B} ∇ℓᵢ(θₛ):
//
//   ∇_μ F ≈ (1/S) Σₛ ĝₛ + λδμ
//   ∇_ρ F ≈ [(1/S) Σₛ ĝₛ⊙εₛ + λ(δσ − 1/σ)] ⊙ sigmoid(ρ)          (dσ/dρ = sigmoid(ρ))
//
// With a general Gaussian prior N(μ₀, Λ₀⁻¹) (BayesByBackpropOptions::prior, gaussian_prior.hpp;
// continual learning) the KL is ½[Σⱼ (Λ₀)ⱼⱼσⱼ² + (μ−μ₀)ᵀΛ₀(μ−μ₀) − P − log det Λ₀ − Σⱼ log σⱼ²],
// so λδμ becomes λΛ₀(μ − μ₀) and δσ becomes diag(Λ₀) ⊙ σ — still the exact KL gradient.
// then one vi::Adam step on x = (μ, ρ). The KL's gradient is analytic rather than sampled (the
// paper's Eqn. 2 also admits a sampled KL; the closed form has less variance and the same
// expectation). The data gradient is one reverse sweep of the minibatch loss per sample
// (minibatch_gradient.hpp). Unlike VON/VOGN/IVON this is a plain gradient method: the step
// sizes are Adam's, not a natural gradient's, which is why it converges more slowly.
#pragma once

#include <cmath>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/adam.hpp>
#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/random.hpp>
#include <inference/schedule.hpp>

namespace ngvi::vi {

template <class Model>
class BayesByBackprop;

struct BayesByBackpropOptions {
  LoopOptions loop{};
  // δ, the prior N(0, δ⁻¹I)'s precision.
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior)). Empty (the default): N(0, δ⁻¹I) above. When set it replaces that prior in the
  // KL and its gradient (see the file comment).
  std::optional<GaussianPrior> prior{};
  // λ, the KL weight (1: the ELBO).
  double kl_weight = 1.0;
  // Adam's step size for (μ, ρ), with an optional decay. 1e-2 suits small networks.
  Schedule learning_rate{1e-2};
  // Adam's moment decays and ε (its learning_rate field is ignored: the schedule above rules).
  AdamOptions adam{};
  // S, samples θ ~ q per step.
  int mc_samples = 1;
  // σ at the start, for every parameter (ρ₀ = softplus⁻¹(σ₀)). Small, so that the initial
  // network behaves like its point initialisation; 0.05 is close to the paper's ρ₀ = −3.
  double initial_stddev = 0.05;

  static constexpr const char* name = "bayes_by_backprop";
  using posterior_type = DiagonalGaussian;
  template <class Model>
  using method = BayesByBackprop<Model>;

  // Throws std::invalid_argument naming the field.
  void validate(const std::string& who) const {
    learning_rate.validate(who + ": learning_rate");
    adam.validate(who + ": adam");
    detail::check_nonnegative_finite(who, "kl_weight", kl_weight);
    detail::check_at_least(who, "mc_samples", mc_samples, 1);
    detail::check_positive_finite(who, "initial_stddev", initial_stddev);
  }
};

// softplus(ρ) = log(1 + e^ρ), computed without overflow; its inverse; its derivative sigmoid(ρ).
inline double softplus(double r) {
  return r > 0.0 ? r + std::log1p(std::exp(-r)) : std::log1p(std::exp(r));
}
inline double inverse_softplus(double s) { return s + std::log(-std::expm1(-s)); }
inline double sigmoid(double r) {
  return r >= 0.0 ? 1.0 / (1.0 + std::exp(-r)) : std::exp(r) / (1.0 + std::exp(r));
}

template <class Model>
class BayesByBackprop {
 public:
  using posterior_type = BayesByBackpropOptions::posterior_type;

  // μ from the model's initialisation, ρ = softplus⁻¹(initial_stddev). Throws
  // std::invalid_argument for bad options, naming the field.
  BayesByBackprop(const Model& model, const BayesByBackpropOptions& options, Rng& rng)
      : model_(model), o_(options) {
    o_.validate("ngvi::vi::BayesByBackprop");
    const Eigen::VectorXd mu = initial_mean(model, rng);
    p_ = mu.size();
    if (o_.prior) {
      o_.prior->check_dim(p_, "ngvi::vi::BayesByBackprop");
      prior_diagonal_ = o_.prior->diagonal(p_).array();
    }
    x_.resize(2 * p_);
    x_.head(p_) = mu;
    x_.tail(p_).setConstant(inverse_softplus(o_.initial_stddev));
    adam_ = Adam(2 * p_, o_.adam);
  }

  // The reparameterisation estimate of ∇F at (μ, ρ), stacked (∇_μ, ∇_ρ), from S draws of rng.
  // Unbiased for the gradient of F (E over ε of the data term; the KL term exact).
  // The minibatch gradients are summed by `reducer` (none: one recording; loop_options.hpp).
  // Cost: S·(P normal draws + one batched gradient of the minibatch loss) + O(P).
  Eigen::VectorXd gradient(std::span<const Eigen::Index> batch, Eigen::Index num_examples, Rng& rng,
                           Counters& c, const BatchReducer* reducer = nullptr,
                           const ad::ParallelOptions& parallel = {}) const {
    const auto mu = x_.head(p_);
    const Eigen::ArrayXd rho = x_.tail(p_).array();
    const Eigen::ArrayXd sigma = rho.unaryExpr([](double r) { return softplus(r); });
    const double scale =
        static_cast<double>(num_examples) / static_cast<double>(batch.size());  // N/M
    Eigen::VectorXd g_mu = Eigen::VectorXd::Zero(p_), g_sigma = Eigen::VectorXd::Zero(p_), grad;
    for (int s = 0; s < o_.mc_samples; ++s) {
      const Eigen::VectorXd eps = standard_normal(rng, p_);
      const Eigen::VectorXd theta = mu + (sigma * eps.array()).matrix();
      {
        ScopedTimer t(c.seconds_gradients);
        minibatch_loss_and_gradient(model_, theta, batch, reducer, parallel, grad);
      }
      g_mu += scale * grad;
      g_sigma.array() += scale * grad.array() * eps.array();
    }
    g_mu /= o_.mc_samples;
    g_sigma /= o_.mc_samples;
    const double lambda = o_.kl_weight, delta = o_.prior_precision;
    Eigen::VectorXd g(2 * p_);
    const Eigen::ArrayXd d_sigma = rho.unaryExpr([](double r) { return sigmoid(r); });
    if (o_.prior) {
      g.head(p_) = g_mu + lambda * o_.prior->gradient(mu);
      g.tail(p_) =
          ((g_sigma.array() + lambda * (prior_diagonal_ * sigma - sigma.inverse())) * d_sigma)
              .matrix();
      return g;
    }
    g.head(p_) = g_mu + lambda * delta * mu;
    g.tail(p_) =
        ((g_sigma.array() + lambda * (delta * sigma - sigma.inverse())) * d_sigma).matrix();
    return g;
  }

  // One Adam step on (μ, ρ) along gradient(). Cost: that of gradient() plus O(P).
  void step(const StepInput& in, Rng& rng, Counters& c) {
    const Eigen::VectorXd g = gradient(in.batch, in.num_examples, rng, c, in.reducer, in.parallel);
    adam_.step(x_, g, o_.learning_rate.at(adam_.steps() + 1));
  }

  // q = N(μ, diag(softplus(ρ)²)). Cost: O(P).
  posterior_type posterior() const {
    const Eigen::ArrayXd sigma =
        x_.tail(p_).array().unaryExpr([](double r) { return softplus(r); });
    return {x_.head(p_), sigma.square().inverse().matrix()};
  }
  // ρ, the unconstrained scale parameters (σ = softplus(ρ)).
  Eigen::VectorXd rho() const { return x_.tail(p_); }

  NamedArrays state() const {
    NamedArrays s = adam_.state("bbb.adam");
    s.emplace_back("bbb.x", x_);
    return s;
  }
  void restore(const NamedArrays& s) {
    x_ = state_array(s, "bbb.x", 2 * p_, 1);
    adam_.restore(s, "bbb.adam");
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(x_.head(p_))) return NonFinite{*i, "mean"};
    if (auto i = first_non_finite_entry(x_.tail(p_))) return NonFinite{*i, "scale parameter ρ"};
    // σ = softplus(ρ) underflowing to 0 makes the precision infinite.
    for (Eigen::Index j = 0; j < p_; ++j)
      if (!(softplus(x_(p_ + j)) > 0.0)) return NonFinite{j, "standard deviation softplus(ρ)"};
    return std::nullopt;
  }

 private:
  const Model& model_;
  BayesByBackpropOptions o_;
  Eigen::Index p_ = 0;
  Eigen::ArrayXd prior_diagonal_;  // diag Λ₀ of a general prior (empty without one)
  Eigen::VectorXd x_;              // (μ, ρ)
  Adam adam_;
};

}  // namespace ngvi::vi
