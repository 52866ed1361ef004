// VOGN, variational online Gauss-Newton (Khan, Nielsen, Tangkaratt, Lin, Gal & Srivastava 2018,
// "Fast and Scalable Bayesian Deep Learning by Weight-Perturbation in Adam"): natural-gradient VI
// whose curvature is built from per-example first derivatives.
//
// One step on the minibatch B (M = |B| examples of N), at iteration t with α = α(t), β = β(t),
// δ̃ = δ/N:
//   θₛ ~ q = N(μ, diag(1/((N/λ)(s + λδ̃)))), s = 1..S    (S = 0: the single point θ = μ)
//   gᵢ = ∇ℓᵢ(θₛ), i ∈ B                                  (nn::per_example_gradients on the span)
//   ĝ = (1/S) Σₛ (1/M) Σ_{i∈B} gᵢ
//   ĉ = (1/S) Σₛ (1/M) Σ_{i∈B} c(gᵢ)                     (the curvature, by name, below)
//   s ← (1−β) s + β ĉ                                     (the precision step)
//   μ ← μ − α (ĝ + λδ̃μ) / (s + λδ̃)                       (the mean step, with the NEW s)
// and the full-matrix form (Covariance::full, for small nets): S ← (1−β)S + β Ĉ with the
// per-example matrices Cᵢ, μ ← μ − α (S + λδ̃I)⁻¹(ĝ + λδ̃μ), q = N(μ, ((N/λ)(S + λδ̃I))⁻¹).
// The curvature c, chosen by VognCurvature (vogn_curvature.hpp):
//   empirical_fisher  gᵢ² (diagonal) / gᵢgᵢᵀ (full): the squared per-example gradients of the
//                     OBSERVED targets — the VOGN of Khan et al. 2018;
//   ggn               Jᵢᵀ H_L,i Jᵢ, the generalized Gauss-Newton matrix (Martens 2020; nn::ggn on
//                     the span, its diagonal for diagonal VOGN), H_L,i = ∂²ℓ/∂f² at (fᵢ, yᵢ);
//   mc_fisher         (1/K) Σₖ g̃ᵢₖ g̃ᵢₖᵀ with g̃ᵢₖ the gradient for a target ỹᵢₖ ~ p(y | fᵢ(θ))
//                     sampled from the model: the Monte-Carlo TRUE Fisher (Zhang et al. 2018,
//                     footnote 2; nn::mc_fisher on the span, K = fisher_samples, its seed drawn
//                     from the training stream each time so a run stays reproducible).
// With a general Gaussian prior N(μ₀, Λ₀⁻¹) (VognOptions::prior, gaussian_prior.hpp; continual
// learning, Nguyen et al. 2018) VON's δI and δμ become Λ₀ and Λ₀(μ − μ₀) (von.hpp), so here λδ̃I
// becomes (λ/N)Λ₀ — dense for full VOGN, diag Λ₀ for diagonal VOGN — and λδ̃μ becomes
// (λ/N)Λ₀(μ − μ₀) with the full Λ₀ in both (the mean-field ELBO's exact gradient in μ), and q's
// precision is (N/λ)(s + (λ/N)Λ₀) = (N/λ)s + Λ₀.
// With λ = 1 these are the equations of Khan et al. letter for letter. λ, the KL weight, enters as
// in von.hpp (whose header derives it): the λ-weighted ELBO is ordinary VI with the likelihood
// raised to 1/λ, i.e. N → N/λ. Writing VON's precision as Λ = (N/λ)(s + λδ̃) (s tracks the average
// per-example curvature, Khan et al.'s reparameterisation S = (Λ − δI)/N at λ = 1) turns VON's mean
// step Λ⁻¹(Nĝ/λ + δμ) into (ĝ + λδ̃μ)/(s + λδ̃) — so λ multiplies δ̃ in both places and q's precision
// is (N/λ)(s + λδ̃), not N(s + λδ̃) as in the "tempered" form of later papers (which describes the
// same iterates of μ with a precision λ times larger).
//
// Approximations, each by name:
//   * Curvature: the exact Hessian E_q[∇²ℓ] of VON replaced by the empirical Fisher, the GGN or
//     the MC true Fisher (all positive semi-definite for the likelihoods of nn/ with the GGN's
//     output Hessian convex in f; a non-PD s + λδ̃ is reported as an error, never used).
//   * Monte Carlo: ĝ and ĉ are evaluated at S samples θₛ ~ q (default one), not as E_q[...]; in
//     particular VOGN's ĝ uses the per-example gradients at θ ~ q, and the empirical Fisher
//     squares gradients at that same θ.
//   * Minibatch: averages over B instead of all N examples.
//   * Diagonal: mean-field q and the diagonal of the curvature (squared gradients elementwise).
//   * Separate rates α (mean) and β (curvature); α = β would be the natural-gradient step.
//
// Cost per step: S per-example gradient passes over M examples (the batched route for
// nn::Supervised; for the diagonal empirical Fisher only their sums and sums of squares, by
// nn::add_gradient_sums_and_squares), plus for the curvature: empirical Fisher O(M·P)
// (diagonal) or one M×P×P product (full); GGN M output Jacobians + O(M·m·P) (diagonal) or
// O(M·m·P²) (full); MC Fisher the same plus K·M sampled output gradients. Updates: O(P) (diagonal),
// or one Cholesky of S + λδ̃I (P³/3) for full, whose factor also samples the next θ.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <inference/batch_reducer.hpp>
#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/loop_options.hpp>
#include <inference/natural_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/factored_precision.hpp>
#include <inference/random.hpp>
#include <inference/schedule.hpp>
#include <inference/step_failure.hpp>
#include <inference/vogn_curvature.hpp>
#include <inference/vogn_options.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/mc_fisher.hpp>
#include <nn/per_example.hpp>

namespace ngvi::vi {

template <class Model, Covariance C>
class Vogn {
  using Factor = FactoredPrecision<C>;
  using Mat = typename Factor::matrix_type;  // s or S: P entries, or P×P

 public:
  using options_type = VognOptionsFor<C>;
  using posterior_type = typename options_type::posterior_type;

  // Throws std::invalid_argument naming the field for bad options. Cost: O(P²), one Cholesky.
  Vogn(const Model& model, const options_type& o, Rng& rng) : model_(model), o_(o) {
    validate();
    const Eigen::Index p = model.num_params();
    n_over_lambda_ = static_cast<double>(model.num_examples()) / o.kl_weight;
    delta_tilde_ = o.kl_weight * o.prior_precision / static_cast<double>(model.num_examples());
    if (o.prior) {
      o.prior->check_dim(p, who());
      prior_tilde_ = (1.0 / n_over_lambda_) * Factor::prior_precision(*o.prior, p);
    }
    mu_ = o.initial_mean.size() > 0 ? o.initial_mean : initial_mean(model, rng);
    s_ = o.initial_state_curvature.size() > 0 ? o.initial_state_curvature
                                              : Factor::scaled_identity(p, o.initial_curvature);
    if (!factorize())
      throw std::invalid_argument(
          who() + ": initial_state_curvature + λδ/N is not finite and positive definite");
  }

  // One VOGN step on in.batch (see the header comment). Cost: see the header comment.
  void step(const StepInput& in, Rng& rng, Counters& c) {
    const double alpha = o_.mean_rate.at(in.iteration), beta = o_.precision_rate.at(in.iteration);
    const auto m = static_cast<double>(in.batch.size());
    draw_parameters(mu_, factor_, 1.0 / std::sqrt(n_over_lambda_), o_.mc_samples, rng, thetas_);
    const Eigen::Index p = mu_.size();
    Eigen::VectorXd g_hat = Eigen::VectorXd::Zero(p);
    Mat c_hat = Factor::scaled_identity(p, 0.0);
    for (const Eigen::VectorXd& theta : thetas_) {
      ScopedTimer timer(c.seconds_gradients);
      // One seed per θₛ for the MC Fisher's sampled targets (keyed by example, so any split of
      // the batch into blocks draws the same targets).
      const std::uint64_t fisher_seed = o_.curvature == VognCurvature::mc_fisher ? rng() : 0;
      const Eigen::VectorXd sums = sum_over_batch(
          in.reducer, in.batch, p + c_hat.size(), in.parallel,
          [&](std::span<const Eigen::Index> examples, const ad::ParallelOptions& par,
              Eigen::VectorXd& acc) { add_sums(theta, examples, par, fisher_seed, acc); });
      g_hat += sums.head(p);
      c_hat += sums.tail(c_hat.size()).reshaped(c_hat.rows(), c_hat.cols());
    }
    g_hat /= m * static_cast<double>(thetas_.size());
    c_hat /= m * static_cast<double>(thetas_.size());

    ScopedTimer timer(c.seconds_linear_algebra);
    // s ← (1−β)s + β ĉ
    s_ = (1.0 - beta) * s_ + beta * c_hat;
    if (!factorize()) {
      if (!s_.allFinite()) return;  // non-finite: the fit loop reports it
      throw StepFailure(who() + ": at iteration " + std::to_string(in.iteration) +
                        " the curvature s + λδ/N is not positive definite (curvature = " +
                        to_string(o_.curvature) +
                        ": its output Hessian is indefinite for this likelihood; use mc_fisher)");
    }
    // μ ← μ − α (s + λδ̃)⁻¹(ĝ + λδ̃μ), or (ĝ + (λ/N)Λ₀(μ − μ₀)) for a general prior
    if (o_.prior)
      mu_ -= alpha * factor_.solve(g_hat + o_.prior->gradient(mu_) / n_over_lambda_);
    else
      mu_ -= alpha * factor_.solve(g_hat + delta_tilde_ * mu_);
  }

  // q = N(μ, ((N/λ)(s + λδ̃))⁻¹).
  posterior_type posterior() const { return factor_.posterior(mu_, n_over_lambda_); }
  const Eigen::VectorXd& mean() const { return mu_; }
  // s (P entries) or S (P×P): the running average of the per-example curvature.
  const Mat& curvature() const { return s_; }

  NamedArrays state() const { return {{"mean", mu_}, {"curvature", s_}}; }
  // Throws std::invalid_argument if an array is missing or has the wrong shape, or s + λδ̃ is not
  // positive definite. Cost: one Cholesky (full).
  void restore(const NamedArrays& st) {
    const Eigen::Index p = mu_.size();
    mu_ = state_array(st, "mean", p, 1);
    s_ = state_array(st, "curvature", p, Factor::full ? p : 1);
    if (!factorize())
      throw std::invalid_argument(who() + ": the checkpoint's curvature is not positive definite");
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(mu_)) return NonFinite{*i, "mean"};
    if (auto i = Factor::first_non_finite(s_)) return NonFinite{*i, "precision"};
    return std::nullopt;
  }

 private:
  static std::string who() { return std::string("ngvi::vi::Vogn(") + options_type::name + ")"; }

  void validate() const {
    validate_natural_gradient_options(o_, model_.num_params(), who());
    detail::check_at_least(who(), "fisher_samples", o_.fisher_samples, 1);
    const Eigen::Index p = model_.num_params();
    const auto& s0 = o_.initial_state_curvature;
    if (s0.size() != 0 && (s0.rows() != p || s0.cols() != (Factor::full ? p : 1)))
      throw std::invalid_argument(who() + ": initial_state_curvature is " +
                                  std::to_string(s0.rows()) + "×" + std::to_string(s0.cols()) +
                                  ", the model has " + std::to_string(p) + " parameters");
    if constexpr (!nn::OutputLikelihoodModel<Model>)
      if (o_.curvature != VognCurvature::empirical_fisher)
        throw std::invalid_argument(
            who() + ": curvature " + to_string(o_.curvature) +
            " needs a model with outputs and a likelihood (nn::Supervised); use "
            "empirical_fisher");
  }

  // Factors s + λδ̃I, or s + (λ/N)Λ₀ for a general prior. False if it is not finite and positive
  // definite.
  bool factorize() {
    Mat shifted = s_;
    if (o_.prior)
      shifted += prior_tilde_;
    else
      Factor::add_identity(shifted, delta_tilde_);
    return factor_.factorize(std::move(shifted));
  }

  // Adds [Σ_{i∈examples} gᵢ; Σ_{i∈examples} c(gᵢ)] at θ to acc (P + P or P + P² entries, the
  // curvature column-major). The diagonal empirical Fisher needs only the sums of the gradients
  // and of their squares (nn::add_gradient_sums_and_squares, no per-example gradient matrix);
  // the other curvatures start from the per-example gradients. Safe to call concurrently on
  // disjoint examples.
  void add_sums(const Eigen::VectorXd& theta, std::span<const Eigen::Index> examples,
                const ad::ParallelOptions& par, std::uint64_t fisher_seed,
                Eigen::VectorXd& acc) const {
    const Eigen::Index p = mu_.size();
    Eigen::VectorXd g_sum = acc.head(p);
    Mat c_sum = acc.tail(acc.size() - p).reshaped(p, Factor::full ? p : 1);
    if constexpr (!Factor::full) {
      if (o_.curvature == VognCurvature::empirical_fisher) {
        nn::add_gradient_sums_and_squares(model_, theta, examples, g_sum, c_sum, par);
        acc << g_sum, c_sum;
        return;
      }
    }
    ad::RowMatrixXd g;
    nn::per_example_gradients(model_, theta, examples, g, par);
    g_sum += g.colwise().sum().transpose();
    c_sum += curvature_sum(theta, examples, g, par, fisher_seed);
    acc << g_sum, c_sum.reshaped();
  }

  // Σ_{i∈examples} c(gᵢ) at θ, given the examples' per-example gradients g at θ.
  Mat curvature_sum(const Eigen::VectorXd& theta, std::span<const Eigen::Index> examples,
                    const ad::RowMatrixXd& g, const ad::ParallelOptions& par,
                    std::uint64_t fisher_seed) const {
    if (o_.curvature == VognCurvature::empirical_fisher) {
      if constexpr (Factor::full)
        return g.transpose() * g;
      else
        throw std::logic_error(who() + ": the diagonal empirical Fisher is summed in add_sums");
    }
    if constexpr (nn::OutputLikelihoodModel<Model>) {
      if (o_.curvature == VognCurvature::ggn) {
        const auto options = ad::with_parallel(nn::GgnOptions{}, par);
        if constexpr (Factor::full)
          return nn::ggn(model_, theta, examples, options);
        else
          return nn::ggn_diagonal(model_, theta, examples, options);
      }
      nn::MonteCarloFisherOptions f;
      f.samples = o_.fisher_samples;
      f.seed = fisher_seed;
      f = ad::with_parallel(f, par);
      if constexpr (Factor::full)
        return nn::mc_fisher(model_, theta, examples, f);
      else
        return nn::mc_fisher_diagonal(model_, theta, examples, f);
    }
    throw std::invalid_argument(who() + ": curvature " + to_string(o_.curvature) +
                                " needs nn::Supervised");
  }

  const Model& model_;
  options_type o_;
  double n_over_lambda_ = 1.0;
  double delta_tilde_ = 0.0;  // λδ̃ = λδ/N
  Mat prior_tilde_{};         // (λ/N)Λ₀ of a general prior in this family (empty without one)
  Eigen::VectorXd mu_;
  Mat s_;
  Factor factor_;                        // of s + λδ̃I
  std::vector<Eigen::VectorXd> thetas_;  // this step's θₛ
};

}  // namespace ngvi::vi
