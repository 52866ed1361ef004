// VON, variational online Newton (Khan, Nielsen, Tangkaratt, Lin, Gal & Srivastava 2018, "Fast
// and Scalable Bayesian Deep Learning by Weight-Perturbation in Adam"): natural-gradient VI with
// a Gaussian q = N(μ, Λ⁻¹) and the EXACT Hessian of the loss.
//
// One step on the minibatch B (M = |B| examples of N), at iteration t with α = α(t), β = β(t):
//   θₛ ~ q, s = 1..S, θ = μ + L⁻ᵀε with Λ = LLᵀ          (S = 0: the single point θ = μ)
//   ĝ = (1/S) Σₛ (1/M) Σ_{i∈B} ∇ℓᵢ(θₛ)
//   Ĥ = (1/S) Σₛ (1/M) Σ_{i∈B} ∇²ℓᵢ(θₛ)                   (exact: forward-over-reverse on the span)
//   Λ ← (1−β) Λ + β (N Ĥ / λ + δI)                         (the precision step)
//   μ ← μ − α Λ⁻¹ (N ĝ / λ + δμ)                           (the mean step, with the NEW Λ)
// with prior N(0, δ⁻¹I) and KL weight λ. With a general Gaussian prior N(μ₀, Λ₀⁻¹)
// (VonOptions::prior, gaussian_prior.hpp; Nguyen et al. 2018's continual learning) δI becomes Λ₀
// and δμ becomes Λ₀(μ − μ₀): η₀ = (Λ₀μ₀, −½Λ₀) in the derivation below, so the fixed point is
// Λ = NE_q[H]/λ + Λ₀, NE_q[g] + λΛ₀(μ − μ₀) = 0 — on a conjugate model the exact posterior
// under that prior. Diagonal VON adds diag Λ₀ to its precision and keeps the full Λ₀(μ − μ₀) in
// its mean step: ∇_μ KL(q‖p₀) = Λ₀(μ − μ₀) and ∇ of the KL in q's diagonal covariance is ½diag Λ₀,
// so this is still the exact natural gradient of the mean-field ELBO. The remedies' scales use
// Λ₀ in place of δI: precision_floor checks Λ − κΛ₀, add_damping adds multiples of δ̄I with δ̄
// the mean of diag Λ₀. With λ = 1 these are VON's equations letter for letter
// (α = β is the pure natural-gradient rule; separate α and β generalise it). Diagonal VON
// (Covariance::diagonal, the mean-field family) is the same update on Λ = diag(λ₁..λ_P) with diag Ĥ
// in place of Ĥ and an elementwise division for Λ⁻¹ — the exact natural gradient of the mean-field
// ELBO.
//
// Where λ enters (derived, and a deliberate deviation from the "tempered" form Λ ← (1−β)Λ +
// β(NĤ + λδI) seen in later VOGN papers). The objective is the ELBO with weight λ on the KL,
//   L(q) = E_q[log p(D|θ)] − λ KL(q ‖ p₀) = λ (E_q[(1/λ) log p(D|θ)] − KL(q ‖ p₀)),
// i.e. λ times ordinary VI with the likelihood raised to 1/λ. The natural-gradient step on q's
// natural parameters η = (Λμ, −½Λ) for ordinary VI is (the Bayesian learning rule, Khan & Rue 2023)
// η ← (1−β)η + β(η₀ + ∇_m E_q[log p̃(D|θ)]); with p̃ = p^{1/λ}, Bonnet's and Price's theorems
// (E_q[∇ log p] = −N E_q[g], ∇_Σ E_q[log p] = −½ N E_q[H]) and η₀ = (0, −½δI), its second
// component reads Λ ← (1−β)Λ + β(N E_q[H]/λ + δI) and its first, after subtracting the
// second times μ, μ ← μ − β Λ⁻¹(N E_q[g]/λ + δμ). The stationary point of L satisfies exactly
// N E_q[g] + λδμ = 0 and Λ = N E_q[H]/λ + δI, which is what the fixed point of this update is,
// and what the history's ELBO (elbo.hpp, E_q[log p] − λ KL) measures. The tempered form is the
// same algorithm written for λΛ: multiplying the update by λ gives λΛ ← (1−β)λΛ + β(NĤ + λδI)
// with an identical μ, so the means agree step by step and only q's precision differs, by the
// factor λ. So: λ divides N (N/λ is the effective data size); λ = 1 is proper VI.
//
// Approximations, each by name:
//   * Monte Carlo: E_q[∇ℓ], E_q[∇²ℓ] by S samples θₛ ~ q (S = 0: at the mean, a delta-method
//     approximation, exact for a quadratic loss, and the setting in which one β = 1 step reaches
//     the Bayesian-linear-regression posterior).
//   * Minibatch: Σᵢ over all N examples ≈ (N/M) Σ_{i∈B}.
//   * Separate rates α (mean) and β (precision) with schedules; α = β is the exact natural step.
//   * Indefinite Hessians: away from a minimum Ĥ can be indefinite and Λ non-positive-definite.
//     Λ is never allowed to become so silently: `remedy` chooses what happens, and each firing
//     is counted in Counters under von_remedy_name(remedy) (see VonRemedy, von_remedy.hpp).
//
// Cost per step: S exact minibatch Hessians (⌈P/8⌉ forward-over-reverse recordings of the batch
// loss over M examples each, the recordings over loop.threads; the gradient comes with them), one
// Cholesky of Λ (P³/3 flops; its factor serves the solve and the next step's samples, so Λ is never
// inverted), plus under clip_eigenvalues a tridiagonalisation of Ĥ (4P³/3 flops) and its k clipped
// eigenpairs (O(P²k); clip_eigenvalues_below) per step, or under the other remedies one more
// Cholesky (of Λ − κδI) per step and extra Cholesky factorisations / a GGN only on the steps where
// that check fails.
// Diagonal VON: the same Hessians (a Hessian's diagonal costs as much as the Hessian in
// forward-over-reverse mode) and O(P) algebra.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
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
#include <inference/von_options.hpp>
#include <inference/von_remedy.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/hessian.hpp>

namespace ngvi::vi {

template <class Model, Covariance C>
class Von {
  using Factor = FactoredPrecision<C>;
  using Mat = typename Factor::matrix_type;  // Λ, Ĥ: P×P, or P diagonal entries

 public:
  using options_type = VonOptionsFor<C>;
  using posterior_type = typename options_type::posterior_type;

  // Throws std::invalid_argument naming the field for bad options. Cost: O(P²) and one Cholesky.
  Von(const Model& model, const options_type& o, Rng& rng) : model_(model), o_(o) {
    validate();
    const Eigen::Index p = model.num_params();
    n_over_lambda_ = static_cast<double>(model.num_examples()) / o.kl_weight;
    mu_ = o.initial_mean.size() > 0 ? o.initial_mean : initial_mean(model, rng);
    Mat lambda0;
    if (o.prior) {
      o.prior->check_dim(p, who());
      prior_precision_ = Factor::prior_precision(*o.prior, p);
      if constexpr (Factor::full)
        prior_scale_ = prior_precision_.diagonal().mean();
      else
        prior_scale_ = prior_precision_.mean();
      lambda0 = Factor::scaled_identity(p, n_over_lambda_ * o.initial_curvature);
      lambda0 += prior_precision_;
    } else {
      lambda0 =
          Factor::scaled_identity(p, n_over_lambda_ * o.initial_curvature + o.prior_precision);
    }
    if (o.initial_precision.size() > 0) lambda0 = o.initial_precision;
    if (!factor_.factorize(std::move(lambda0)))
      throw std::invalid_argument(who() +
                                  ": initial_precision is not finite and positive definite");
  }

  // One VON step on in.batch (see the header comment). Cost: see the header comment.
  void step(const StepInput& in, Rng& rng, Counters& c) {
    const double alpha = o_.mean_rate.at(in.iteration), beta = o_.precision_rate.at(in.iteration);
    const double delta = o_.prior_precision;
    const auto m = static_cast<double>(in.batch.size());

    // θₛ ~ q and the Monte-Carlo averages ĝ, Ĥ of the minibatch-mean gradient and Hessian.
    draw_parameters(mu_, factor_, 1.0, o_.mc_samples, rng, thetas_);
    const Eigen::Index p = mu_.size();
    Eigen::VectorXd g_hat = Eigen::VectorXd::Zero(p);
    Mat h_hat = Factor::scaled_identity(p, 0.0);
    {
      ScopedTimer timer(c.seconds_curvature);
      for (const Eigen::VectorXd& theta : thetas_) {
        // [Σ gᵢ; Σ ∇²ℓᵢ (or its diagonal), column-major] over the batch at θ.
        const Eigen::VectorXd sums =
            sum_over_batch(in.reducer, in.batch, p + h_hat.size(), in.parallel,
                           [&](std::span<const Eigen::Index> examples,
                               const ad::ParallelOptions& par, Eigen::VectorXd& acc) {
                             Eigen::VectorXd grad;
                             const Eigen::MatrixXd h = nn::exact_hessian(
                                 model_, theta, examples,
                                 ad::with_parallel(nn::CurvatureOptions{}, par), nullptr, &grad);
                             acc.head(p) += grad;
                             if constexpr (Factor::full)
                               acc.tail(p * p) += h.reshaped();
                             else
                               acc.tail(p) += h.diagonal();
                           });
        g_hat += sums.head(p);
        h_hat += sums.tail(h_hat.size()).reshaped(h_hat.rows(), h_hat.cols());
      }
      g_hat /= m * static_cast<double>(thetas_.size());
      h_hat /= m * static_cast<double>(thetas_.size());
    }

    ScopedTimer timer(c.seconds_linear_algebra);
    if (o_.remedy == VonRemedy::clip_eigenvalues && Factor::all_finite(h_hat) &&
        clip_eigenvalues_below(h_hat, o_.eigenvalue_floor))
      c.fired(von_remedy_name(o_.remedy));
    // Λ ← (1−β)Λ + β(NĤ/λ + δI)
    const Factor previous = factor_;  // a copy, so that a rejected step costs no refactorisation
    const Mat target = precision_target(h_hat);
    if (!accept((1.0 - beta) * previous.matrix() + beta * target)) {
      if (!Factor::all_finite(factor_.matrix())) return;  // non-finite: the fit loop reports it
      if (!remedy(in, beta, previous, target, c)) return;
    }
    // μ ← μ − α Λ⁻¹(Nĝ/λ + δμ), or + Λ₀(μ − μ₀) for a general prior
    if (o_.prior)
      mu_ -= alpha * factor_.solve(n_over_lambda_ * g_hat + o_.prior->gradient(mu_));
    else
      mu_ -= alpha * factor_.solve(n_over_lambda_ * g_hat + delta * mu_);
  }

  posterior_type posterior() const { return factor_.posterior(mu_); }
  const Eigen::VectorXd& mean() const { return mu_; }
  // Λ (P×P, or the P diagonal entries).
  const Mat& precision() const { return factor_.matrix(); }

  NamedArrays state() const { return {{"mean", mu_}, {"precision", factor_.matrix()}}; }
  // Throws std::invalid_argument if an array is missing, has the wrong shape, or Λ is not
  // positive definite. Cost: one Cholesky.
  void restore(const NamedArrays& s) {
    const Eigen::Index p = mu_.size();
    mu_ = state_array(s, "mean", p, 1);
    if (!factor_.factorize(state_array(s, "precision", p, Factor::full ? p : 1)))
      throw std::invalid_argument(who() + ": the checkpoint's precision is not positive definite");
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(mu_)) return NonFinite{*i, "mean"};
    if (auto i = Factor::first_non_finite(factor_.matrix())) return NonFinite{*i, "precision"};
    return std::nullopt;
  }

 private:
  static std::string who() { return std::string("ngvi::vi::Von(") + options_type::name + ")"; }

  void validate() const {
    validate_natural_gradient_options(o_, model_.num_params(), who());
    detail::check_unit_interval(who(), "precision_floor", o_.precision_floor);
    detail::check_nonnegative_finite(who(), "eigenvalue_floor", o_.eigenvalue_floor);
    if (o_.max_step_halvings < 1 || o_.max_damping_increases < 1 || !(o_.damping > 0.0) ||
        !std::isfinite(o_.damping))
      throw std::invalid_argument(
          who() +
          ": max_step_halvings and max_damping_increases must be >= 1 and damping "
          "positive, got " +
          std::to_string(o_.max_step_halvings) + ", " + std::to_string(o_.max_damping_increases) +
          ", " + std::to_string(o_.damping));
    const Eigen::Index p = model_.num_params();
    if (o_.initial_precision.size() != 0 &&
        (o_.initial_precision.rows() != p || o_.initial_precision.cols() != (Factor::full ? p : 1)))
      throw std::invalid_argument(who() + ": initial_precision is " +
                                  std::to_string(o_.initial_precision.rows()) + "×" +
                                  std::to_string(o_.initial_precision.cols()) + ", the model has " +
                                  std::to_string(p) + " parameters");
    if constexpr (!nn::OutputLikelihoodModel<Model>)
      if (o_.remedy == VonRemedy::ggn_fallback)
        throw std::invalid_argument(
            who() +
            ": remedy ggn_fallback needs a model with outputs and a likelihood "
            "(nn::Supervised); this model has neither");
  }

  // Factors the proposed Λ; true if it is positive definite and, for every remedy but
  // clip_eigenvalues, Λ − κδI (Λ − κΛ₀ for a general prior) is too (see precision_floor).
  // Cost: one or two Choleskys.
  bool accept(Mat proposed) {
    const bool above_floor =
        o_.remedy == VonRemedy::clip_eigenvalues || o_.precision_floor == 0.0 ||
        (o_.prior ? Factor::exceeds(proposed - o_.precision_floor * prior_precision_, 0.0)
                  : Factor::exceeds(proposed, o_.precision_floor * o_.prior_precision));
    return factor_.factorize(std::move(proposed)) && above_floor;
  }

  // NĤ/λ + δI, or NĤ/λ + Λ₀ in this family for a general prior.
  Mat precision_target(const Mat& h) const {
    Mat t = n_over_lambda_ * h;
    if (o_.prior)
      t += prior_precision_;
    else
      Factor::add_identity(t, o_.prior_precision);
    return t;
  }

  // The new Λ was finite but not positive definite: apply the remedy. Returns false if the step
  // is to end here (μ unchanged), true if the factor now holds a positive definite Λ.
  bool remedy(const StepInput& in, double beta, const Factor& previous, const Mat& target,
              Counters& c) {
    const Mat& old_lambda = previous.matrix();
    const char* fired = von_remedy_name(o_.remedy);
    auto broken = [&](const std::string& why) {
      return StepFailure(who() + ": at iteration " + std::to_string(in.iteration) +
                         " the precision update (1−β)Λ + β(NĤ/λ + δI) is not positive definite " +
                         why);
    };
    switch (o_.remedy) {
      case VonRemedy::fail:
        throw broken(
            "(the minibatch Hessian is indefinite) and remedy = fail; choose clip_eigenvalues, "
            "damp_step, add_damping, reject_step or ggn_fallback");
      case VonRemedy::clip_eigenvalues:
        throw broken(
            "even after clipping Ĥ's eigenvalues at eigenvalue_floor (Λ is too ill-conditioned)");
      case VonRemedy::reject_step:
        c.fired(fired);
        factor_ = previous;
        return false;
      case VonRemedy::damp_step: {
        c.fired(fired);
        double b = beta;
        for (int k = 0; k < o_.max_step_halvings; ++k) {
          b *= 0.5;
          if (accept((1.0 - b) * old_lambda + b * target)) return true;
        }
        c.fired(von_remedy_name(VonRemedy::reject_step));
        factor_ = previous;
        return false;
      }
      case VonRemedy::add_damping: {
        c.fired(fired);
        const Mat raw = factor_.matrix();
        double rho = o_.damping * (o_.prior ? prior_scale_ : o_.prior_precision);
        for (int k = 0; k < o_.max_damping_increases; ++k, rho *= 10.0) {
          Mat damped = raw;
          Factor::add_identity(damped, rho);
          if (accept(std::move(damped))) return true;
        }
        throw broken("even after adding damping up to " + std::to_string(rho / 10.0) + "·I");
      }
      case VonRemedy::ggn_fallback: {
        c.fired(fired);
        if constexpr (nn::OutputLikelihoodModel<Model>) {
          Mat h = Factor::scaled_identity(mu_.size(), 0.0);
          {
            ScopedTimer timer(c.seconds_curvature);
            for (const Eigen::VectorXd& theta : thetas_)
              h += sum_over_batch(in.reducer, in.batch, h.size(), in.parallel,
                                  [&](std::span<const Eigen::Index> examples,
                                      const ad::ParallelOptions& par, Eigen::VectorXd& acc) {
                                    const auto g = ad::with_parallel(nn::GgnOptions{}, par);
                                    if constexpr (Factor::full)
                                      acc += nn::ggn(model_, theta, examples, g).reshaped();
                                    else
                                      acc += nn::ggn_diagonal(model_, theta, examples, g);
                                  })
                       .reshaped(h.rows(), h.cols());
            h /= static_cast<double>(in.batch.size()) * static_cast<double>(thetas_.size());
          }
          if (accept((1.0 - beta) * old_lambda + beta * precision_target(h))) return true;
          if (!Factor::all_finite(factor_.matrix())) return false;
          // The GGN keeps Λ − κδI positive definite in exact arithmetic; when it does not here,
          // rounding has won, which in practice means the mean has run away.
          char mu_max[32];
          std::snprintf(mu_max, sizeof mu_max, "%.3g", mu_.cwiseAbs().maxCoeff());
          throw broken(
              std::string("even with the Gauss-Newton matrix in place of the Hessian, in floating "
                          "point: the mean has grown to max |μᵢ| = ") +
              mu_max + " (diverging? lower mean_rate, or use clip_eigenvalues)");
        }
        throw broken(
            "and the model has no Gauss-Newton matrix (remedy ggn_fallback needs nn::Supervised)");
      }
    }
    return false;
  }

  const Model& model_;
  options_type o_;
  double n_over_lambda_ = 1.0;
  Mat prior_precision_{};     // a general prior's Λ₀ in this family (empty without one)
  double prior_scale_ = 0.0;  // δ̄, the mean of its diagonal (add_damping's unit)
  Eigen::VectorXd mu_;
  Factor factor_;
  std::vector<Eigen::VectorXd> thetas_;  // this step's θₛ (kept for ggn_fallback)
};

}  // namespace ngvi::vi
