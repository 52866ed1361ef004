// IVON (Shen et al. 2024, "Variational Learning is Effective for Large Deep Networks"): the
// improved variational online Newton method, mean-field, needing no per-example gradients.
//
// With λ the effective sample size (N for proper VI), δ = δ₀/λ IVON's weight decay (δ₀ the prior
// precision of p₀ = N(0, δ₀⁻¹I), options.prior_precision), ℓ̄ the minibatch-MEAN loss, and the
// state (m, h, g) — mean, running Hessian estimate, momentum — each step t is:
//
//   σ = 1/√(λ(h + δ));   θₛ = m + σ⊙εₛ, εₛ ~ N(0, I), s = 1..S
//   ĝ = (1/S) Σₛ ∇ℓ̄(θₛ);   ĥ = (1/S) Σₛ ∇ℓ̄(θₛ)⊙εₛ/σ              (reparameterisation Hessian)
//   g ← β₁g + (1−β₁)ĝ
//   h ← β₂h + (1−β₂)ĥ + ½(1−β₂)²(h − ĥ)²/(h + δ)
//   m ← m − α_t clip((g/(1−β₁ᵗ) + δm)/(h + δ), ±r)
//   q = N(m, diag(1/(λ(h + δ))))
//
// ĥ is Price's-theorem estimate: E_ε[∇ℓ̄(m + σε)⊙ε/σ] = diag E_q[∇²ℓ̄] exactly (unbiased, also
// where the Hessian is indefinite), from the one gradient the step needs anyway. The correction
// term ½(1−β₂)²(h−ĥ)²/(h+δ) keeps h + δ > 0 whatever ĥ is: with x = h + δ, d = ĥ − h and
// r = 1−β₂ the new h + δ is (x + r d)²/(2x) + x/2 > 0, so the precision never needs a remedy.
//
// Where δ and λ enter (as in the authors' `ivon` PyTorch package): the loss is the minibatch
// MEAN, so h estimates the Hessian of ℓ̄ and the weight decay δ is per example; the objective is
// E_q[ℓ̄] + (1/λ) KL(q ‖ N(0, (λδ)⁻¹ I)), i.e. N·E_q[ℓ̄] + (N/λ) KL(q ‖ p₀) with δ₀ = λδ. With
// λ = N that is the ELBO; λ ≠ N tempers it (KL weight N/λ). The package also scales α by
// (h₀ + δ) by default (rescale_lr); here α is used as written above — pass α·(h₀ + δ) to
// reproduce that. With a general Gaussian prior N(μ₀, Λ₀⁻¹) (IvonOptions::prior,
// gaussian_prior.hpp; continual learning) the objective's KL is to it: δ becomes the vector
// diag(Λ₀)/λ (in h + δ and q's precision λh + diag Λ₀) and δm the whole Λ₀(m − μ₀)/λ — ∇_m of
// (1/λ)KL(q ‖ p₀) exactly, and its gradient in q's diagonal covariance is diag(Λ₀)/(2λ), so the
// mean-field fixed point is the one under that prior. The gradient is one reverse sweep of the
// model's batched loss on the minibatch (minibatch_gradient.hpp), per MC sample.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/ivon_options.hpp>
#include <inference/loop_options.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/random.hpp>
#include <inference/schedule.hpp>

namespace ngvi::vi {

// ĝ and ĥ of one step, averaged over the MC samples (both of the minibatch-mean loss).
struct IvonEstimate {
  Eigen::VectorXd gradient;  // ĝ
  Eigen::VectorXd hessian;   // ĥ, unbiased for diag E_q[∇²ℓ̄]
};

template <class Model>
class Ivon {
 public:
  using posterior_type = IvonOptions::posterior_type;

  // m from the model's initialisation (Supervised draws the network's weights), h = h₀, g = 0.
  // Throws std::invalid_argument for bad options, naming the field.
  Ivon(const Model& model, const IvonOptions& options, Rng& rng) : model_(model), o_(options) {
    o_.validate(std::string("ngvi::vi::Ivon"));
    const auto n = static_cast<double>(model.num_examples());
    lambda_ = o_.effective_sample_size > 0.0 ? o_.effective_sample_size : n;
    delta_ = o_.prior_precision / lambda_;
    m_ = initial_mean(model, rng);
    if (o_.prior) {
      o_.prior->check_dim(m_.size(), "ngvi::vi::Ivon");
      decay_ = o_.prior->diagonal(m_.size()).array() / lambda_;
    } else {
      decay_ = Eigen::ArrayXd::Constant(m_.size(), delta_);
    }
    h_ = Eigen::VectorXd::Constant(m_.size(), o_.hess_init);
    g_ = Eigen::VectorXd::Zero(m_.size());
  }

  // ĝ and ĥ on the minibatch at S draws θₛ = m + σ⊙εₛ (the draws come from rng), the minibatch
  // gradients summed by `reducer` (none: one recording of the batch; loop_options.hpp).
  // Cost: S·(P normal draws + one batched gradient of the minibatch loss).
  IvonEstimate estimate(std::span<const Eigen::Index> batch, Rng& rng, Counters& c,
                        const BatchReducer* reducer = nullptr,
                        const ad::ParallelOptions& parallel = {}) const {
    const Eigen::VectorXd sigma = stddev();
    const auto M = static_cast<double>(batch.size());
    IvonEstimate e{Eigen::VectorXd::Zero(m_.size()), Eigen::VectorXd::Zero(m_.size())};
    Eigen::VectorXd grad;
    for (int s = 0; s < o_.mc_samples; ++s) {
      const Eigen::VectorXd eps = standard_normal(rng, m_.size());
      const Eigen::VectorXd theta = m_ + sigma.cwiseProduct(eps);
      {
        ScopedTimer t(c.seconds_gradients);
        minibatch_loss_and_gradient(model_, theta, batch, reducer, parallel, grad);
      }
      grad /= M;  // ∇ℓ̄, the minibatch mean
      e.gradient += grad;
      e.hessian.array() += grad.array() * eps.array() / sigma.array();
    }
    e.gradient /= o_.mc_samples;
    e.hessian /= o_.mc_samples;
    return e;
  }

  // One IVON step on the minibatch. Cost: estimate() plus O(P).
  void step(const StepInput& in, Rng& rng, Counters& c) {
    const IvonEstimate e = estimate(in.batch, rng, c, in.reducer, in.parallel);
    ++t_;
    const double b1 = o_.beta1, b2 = o_.beta2;
    g_ = b1 * g_ + (1.0 - b1) * e.gradient;
    h_.array() =
        b2 * h_.array() + (1.0 - b2) * e.hessian.array() +
        0.5 * (1.0 - b2) * (1.0 - b2) * (h_ - e.hessian).array().square() / (h_.array() + decay_);
    const double debias = 1.0 - std::pow(b1, static_cast<double>(t_));
    const Eigen::ArrayXd prior_term =
        o_.prior ? Eigen::ArrayXd(o_.prior->gradient(m_).array() / lambda_) : decay_ * m_.array();
    const Eigen::ArrayXd direction = ((g_.array() / debias + prior_term) / (h_.array() + decay_))
                                         .cwiseMax(-o_.clip_radius)
                                         .cwiseMin(o_.clip_radius);
    m_.array() -= o_.learning_rate.at(t_) * direction;
  }

  // q = N(m, diag(1/(λ(h + δ)))). Cost: O(P).
  posterior_type posterior() const { return {m_, lambda_ * (h_.array() + decay_).matrix()}; }
  // h, the running estimate of diag E_q[∇²ℓ̄] (Hessian of the minibatch-MEAN loss), for studies
  // that compare it with the true Hessian.
  const Eigen::VectorXd& hessian_estimate() const { return h_; }
  const Eigen::VectorXd& momentum() const { return g_; }
  double effective_sample_size() const { return lambda_; }
  double weight_decay() const { return delta_; }

  NamedArrays state() const {
    Eigen::MatrixXd t(1, 1);
    t(0, 0) = static_cast<double>(t_);
    return {{"ivon.m", m_}, {"ivon.h", h_}, {"ivon.g", g_}, {"ivon.t", t}};
  }
  void restore(const NamedArrays& s) {
    m_ = state_array(s, "ivon.m", m_.size(), 1);
    h_ = state_array(s, "ivon.h", h_.size(), 1);
    g_ = state_array(s, "ivon.g", g_.size(), 1);
    t_ = static_cast<Eigen::Index>(state_array(s, "ivon.t", 1, 1)(0, 0));
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(m_)) return NonFinite{*i, "mean"};
    if (auto i = first_non_finite_entry(h_)) return NonFinite{*i, "Hessian estimate h"};
    if (auto i = first_non_finite_entry(g_)) return NonFinite{*i, "momentum"};
    return std::nullopt;
  }

 private:
  Eigen::VectorXd stddev() const { return (lambda_ * (h_.array() + decay_)).rsqrt().matrix(); }

  const Model& model_;
  IvonOptions o_;
  double lambda_ = 0.0;
  double delta_ = 0.0;
  Eigen::ArrayXd decay_;  // δ per parameter: δ, or diag(Λ₀)/λ for a general prior
  Eigen::VectorXd m_, h_, g_;
  Eigen::Index t_ = 0;
};

}  // namespace ngvi::vi
