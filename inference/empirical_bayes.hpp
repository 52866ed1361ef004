// Empirical Bayes for the variational methods: the prior precision δ_b of each parameter block b
// and, for a Gaussian likelihood N(f, τ⁻¹I), the noise precision τ, learned during one VI fit by
// variational EM — every F epochs after a burn-in of B epochs, the ELBO is maximised over (δ, τ)
// at the current q, and the same run goes on with the new prior and likelihood (Bishop 2006,
// "Pattern Recognition and Machine Learning", §10.1 and §10.3 (variational EM, the variational
// treatment of linear regression); Tipping 2001, "Sparse Bayesian Learning and the Relevance
// Vector Machine", the per-group precisions; the evidence framework they approximate: MacKay
// 1992, "A Practical Bayesian Framework for Backpropagation Networks"; learned online during
// training rather than by a grid over cross-validation folds: Immer, Bauer, Fortuin, Rätsch &
// Khan 2021, "Scalable Marginal Likelihood Estimation for Model Selection in Deep Learning").
//
// With the prior p₀(θ) = N(0, D⁻¹), D = diag(δ_b on block b), and q = N(μ, Σ), the ELBO
//
//   L(q, δ, τ) = E_q[log p(y | θ, τ)] − KL(q ‖ N(0, D⁻¹)) ≤ log p(y | δ, τ)
//
// depends on δ only through E_q[log p₀(θ)] and on τ only through E_q[log p(y | θ, τ)], so its
// maximiser over (δ, τ) at a fixed q (the M-step) is, in closed form,
//
//   δ_b = P_b / (‖μ_b‖² + tr Σ_b)                                  (optimal_prior_precisions),
//   τ   = N·d / E_q[Σᵢ ‖yᵢ − fᵢ(θ)‖²]                              (optimal_noise_precision),
//
// for N examples of d outputs and P_b the size of block b. With a Gamma prior Gam(a₀, b₀) on τ
// and τ's own factor q(τ) in the variational family (Zhang, Sun, Duvenaud & Grosse 2018, "Noisy
// Natural Gradient as Variational Inference", Appendix C.1, after Hernández-Lobato & Adams 2015,
// PBP), the M-step for τ is the coordinate update q(τ) = Gam(a₀ + N·d/2, b₀ + ½E_q[Σᵢ‖yᵢ − fᵢ‖²])
// and the weights then train with its mean
//
//   τ̄ = (a₀ + N·d/2) / (b₀ + ½E_q[Σᵢ‖yᵢ − fᵢ(θ)‖²])                (noise_prior_shape/_rate),
//
// which is N·d/E_q[…] for a₀ = b₀ = 0 (the default, no prior on τ); δ can be kept fixed
// (learn_prior_precisions = false), as that protocol does. The expectation is by S Monte-Carlo
// draws θₛ ~ q (EmpiricalBayesOptions::noise_samples, on a stream of its own), or, with S = 0, at
// the mean plus the linearised (GLM) variance term, ‖y − f(μ)‖² + tr(Σ JᵀJ) with J the N·d×P
// output Jacobian at μ: exact for a model linear in θ, an approximation otherwise. The E-step is
// the method's own: F more epochs of its steps from where it stood (a partial E-step, the
// generalised EM of Neal & Hinton 1998, "A View of the EM Algorithm that Justifies Incremental,
// Sparse, and Other Variants"). Where q can reach the exact posterior (VON with a full covariance
// on a conjugate model) the fixed points of the iteration are the stationary points of the
// evidence log p(y | δ, τ): type-II maximum likelihood.
//
// How the run continues (fit_with_empirical_bayes): the fit loop of fit.hpp runs the first B + F
// epochs (rounded up to the first multiple of F after B, as evidence_map's updates), its
// checkpoint is taken at the end, the M-step gives (δ, τ), and vi::resume continues from that
// checkpoint with the method's options whose `prior` is now N(0, diag(δ_b on block b)) (a
// GaussianPrior of a DiagonalGaussian with mean 0) and a model whose nn::GaussianFixedNoise
// likelihood has the new τ. The method is rebuilt from the new options and its state (mean,
// precision, optimiser moments) restored from the checkpoint, so the run is the same run: same
// minibatch order, same random draws, same counters and history; only the prior's precision and
// τ change at the updates. VOGN, SLANG, IVON and noisy Adam add the prior's precision when they
// form q, so q's precision has the new prior from the update on; VON's Λ and noisy K-FAC's damped
// factors hold it inside their state and move to the new one at the method's own rate (VON:
// Λ ← (1 − β)Λ + β(NĤ/λ + D), the same averaging as for the data term); Bayes-by-backprop's q is
// its own parameters, which its Adam steps move.
// The history's rows are those of the phase they were recorded in (KL to that phase's prior,
// train_nll at that phase's τ); with LoopOptions::history_every > 0 each phase also ends with a
// row. Since the new τ maximises E_q[log p(y | θ, τ)], the training loss per example does not jump
// up at an update, and the divergence rule (loop_options.hpp) keeps its meaning across them.
// Functions that would not otherwise be templates are written `template <int = 0>`
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/elbo.hpp>
#include <inference/evidence_hyperparameters.hpp>
#include <inference/fit.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/point_estimate.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/parameters.hpp>
#include <nn/per_example.hpp>

namespace ngvi::vi {

struct EmpiricalBayesOptions {
  // F: update (δ, τ) after every F-th epoch. 1, as evidence_map (Immer et al.'s default).
  Eigen::Index frequency = 1;
  // B: no update after the first B epochs (q first moves away from its start). 0, as evidence_map.
  // Updates happen after the epochs e > B with e a multiple of F, and only if training goes on
  // after them: the last phase always trains with the last (δ, τ).
  Eigen::Index burn_in = 0;
  // Whether δ_b are learned; false keeps the options' δ for every block.
  bool learn_prior_precisions = true;
  // Whether τ is learned (a model with an nn::GaussianFixedNoise likelihood, rebuilt as
  // Model(net, GaussianFixedNoise(τ, d), data); other models have no τ).
  bool learn_noise_precision = true;
  // a₀, b₀ of a Gamma prior Gam(a₀, b₀) on τ (shape, rate; top of this file); 0 and 0: none.
  // Zhang et al. 2018's regression protocol: 6 and 6.
  double noise_prior_shape = 0.0;
  double noise_prior_rate = 0.0;
  // S, draws θ ~ q for E_q[Σᵢ‖yᵢ − fᵢ(θ)‖²] at each update of τ; 0: the mean plus the GLM
  // variance term (exact for a model linear in θ; see the top of this file).
  int noise_samples = 16;
  // The blocks of θ with a δ each; empty: prior_blocks(model), one per named block.
  std::vector<nn::Block> blocks{};

  // Throws std::invalid_argument naming `who`, the field and its value.
  void validate(const std::string& who) const {
    detail::check_at_least(who, "frequency", frequency, 1);
    detail::check_at_least(who, "burn_in", burn_in, 0);
    detail::check_at_least(who, "noise_samples", noise_samples, 0);
    for (const auto& [field, v] : {std::pair{"noise_prior_shape", noise_prior_shape},
                                   std::pair{"noise_prior_rate", noise_prior_rate}})
      if (!(v >= 0.0) || !std::isfinite(v))
        throw std::invalid_argument(who + ": " + field + " must be >= 0 and finite, got " +
                                    std::to_string(v));
  }
};

// One M-step of the run: after which epoch, and the (δ, τ) the epochs after it trained with.
struct EmpiricalBayesUpdate {
  Eigen::Index epoch = 0;
  EvidenceHyperparameters hyperparameters;
};

// What fit_with_empirical_bayes returns.
template <class Posterior>
struct EmpiricalBayesFit {
  FitResult<Posterior> fit;  // q at the end of the run and the loop's record over every phase
  // The δ_b and τ of the last update, i.e. the prior N(0, diag(δ_b on block b)) and the τ the last
  // phase trained with and the final q belongs to (the initial ones if no update happened);
  // τ NaN unless learned.
  EvidenceHyperparameters hyperparameters;
  std::vector<nn::Block> blocks;              // b = 1..B
  std::vector<EmpiricalBayesUpdate> updates;  // in order
};

namespace detail {

// Whether the model can be rebuilt with another τ: Model(net, likelihood, data) (nn::Supervised).
template <class Model>
constexpr bool noise_precision_settable = requires(const Model& m) {
  Model(m.net(), nn::GaussianFixedNoise(1.0, 1), m.data());
};

// The model with its nn::GaussianFixedNoise likelihood's τ replaced, over the same data: shared
// (with its window of rows) where the model shares them (nn::Supervised::shared_data), else
// copied. Cost: a copy of the
// network, a pass over the data to check them, and for a model that cannot share them a copy.
template <class Model>
Model with_noise_precision(const Model& model, double tau) {
  nn::GaussianFixedNoise likelihood(tau, fixed_noise_likelihood(model)->output_dim());
  if constexpr (requires { Model(model.net(), likelihood, model.shared_data(), model.window()); })
    return Model(model.net(), std::move(likelihood), model.shared_data(), model.window());
  else if constexpr (requires { Model(model.net(), likelihood, model.shared_data()); })
    return Model(model.net(), std::move(likelihood), model.shared_data());
  else
    return Model(model.net(), std::move(likelihood), model.data());
}

// The fit loop's callback that keeps the run's checkpoint at its end.
struct KeepCheckpoint {
  FitCheckpoint* out;
  template <class Context, class Result>
  void on_end(const Context& ctx, const Result&) {
    *out = ctx.checkpoint();
  }
};

}  // namespace detail

// The M-step for τ: N·d / E_q[Σᵢ‖yᵢ − fᵢ(θ)‖²] (top of this file) for a model with an
// nn::GaussianFixedNoise likelihood (its own τ does not matter), by `samples` draws from q on rng,
// or (samples = 0) at the mean plus the GLM variance term tr(Σ JᵀJ). Throws std::invalid_argument
// for another likelihood, samples < 0 or a q of another dimension; std::domain_error if the
// expected squared residual is not positive and finite. Cost: S full-data losses; S = 0: the
// per-example Jacobians at μ and N·d·P² flops with q.covariance() (N·d·P for a diagonal q).
template <class Model, class Posterior>
double optimal_noise_precision(const Model& model, const Posterior& q, int samples, Rng& rng,
                               const ad::ParallelOptions& parallel = {}) {
  const std::string who = "ngvi::vi::optimal_noise_precision";
  const nn::GaussianFixedNoise* g = detail::fixed_noise_likelihood(model);
  if (g == nullptr)
    throw std::invalid_argument(who + ": the model's likelihood is not nn::GaussianFixedNoise");
  detail::check_at_least(who, "samples", samples, 0);
  if (q.dim() != model.num_params())
    throw std::invalid_argument(who + ": q has " + std::to_string(q.dim()) +
                                " parameters, the model " + std::to_string(model.num_params()));
  const double tau = g->precision();
  const auto targets = static_cast<double>(model.num_examples() * g->output_dim());
  // Σᵢℓᵢ = τ/2 r² + N·d/2 log(2π/τ), solved for r².
  const auto squared_residuals = [&](const Eigen::VectorXd& theta) {
    return 2.0 / tau *
           (total_nll(model, theta) - 0.5 * targets * std::log(2.0 * std::numbers::pi / tau));
  };
  double expected = 0.0;
  if (samples == 0) {
    const Eigen::VectorXd mu = q.mean();
    ad::RowMatrixXd J;
    nn::per_example_jacobians(model, mu, J, parallel);
    double trace = 0.0;
    if constexpr (std::is_same_v<Posterior, DiagonalGaussian>)
      trace = J.colwise().squaredNorm().dot(q.marginal_variances().transpose());
    else
      trace = (J * q.covariance()).cwiseProduct(J).sum();
    expected = squared_residuals(mu) + trace;
  } else {
    for (int s = 0; s < samples; ++s) expected += squared_residuals(q.sample(rng));
    expected /= samples;
  }
  const double next = targets / expected;
  if (!(expected > 0.0) || !std::isfinite(next))
    throw std::domain_error(who + ": E_q[Σᵢ‖yᵢ − fᵢ(θ)‖²] is " +
                            detail::number_or_not_finite(expected) + ", so τ = N·d/E_q[…] = " +
                            detail::number_or_not_finite(next) + " is not positive and finite");
  return next;
}

namespace detail {

// Empirical Bayes's state as a checkpoint's named arrays (FitCheckpoint::hyperparameters): the
// current δ_b ("prior_precisions", B×1), the epochs of the updates so far ("update_epochs", U×1)
// and their δ_b ("update_prior_precisions", B×U); when τ is learned also the current τ
// ("noise_precision", 1×1) and the updates' ("update_noise_precisions", U×1). Cost: O(B·U).
template <int = 0>
NamedArrays empirical_bayes_arrays(const EvidenceHyperparameters& h,
                                   const std::vector<EmpiricalBayesUpdate>& updates,
                                   bool learn_tau) {
  const auto u = static_cast<Eigen::Index>(updates.size());
  Eigen::MatrixXd epochs(u, 1), deltas(h.prior_precisions.size(), u), taus(u, 1);
  for (Eigen::Index k = 0; k < u; ++k) {
    const EmpiricalBayesUpdate& up = updates[static_cast<std::size_t>(k)];
    epochs(k, 0) = static_cast<double>(up.epoch);
    deltas.col(k) = up.hyperparameters.prior_precisions;
    taus(k, 0) = up.hyperparameters.noise_precision;
  }
  NamedArrays a{{"prior_precisions", h.prior_precisions},
                {"update_epochs", epochs},
                {"update_prior_precisions", deltas}};
  if (learn_tau) {
    a.emplace_back("noise_precision", Eigen::MatrixXd::Constant(1, 1, h.noise_precision));
    a.emplace_back("update_noise_precisions", taus);
  }
  return a;
}

// The inverse of empirical_bayes_arrays for a run with B blocks that does (learn_tau) or does not
// learn τ. Throws std::invalid_argument naming `who` and the array when one is missing, has
// another shape, holds a δ or τ that is not positive and finite, or update epochs that are not
// increasing whole numbers. Cost: O(B·U).
template <int = 0>
std::pair<EvidenceHyperparameters, std::vector<EmpiricalBayesUpdate>> empirical_bayes_from(
    const NamedArrays& a, Eigen::Index blocks, bool learn_tau, const std::string& who) {
  auto fail = [&](const std::string& what) {
    return std::invalid_argument(who + ": the checkpoint's empirical-Bayes state " + what);
  };
  auto positive = [&](const Eigen::MatrixXd& m, const std::string& name) {
    for (Eigen::Index k = 0; k < m.size(); ++k)
      if (!(m.data()[k] > 0.0) || !std::isfinite(m.data()[k]))
        throw fail("'" + name + "' holds " + std::to_string(m.data()[k]) +
                   ", not a positive finite precision");
  };
  bool has_tau = false;
  Eigen::Index u = -1;
  for (const auto& [name, m] : a) {
    has_tau |= name == "noise_precision";
    if (name == "update_epochs") u = m.rows();
  }
  if (has_tau != learn_tau)
    throw fail(learn_tau ? "has no noise precision τ, and this run learns it"
                         : "has a noise precision τ, and this run does not learn it");
  if (u < 0) throw fail("has no array 'update_epochs'");
  try {
    EvidenceHyperparameters h;
    h.prior_precisions = state_array(a, "prior_precisions", blocks, 1);
    positive(h.prior_precisions, "prior_precisions");
    const Eigen::MatrixXd epochs = state_array(a, "update_epochs", u, 1);
    const Eigen::MatrixXd deltas = state_array(a, "update_prior_precisions", blocks, u);
    positive(deltas, "update_prior_precisions");
    Eigen::MatrixXd taus = Eigen::MatrixXd::Constant(u, 1, h.noise_precision);
    if (learn_tau) {
      h.noise_precision = state_array(a, "noise_precision", 1, 1)(0, 0);
      taus = state_array(a, "update_noise_precisions", u, 1);
      positive(Eigen::MatrixXd::Constant(1, 1, h.noise_precision), "noise_precision");
      positive(taus, "update_noise_precisions");
    }
    std::vector<EmpiricalBayesUpdate> updates;
    for (Eigen::Index k = 0; k < u; ++k) {
      const double e = epochs(k, 0);
      const double previous = k == 0 ? 0.0 : epochs(k - 1, 0);
      if (!(e > previous) || e != std::floor(e) || !(e < 1e15))
        throw fail("'update_epochs' holds " + std::to_string(e) + " at entry " + std::to_string(k) +
                   ", not a whole epoch after the one before");
      updates.push_back({static_cast<Eigen::Index>(e), {deltas.col(k), taus(k, 0)}});
    }
    return {std::move(h), std::move(updates)};
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).starts_with(who)) throw;
    throw fail(std::string("does not fit: ") + e.what());
  }
}

// fit_with_empirical_bayes from its start (from == nullptr, drawing from rng) or from one of its
// checkpoints (resume_with_empirical_bayes); only_check: return after the checks, before fitting.
template <class Model, class Options, class... Callbacks>
EmpiricalBayesFit<typename Options::posterior_type> run_empirical_bayes(
    const Model& model, const Options& options, const EmpiricalBayesOptions& eb, Rng& rng,
    const FitCheckpoint* from, const std::string& who, bool only_check, Callbacks&&... callbacks) {
  using Q = typename Options::posterior_type;
  static_assert(!std::is_same_v<Q, PointEstimate>,
                "ngvi::vi::fit_with_empirical_bayes: a point estimate has no Σ; for MAP use "
                "fit_with_evidence (evidence_map)");
  static_assert(
      requires { options.prior; },
      "ngvi::vi::fit_with_empirical_bayes: the options need `std::optional<GaussianPrior> "
      "prior`");
  eb.validate(who);
  EmpiricalBayesFit<Q> r;
  r.blocks = eb.blocks.empty() ? prior_blocks(model) : eb.blocks;
  check_prior_blocks(r.blocks, model.num_params(), who);
  double delta = options.prior_precision;
  if (options.prior) {
    const std::optional<double> isotropic = options.prior->isotropic_precision();
    if (!isotropic)
      throw std::invalid_argument(who +
                                  ": the options' prior must be isotropic N(0, δ⁻¹I) or empty; "
                                  "empirical Bayes replaces it by N(0, diag(δ_b)), but it is " +
                                  "of another family");
    delta = *isotropic;
  }
  check_positive_finite(who, "prior_precision", delta);
  const auto B = static_cast<Eigen::Index>(r.blocks.size());
  r.hyperparameters.prior_precisions = Eigen::VectorXd::Constant(B, delta);
  const nn::GaussianFixedNoise* g = fixed_noise_likelihood(model);
  bool learn_tau = false;
  if constexpr (noise_precision_settable<Model>)
    learn_tau = eb.learn_noise_precision && g != nullptr;
  if (learn_tau) r.hyperparameters.noise_precision = g->precision();

  const Eigen::Index per_epoch =
      MinibatchSampler(model.num_examples(), options.loop.minibatch).batches_per_epoch();
  const Eigen::Index total = options.loop.total_iterations(who, per_epoch);
  // The phases end after epochs first, first + F, ... (an update after each but the last).
  const Eigen::Index first = (eb.burn_in / eb.frequency + 1) * eb.frequency;
  std::optional<Model> at_tau;  // the model with the learned τ, after the first update
  Options phase = options;
  // The prior and model of a phase after the updates in r.
  auto enter_phase = [&](const EvidenceHyperparameters& h) {
    phase.prior =
        GaussianPrior(DiagonalGaussian(Eigen::VectorXd::Zero(model.num_params()),
                                       per_parameter_precisions(r.blocks, h.prior_precisions)));
    if (learn_tau) at_tau = with_noise_precision(model, h.noise_precision);
    r.hyperparameters = h;
  };
  Rng m_step_rng;  // the τ M-step's draws, apart from the training stream
  std::optional<FitCheckpoint> resume_from;
  if (from != nullptr) {
    if (from->hyperparameters.empty())
      throw std::invalid_argument(who +
                                  ": the checkpoint is of a run without empirical Bayes (it "
                                  "holds no learned δ and τ); resume it with vi::resume");
    auto [h, updates] = empirical_bayes_from(from->hyperparameters, B, learn_tau, who);
    r.updates = std::move(updates);
    // The updates it made are those this schedule makes, and it has not passed the next one.
    const auto schedule = [&] {
      return " (this run's schedule: frequency " + std::to_string(eb.frequency) + ", burn-in " +
             std::to_string(eb.burn_in) + ", " + std::to_string(options.loop.epochs) +
             " epochs); resume with the settings of the run that wrote it";
    };
    for (std::size_t k = 0; k < r.updates.size(); ++k) {
      const Eigen::Index due = first + static_cast<Eigen::Index>(k) * eb.frequency;
      if (r.updates[k].epoch != due || !(due < options.loop.epochs && due * per_epoch < total))
        throw std::invalid_argument(who + ": the checkpoint's update " + std::to_string(k + 1) +
                                    " came after epoch " + std::to_string(r.updates[k].epoch) +
                                    ", which is not when this run updates" + schedule());
    }
    const Eigen::Index next = first + static_cast<Eigen::Index>(r.updates.size()) * eb.frequency;
    if (next < options.loop.epochs && next * per_epoch < total &&
        from->iteration > next * per_epoch)
      throw std::invalid_argument(who + ": the checkpoint is at iteration " +
                                  std::to_string(from->iteration) +
                                  ", past the update after epoch " + std::to_string(next) +
                                  ", which it has not made" + schedule());
    if (!r.updates.empty()) enter_phase(h);
    m_step_rng = load_rng(from->hyperparameter_rng);
    resume_from = *from;
  } else {
    m_step_rng = Rng(rng());
  }
  if (only_check) return r;
  NamedArrays state = empirical_bayes_arrays(r.hyperparameters, r.updates, learn_tau);
  std::string state_rng = save_rng(m_step_rng);
  const CheckpointAddition addition{&state, &state_rng};
  FitCheckpoint end;
  for (Eigen::Index e = first + static_cast<Eigen::Index>(r.updates.size()) * eb.frequency;;
       e += eb.frequency) {
    const bool update = e < options.loop.epochs && e * per_epoch < total;
    phase.loop.epochs = update ? e : options.loop.epochs;
    const Model& current = at_tau ? *at_tau : model;
    r.fit = resume_from
                ? resume(current, phase, *resume_from, KeepCheckpoint{&end}, addition, callbacks...)
                : fit(current, phase, rng, KeepCheckpoint{&end}, addition, callbacks...);
    if (!update || r.fit.status != FitStatus::finished) break;
    try {
      EvidenceHyperparameters h = r.hyperparameters;
      if (eb.learn_prior_precisions)
        h.prior_precisions = optimal_prior_precisions(r.fit.posterior, r.blocks);
      if (learn_tau) {
        const double ml = optimal_noise_precision(current, r.fit.posterior, eb.noise_samples,
                                                  m_step_rng, ad::parallel_options(options.loop));
        // τ̄ = (a₀ + N·d/2)/(b₀ + ½E_q[r²]), with E_q[r²] = N·d/ml.
        const double half_targets =
            0.5 * static_cast<double>(model.num_examples() * g->output_dim());
        h.noise_precision =
            (eb.noise_prior_shape + half_targets) / (eb.noise_prior_rate + half_targets / ml);
      }
      r.updates.push_back({e, h});
      enter_phase(h);
    } catch (const std::domain_error& ex) {
      r.fit.status = FitStatus::failed;
      r.fit.message = who + ": the M-step after epoch " + std::to_string(e) +
                      " failed: " + ex.what() + "; the posterior is the one it was given";
      break;
    }
    state = empirical_bayes_arrays(r.hyperparameters, r.updates, learn_tau);
    state_rng = save_rng(m_step_rng);
    resume_from = end;
  }
  rng = load_rng(end.rng);
  return r;
}

}  // namespace detail

// Fits q to model by the VI method the options name (VON, VOGN, SLANG, IVON, noisy Adam, noisy
// K-FAC, Bayes-by-backprop), learning the prior precision δ_b of each block and (for an
// nn::GaussianFixedNoise likelihood that `eb` says to learn) τ by variational EM during the run
// (top of this file). The first phase starts from the options' prior N(0, δ⁻¹I) (prior_precision,
// or an isotropic `prior`) and the model's τ. The callbacks see every phase: on_begin and on_end
// once per phase, the others as in fit() with the run's iteration and epoch; every checkpoint
// they take (a Checkpointer's) holds the (δ, τ) of its phase, the updates so far and the M-step's
// generator (FitCheckpoint::hyperparameters), so that resume_with_empirical_bayes continues the
// run from it. The rng is advanced as by fit() over the whole run; one draw from it first seeds
// the M-step's own stream. A run that fails or is stopped by a callback ends there, with the
// (δ, τ) of the phase it ended in; an M-step that fails (a block with ‖μ_b‖² + tr Σ_b = 0, a
// non-finite τ) ends it as `failed` with the q it was given. Deterministic: bitwise the same
// result for the same rng, whatever the threads.
// Throws std::invalid_argument (naming this function, the field and its value) for bad `eb`,
// blocks that do not cover θ once each, and a `prior` that is not isotropic; and as fit().
// Cost: that of fit() over all the epochs, plus per update one checkpoint (a copy of the method's
// state and the history), q.marginal_variances(), the τ M-step (optimal_noise_precision) and a
// copy of the model (its data shared, for nn::Supervised) when τ is learned.
template <class Model, class Options, class... Callbacks>
EmpiricalBayesFit<typename Options::posterior_type> fit_with_empirical_bayes(
    const Model& model, const Options& options, const EmpiricalBayesOptions& eb, Rng& rng,
    Callbacks&&... callbacks) {
  return detail::run_empirical_bayes(model, options, eb, rng, nullptr,
                                     "ngvi::vi::fit_with_empirical_bayes", false,
                                     std::forward<Callbacks>(callbacks)...);
}

// Continues a run of fit_with_empirical_bayes from one of its checkpoints, with the same model
// (its initial τ), options and eb: the result is bitwise that of the uninterrupted run. Throws
// std::invalid_argument naming this function for a checkpoint of a run without empirical Bayes,
// or whose empirical-Bayes state does not fit these blocks and eb (see empirical_bayes_from);
// and as vi::resume. Cost: as fit_with_empirical_bayes for the epochs left.
template <class Model, class Options, class... Callbacks>
EmpiricalBayesFit<typename Options::posterior_type> resume_with_empirical_bayes(
    const Model& model, const Options& options, const EmpiricalBayesOptions& eb,
    const FitCheckpoint& checkpoint, Callbacks&&... callbacks) {
  Rng rng;
  return detail::run_empirical_bayes(model, options, eb, rng, &checkpoint,
                                     "ngvi::vi::resume_with_empirical_bayes", false,
                                     std::forward<Callbacks>(callbacks)...);
}

// Throws what resume_with_empirical_bayes(model, options, eb, checkpoint) throws before it fits
// (bad options, a checkpoint without empirical Bayes's state or whose state does not fit these
// blocks, eb and options), and fits nothing: a caller can refuse a checkpoint before a run.
// Cost: O(B·U), and a copy of the model (its data shared) when τ is learned.
template <class Model, class Options>
void check_resume_with_empirical_bayes(const Model& model, const Options& options,
                                       const EmpiricalBayesOptions& eb,
                                       const FitCheckpoint& checkpoint) {
  Rng rng;
  detail::run_empirical_bayes(model, options, eb, rng, &checkpoint,
                              "ngvi::vi::resume_with_empirical_bayes", true);
}

}  // namespace ngvi::vi
