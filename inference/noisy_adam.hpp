// Noisy Adam (Zhang, Sun, Duvenaud & Grosse 2018, "Noisy Natural Gradient as Variational
// Inference", Algorithm 1): Adam with adaptive weight noise, fitting a mean-field Gaussian.
//
// With λ the KL weight, η = 1/δ the prior variance, N examples and the damping γ = λ/(Nη) = λδ/N,
// each iteration k is, in the minimising convention ∇ℓ̄ = −∇ log p(y|w, x) (minibatch mean):
//
//   w⁽ᵏ⁾ ~ N(μ, (λ/N) diag(f + γ)⁻¹)
//   v = −∇ℓ̄(w⁽ᵏ⁾) − γ w⁽ᵏ⁾
//   m ← β₁m + (1−β₁)v                                   (momentum)
//   f ← β₂f + (1−β₂) f̂(w⁽ᵏ⁾)                             (the Fisher's diagonal)
//   m̃ = m/(1−β₁ᵏ);   μ ← μ + α m̃/√(f + γ + γ_ex)
//   q = N(μ, (λ/N) diag(f + γ)⁻¹), i.e. precision (N/λ)(f + γ)
//
// f̂ is a per-example quantity: Eqn. 10 of the paper, from which Alg. 1 is built, samples one
// (x, y) per step, so with a minibatch B it is the mean over i ∈ B of the SQUARED PER-EXAMPLE
// gradients (not the square of the minibatch-mean gradient, whose expectation is M times
// smaller and would inflate the variance M-fold). Which gradients (the paper's footnote 2):
//   NoisyAdamFisher::sampled_fisher   targets ỹᵢ ~ p(y | xᵢ, w) drawn from the model — the "true
//                                     Fisher" the paper uses in all its experiments (default);
//                                     f̂ = (1/M) Σᵢ E_ỹ[∇ℓ(ỹ|xᵢ, w)²] by fisher_samples draws;
//   NoisyAdamFisher::empirical_fisher the observed targets, f̂ = (1/M) Σᵢ ∇ℓᵢ(w)² (what Adam and
//                                     Graves's method square): at its fixed point q is NOT the
//                                     mean-field posterior (the residuals enter f).
// As Alg. 1 is written, f is not bias-corrected (Adam's v̂ is) and starts at fisher_init (0: the
// first draws have the prior's variance, λ/(Nγ) = η). On a network that start is unstable: the
// first weights are drawn at the prior's spread, so the residuals are large, and after step k the
// preconditioner is √((1 − β₂ᵏ)·F) with F a Fisher that, unlike Adam's squared gradients, does
// not grow with the residuals: the first steps are ~α·√τ·|residual|/√(1 − β₂), ~10 per weight on
// 13-50-1 Boston at δ = 1, τ = 10, α = 0.01, and μ is non-finite by iteration 7 (so is an
// independent NumPy transcription of Alg. 1). fisher_init = 1 (q starts at sd ≈ 1/√N, VOGN's
// s₀ = 1 start) is stable there, and is what `ngvi uci`/`ngvi fit` use; the fixed point does not
// depend on f₀. γ_ex, the extrinsic damping, is added to the
// preconditioner of the mean only (an optimisation device; 0 = Alg. 1 exactly, as the paper's
// experiments ran: "we found we did not need to do this"). With S > 1 MC samples v and f̂ are
// averaged over S draws; S = 0 evaluates at w = μ (no noise: Adam with the prior as weight decay).
// With a general Gaussian prior N(μ₀, Λ₀⁻¹) (NoisyAdamOptions::prior, gaussian_prior.hpp;
// continual learning) γ becomes the vector (λ/N) diag Λ₀ (in the draws, the preconditioner and
// q's precision (N/λ)f + diag Λ₀) and γw becomes (λ/N)Λ₀(w − μ₀), the whole prior gradient.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/batch_reducer.hpp>
#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/random.hpp>
#include <inference/schedule.hpp>
#include <nn/curvature/mc_fisher.hpp>
#include <nn/per_example.hpp>

namespace ngvi::vi {

template <class Model>
class NoisyAdam;

// Which squared gradients estimate the Fisher's diagonal (see the file comment).
enum class NoisyAdamFisher {
  sampled_fisher,    // targets sampled from the model (the paper's experiments)
  empirical_fisher,  // observed targets
};

struct NoisyAdamOptions {
  LoopOptions loop{};
  // δ = 1/η, the prior N(0, ηI)'s precision.
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior)). Empty (the default): N(0, ηI) above. When set it replaces that prior: γ becomes
  // (λ/N) diag Λ₀ and γw becomes (λ/N)Λ₀(w − μ₀) (see the file comment).
  std::optional<GaussianPrior> prior{};
  // λ, the KL weight (1: the ELBO; the paper's Eqn. 1 allows other values).
  double kl_weight = 1.0;
  // α, Adam's step size for μ (with an optional decay).
  Schedule learning_rate{1e-3};
  // β₁, the momentum's decay (Adam's default).
  double beta1 = 0.9;
  // β₂, the Fisher average's decay (Adam's default).
  double beta2 = 0.999;
  // Which squared gradients f̂ is made of; default the paper's (sampled targets).
  NoisyAdamFisher fisher = NoisyAdamFisher::sampled_fisher;
  // For sampled_fisher: targets drawn per example and step (1, as the paper).
  int fisher_samples = 1;
  // γ_ex, extra damping of the mean's preconditioner only (0: Algorithm 1 as written).
  double extrinsic_damping = 0.0;
  // f at the start, every entry (0: Algorithm 1, Adam's v₀ = 0; a network needs more, e.g. 1 —
  // see the file comment).
  double fisher_init = 0.0;
  // S, weight samples per step (0: at the mean).
  int mc_samples = 1;

  static constexpr const char* name = "noisy_adam";
  using posterior_type = DiagonalGaussian;
  template <class Model>
  using method = NoisyAdam<Model>;

  // Throws std::invalid_argument naming the field.
  void validate(const std::string& who) const {
    learning_rate.validate(who + ": learning_rate");
    detail::check_positive_finite(who, "kl_weight", kl_weight);
    detail::check_unit_interval(who, "beta1", beta1);
    detail::check_unit_interval(who, "beta2", beta2);
    detail::check_at_least(who, "fisher_samples", fisher_samples, 1);
    detail::check_nonnegative_finite(who, "extrinsic_damping", extrinsic_damping);
    detail::check_nonnegative_finite(who, "fisher_init", fisher_init);
    detail::check_at_least(who, "mc_samples", mc_samples, 0);
  }
};

template <class Model>
class NoisyAdam {
 public:
  using posterior_type = NoisyAdamOptions::posterior_type;

  // μ from the model's initialisation, m = 0, f = fisher_init. Throws std::invalid_argument for
  // bad options, naming the field.
  NoisyAdam(const Model& model, const NoisyAdamOptions& options, Rng& rng)
      : model_(model), o_(options) {
    o_.validate("ngvi::vi::NoisyAdam");
    n_ = static_cast<double>(model.num_examples());
    gamma_ = o_.kl_weight * o_.prior_precision / n_;
    mu_ = initial_mean(model, rng);
    if (o_.prior) {
      o_.prior->check_dim(mu_.size(), "ngvi::vi::NoisyAdam");
      damping_ = (o_.kl_weight / n_) * o_.prior->diagonal(mu_.size()).array();
    } else {
      damping_ = Eigen::ArrayXd::Constant(mu_.size(), gamma_);
    }
    m_ = Eigen::VectorXd::Zero(mu_.size());
    f_ = Eigen::VectorXd::Constant(mu_.size(), o_.fisher_init);
  }

  // One iteration of Algorithm 1 on the minibatch. Cost: per sample, P normal draws and the
  // minibatch's per-example gradients (empirical) or its batched gradient plus the sampled-target
  // Fisher diagonal (sampled); then O(P).
  void step(const StepInput& in, Rng& rng, Counters& c) {
    const Eigen::Index p = mu_.size();
    const auto M = static_cast<double>(in.batch.size());
    const int samples = std::max(o_.mc_samples, 1);
    const Eigen::ArrayXd sd = (o_.kl_weight / n_ / (f_.array() + damping_)).sqrt();
    Eigen::VectorXd v = Eigen::VectorXd::Zero(p), f_hat = Eigen::VectorXd::Zero(p);
    for (int s = 0; s < samples; ++s) {
      Eigen::VectorXd w = mu_;
      if (o_.mc_samples > 0) w.array() += sd * standard_normal(rng, p).array();
      Eigen::VectorXd grad;  // Σ_{i∈B} ∇ℓᵢ(w)
      if (o_.fisher == NoisyAdamFisher::empirical_fisher) {
        ScopedTimer t(c.seconds_gradients);
        // [Σ gᵢ; Σ gᵢ²] over the batch.
        const Eigen::VectorXd sums =
            sum_over_batch(in.reducer, in.batch, 2 * p, in.parallel,
                           [&](std::span<const Eigen::Index> examples,
                               const ad::ParallelOptions& par, Eigen::VectorXd& acc) {
                             ad::RowMatrixXd G;
                             nn::per_example_gradients(model_, w, examples, G, par);
                             acc.head(p) += G.colwise().sum().transpose();
                             acc.tail(p) += G.colwise().squaredNorm().transpose();
                           });
        grad = sums.head(p);
        f_hat += sums.tail(p) / M;
      } else {
        {
          ScopedTimer t(c.seconds_gradients);
          minibatch_loss_and_gradient(model_, w, in.batch, in.reducer, in.parallel, grad);
        }
        nn::MonteCarloFisherOptions mc;
        mc.samples = o_.fisher_samples;
        mc.seed = rng();  // this step's targets, from the caller's stream (keyed by example)
        ScopedTimer t(c.seconds_curvature);
        f_hat += sum_over_batch(in.reducer, in.batch, p, in.parallel,
                                [&](std::span<const Eigen::Index> examples,
                                    const ad::ParallelOptions& par, Eigen::VectorXd& acc) {
                                  acc += nn::mc_fisher_diagonal(model_, w, examples,
                                                                ad::with_parallel(mc, par));
                                }) /
                 M;
      }
      if (o_.prior)
        v += -grad / M - (o_.kl_weight / n_) * o_.prior->gradient(w);
      else
        v += -grad / M - gamma_ * w;
    }
    v /= samples;
    f_hat /= samples;
    ++k_;
    m_ = o_.beta1 * m_ + (1.0 - o_.beta1) * v;
    f_ = o_.beta2 * f_ + (1.0 - o_.beta2) * f_hat;
    const Eigen::VectorXd m_tilde = m_ / (1.0 - std::pow(o_.beta1, static_cast<double>(k_)));
    mu_.array() += o_.learning_rate.at(k_) * m_tilde.array() /
                   (f_.array() + damping_ + o_.extrinsic_damping).sqrt();
  }

  // q = N(μ, (λ/N) diag(f + γ)⁻¹). Cost: O(P).
  posterior_type posterior() const {
    return {mu_, ((n_ / o_.kl_weight) * (f_.array() + damping_)).matrix()};
  }
  // f, the running estimate of the Fisher's diagonal (per example).
  const Eigen::VectorXd& fisher_estimate() const { return f_; }
  // γ = λδ/N, the intrinsic damping.
  double damping() const { return gamma_; }

  NamedArrays state() const {
    Eigen::MatrixXd k(1, 1);
    k(0, 0) = static_cast<double>(k_);
    return {
        {"noisy_adam.mu", mu_}, {"noisy_adam.m", m_}, {"noisy_adam.f", f_}, {"noisy_adam.k", k}};
  }
  void restore(const NamedArrays& s) {
    mu_ = state_array(s, "noisy_adam.mu", mu_.size(), 1);
    m_ = state_array(s, "noisy_adam.m", m_.size(), 1);
    f_ = state_array(s, "noisy_adam.f", f_.size(), 1);
    k_ = static_cast<Eigen::Index>(state_array(s, "noisy_adam.k", 1, 1)(0, 0));
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(mu_)) return NonFinite{*i, "mean"};
    if (auto i = first_non_finite_entry(f_)) return NonFinite{*i, "Fisher estimate f"};
    if (auto i = first_non_finite_entry(m_)) return NonFinite{*i, "momentum"};
    return std::nullopt;
  }

 private:
  const Model& model_;
  NoisyAdamOptions o_;
  double n_ = 0.0;
  double gamma_ = 0.0;
  Eigen::ArrayXd damping_;  // γ per parameter: γ, or (λ/N) diag Λ₀ for a general prior
  Eigen::VectorXd mu_, m_, f_;
  Eigen::Index k_ = 0;
};

}  // namespace ngvi::vi
