// Variational EM over the prior precisions and the noise precision during a VI fit, against
// independent references: on Bayesian linear regression, the (δ_b, τ) that VON learns (full
// covariance, the exact posterior family) against the maximiser of the exact data-space evidence
// found by Brent searches (type-II maximum likelihood) — to 1e-6 with a noise-free VON, within the
// Monte-Carlo spread with a sampling one; the τ M-step against its closed form and its Monte-Carlo
// estimate; on a small tanh network fitted by VOGN, the reported δ_b against the M-step of the
// posterior at the last update, and the last phase's prior and τ against the KL and training loss
// recomputed here; a run without updates against the plain fit, bitwise; 1 and 2 threads, bitwise;
// runs resumed from their checkpoints against the uninterrupted run, bitwise; bad options and
// checkpoints that do not fit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/empirical_bayes.hpp>
#include <inference/problems/bayesian_linear_regression.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>

#include <support/check_bitwise.hpp>
#include <support/evidence_maximiser.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(empirical_bayes_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::ad::verify::Tolerance;
using ngvi::test::check_error_mentions;

namespace {

using TanhModel = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;

// A 2-3-1 tanh network on 12 examples: four blocks (dense0/1 .weight/.bias).
TanhModel tanh_regression(double tau) {
  vi::Rng rng(3);
  const MatrixXd X = vi::standard_normal(rng, 12, 2);
  const MatrixXd Y = (X.col(0).array().sin() + 0.3 * X.col(1).array()).matrix();
  return {nn::Sequential{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 1)}, nn::GaussianFixedNoise(tau),
          nn::Dataset{X, Y}};
}

// VON at the mean (no sampling) with unit steps: on a quadratic loss each step is Newton's, so q
// is the exact posterior at the current (δ, τ) after every epoch (full batch) and the run is exact
// variational EM.
vi::VonOptions exact_von(Eigen::Index epochs) {
  vi::VonOptions o;
  o.loop.epochs = epochs;
  o.loop.minibatch = 0;
  o.loop.elbo_samples = 0;
  o.mc_samples = 0;
  o.mean_rate = {1.0};
  o.precision_rate = {1.0};
  return o;
}

// The fit loop's callback that keeps the posterior at the end of every phase.
struct KeepPhaseEnds {
  std::vector<vi::DiagonalGaussian>* out;
  template <class Context, class Result>
  void on_end(const Context&, const Result& r) {
    out->push_back(r.posterior);
  }
};

vi::VognOptions small_vogn(int threads) {
  vi::VognOptions o;
  o.loop.epochs = 30;
  o.loop.minibatch = 4;
  o.loop.threads = threads;
  o.loop.grain = 2;
  o.mean_rate = {0.05};
  return o;
}

vi::EmpiricalBayesOptions every_five_after_ten() {
  vi::EmpiricalBayesOptions eb;
  eb.frequency = 5;
  eb.burn_in = 10;
  eb.noise_samples = 4;
  return eb;
}

}  // namespace

// Exact variational EM on the conjugate problem: its fixed point is the evidence maximiser.
// Reference: the exact evidence log N(y; 0, τ⁻¹I + ΦD⁻¹Φᵀ) maximised over (log δ_w, log δ_b,
// log τ) by Brent coordinate ascent (support/evidence_maximiser.hpp). Tolerance 1e-6 relative:
// both are iterations stopped near their limit (tol::iterative); EM contracts linearly, 300
// updates take it far below that.
BOOST_AUTO_TEST_CASE(exact_von_reaches_type_ii_maximum_likelihood) {
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 40, .seed = 2});
  const std::vector<nn::Block> blocks = vi::prior_blocks(p.model);
  BOOST_TEST_REQUIRE(blocks.size() == 2u);  // dense0.weight (3), dense0.bias (1)
  vi::EmpiricalBayesOptions eb;
  eb.noise_samples = 0;  // exact for the linear model
  vi::Rng rng(1);
  const auto r = vi::fit_with_empirical_bayes(p.model, exact_von(300), eb, rng);
  BOOST_TEST_REQUIRE(r.fit.ok(), r.fit.message);
  BOOST_TEST(r.updates.size() == 299u);
  const vi::EvidenceHyperparameters reference =
      ngvi::test::exact_maximiser(p.design, p.targets, blocks);
  BOOST_TEST_MESSAGE("learned δ = " << r.hyperparameters.prior_precisions.transpose()
                                    << ", τ = " << r.hyperparameters.noise_precision
                                    << "; maximiser δ = " << reference.prior_precisions.transpose()
                                    << ", τ = " << reference.noise_precision);
  NGVI_CHECK_REPORT(compare(r.hyperparameters.prior_precisions, reference.prior_precisions,
                            tol::iterative, "δ_b vs the exact evidence's maximiser"));
  NGVI_CHECK_REPORT(compare(r.hyperparameters.noise_precision, reference.noise_precision,
                            tol::iterative, "τ vs the exact evidence's maximiser"));
}

// Zhang et al. 2018's protocol: δ kept, a Gamma(6, 6) prior on τ with q(τ) = Gam(a₀ + N/2, b₀ +
// ½E_q[r²]) and the weights trained at its mean. Reference: the fixed point of τ ← (a₀ + N/2) /
// (b₀ + ½(‖y − Φμ‖² + tr(ΦᵀΦΣ))) with (μ, Σ) the exact posterior at (δ = 1, τ), iterated here in
// closed form; exact VI EM reaches it (tol::iterative), and δ stays at 1 in both blocks.
BOOST_AUTO_TEST_CASE(gamma_prior_on_the_noise_precision_with_delta_kept) {
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 40, .seed = 2});
  vi::EmpiricalBayesOptions eb;
  eb.noise_samples = 0;
  eb.learn_prior_precisions = false;
  eb.noise_prior_shape = 6.0;
  eb.noise_prior_rate = 6.0;
  vi::Rng rng(1);
  const auto r = vi::fit_with_empirical_bayes(p.model, exact_von(300), eb, rng);
  BOOST_TEST_REQUIRE(r.fit.ok(), r.fit.message);
  const MatrixXd& Phi = p.design;
  const double half_n = 0.5 * static_cast<double>(Phi.rows());
  double tau = p.model.likelihood().precision();
  for (int k = 0; k < 1000; ++k) {
    MatrixXd lambda = tau * Phi.transpose() * Phi;
    lambda.diagonal().array() += 1.0;
    const MatrixXd Sigma = lambda.inverse();
    const VectorXd mu = tau * Sigma * Phi.transpose() * p.targets;
    const double r2 =
        (p.targets - Phi * mu).squaredNorm() + (Phi.transpose() * Phi * Sigma).trace();
    tau = (6.0 + half_n) / (6.0 + 0.5 * r2);
  }
  BOOST_TEST_MESSAGE("learned τ̄ = " << r.hyperparameters.noise_precision << ", fixed point "
                                    << tau);
  NGVI_CHECK_REPORT(compare(r.hyperparameters.noise_precision, tau, tol::iterative,
                            "τ̄ vs the Gamma-prior fixed point"));
  BOOST_TEST(r.hyperparameters.prior_precisions == VectorXd::Ones(2),
             boost::test_tools::per_element());
}

// VON with its default sampling (one draw per step, steps 0.1) and τ's M-step by 16 draws: the
// learned (δ_b, τ), averaged over the last 200 of 400 updates, against the same maximiser. Over
// seeds 0–11 that average deviates from the maximiser with standard deviations 0.53% (δ_w), 0.39%
// (δ_b) and 0.16% (τ, with a mean offset of −0.49%: the sampled steps' jitter of μ adds to
// E_q[r²]), at most 0.93%; the tolerance, 3% relative, is over 5 of the widest of those standard
// deviations.
BOOST_AUTO_TEST_CASE(sampling_von_lands_within_its_monte_carlo_spread) {
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 40, .seed = 2});
  vi::VonOptions o;
  o.loop.epochs = 401;
  o.loop.minibatch = 0;
  o.loop.elbo_samples = 0;
  vi::Rng rng(4);
  const auto r = vi::fit_with_empirical_bayes(p.model, o, {}, rng);
  BOOST_TEST_REQUIRE(r.fit.ok(), r.fit.message);
  BOOST_TEST_REQUIRE(r.updates.size() == 400u);
  VectorXd delta = VectorXd::Zero(2);
  double tau = 0.0;
  for (std::size_t k = 200; k < 400; ++k) {
    delta += r.updates[k].hyperparameters.prior_precisions / 200.0;
    tau += r.updates[k].hyperparameters.noise_precision / 200.0;
  }
  const vi::EvidenceHyperparameters reference =
      ngvi::test::exact_maximiser(p.design, p.targets, vi::prior_blocks(p.model));
  BOOST_TEST_MESSAGE("averaged δ = " << delta.transpose() << ", τ = " << tau);
  constexpr Tolerance spread{0.03, 0.0};
  NGVI_CHECK_REPORT(compare(delta, reference.prior_precisions, spread, "averaged δ_b"));
  NGVI_CHECK_REPORT(compare(tau, reference.noise_precision, spread, "averaged τ"));
}

// The M-step chain written out: the exact posterior at (δ, τ), Λ = τΦᵀΦ + δI, μ = Λ⁻¹τΦᵀy
// (formed here), then the library's two M-steps, iterated from (1, 4): converges to the evidence
// maximiser (one block here) to 1e-6 (tol::iterative).
BOOST_AUTO_TEST_CASE(m_step_chain_converges_to_the_maximiser) {
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 40, .seed = 2});
  const std::vector<nn::Block> one{{"theta", 1, 4, 0}};
  const MatrixXd& Phi = p.design;
  double delta = 1.0, tau = 4.0;
  vi::Rng rng(0);  // unused: the τ M-step is exact here (S = 0, a linear model)
  for (int k = 0; k < 1000; ++k) {
    MatrixXd lambda = tau * Phi.transpose() * Phi;
    lambda.diagonal().array() += delta;
    const VectorXd mu = lambda.llt().solve(tau * Phi.transpose() * p.targets);
    const vi::FullGaussian q(mu, lambda);
    delta = vi::optimal_prior_precisions(q, one)(0);
    tau = vi::optimal_noise_precision(p.model, q, 0, rng);
  }
  const vi::EvidenceHyperparameters reference = ngvi::test::exact_maximiser(Phi, p.targets, one);
  NGVI_CHECK_REPORT(compare(delta, reference.prior_precisions(0), tol::iterative, "δ"));
  NGVI_CHECK_REPORT(compare(tau, reference.noise_precision, tol::iterative, "τ"));
}

// τ's M-step at a Gaussian q: with S = 0 against N / (‖y − Φμ‖² + tr(ΦᵀΦΣ)) written here; with
// S = 4000 draws within 5 standard errors of E_q[r²] (the standard error estimated from the same
// draws, recomputed here).
BOOST_AUTO_TEST_CASE(noise_precision_m_step_against_its_closed_form) {
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 40, .seed = 2});
  const vi::FullGaussian q = p.posterior();
  const MatrixXd& Phi = p.design;
  const double expected = (p.targets - Phi * p.posterior_mean).squaredNorm() +
                          (Phi.transpose() * Phi * p.posterior_covariance).trace();
  vi::Rng rng(5);
  NGVI_CHECK_REPORT(compare(vi::optimal_noise_precision(p.model, q, 0, rng), 40.0 / expected,
                            tol::closed_form, "τ at the mean plus the GLM term"));
  constexpr int S = 4000;
  vi::Rng draws(6), same(6);
  const double tau_mc = vi::optimal_noise_precision(p.model, q, S, draws);
  VectorXd r2(S);
  for (int s = 0; s < S; ++s) r2(s) = (p.targets - Phi * q.sample(same)).squaredNorm();
  const double se = std::sqrt((r2.array() - r2.mean()).square().sum() / (S - 1) / S);
  BOOST_TEST(40.0 / tau_mc == r2.mean(), boost::test_tools::tolerance(1e-10));
  BOOST_TEST(std::abs(r2.mean() - expected) < tol::mc_sigmas * se,
             "E_q[r²] by draws " << r2.mean() << " vs " << expected << " (se " << se << ")");
}

// The model rebuilt with a learned τ reads the same rows in place (no copy of the data), and its
// losses are those of a model built here from its own copy of the data with that τ, bit for bit.
BOOST_AUTO_TEST_CASE(the_model_with_a_new_tau_shares_the_data) {
  const TanhModel model = tanh_regression(1.0);
  const TanhModel at_tau = vi::detail::with_noise_precision(model, 7.5);
  BOOST_TEST(at_tau.data().X.data() == model.data().X.data());
  BOOST_TEST(at_tau.likelihood().precision() == 7.5);
  const TanhModel own(model.net(), nn::GaussianFixedNoise(7.5), model.data());
  vi::Rng rng(8);
  const VectorXd theta = vi::standard_normal(rng, model.num_params());
  BOOST_TEST(at_tau.total_loss(theta) == own.total_loss(theta));
  BOOST_TEST(at_tau.total_loss(theta) != model.total_loss(theta));
}

// On a 4-block network by VOGN: the reported δ_b are the M-step of the posterior at the last
// update (a CHECK: true by construction, each update's δ is optimal_prior_precisions of the q it
// was given), and equal P_b / (‖μ_b‖² + Σ_{j∈b} 1/λ_j) recomputed here from that q. The last
// phase ran with that prior and the learned τ: the last history row's KL equals KL(q ‖ N(0,
// diag δ)) in the diagonal closed form written here, and its training loss is Σᵢℓᵢ(μ) of a model
// built here with the learned τ.
BOOST_AUTO_TEST_CASE(vogn_learns_a_precision_per_block_and_trains_with_it) {
  const TanhModel model = tanh_regression(1.0);
  std::vector<vi::DiagonalGaussian> phase_ends;
  vi::Rng rng(7);
  const auto r = vi::fit_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), rng,
                                              KeepPhaseEnds{&phase_ends});
  BOOST_TEST_REQUIRE(r.fit.ok(), r.fit.message);
  BOOST_TEST_REQUIRE(r.blocks.size() == 4u);
  BOOST_TEST_REQUIRE(r.updates.size() == 3u);  // after epochs 15, 20, 25; not after the last, 30
  BOOST_TEST(r.updates[0].epoch == 15);
  BOOST_TEST(r.updates[2].epoch == 25);
  BOOST_TEST_REQUIRE(phase_ends.size() == 4u);
  const vi::DiagonalGaussian& at_last_update = phase_ends[2];
  const VectorXd& delta = r.hyperparameters.prior_precisions;
  BOOST_TEST_MESSAGE("VOGN: δ_b = " << delta.transpose()
                                    << ", τ = " << r.hyperparameters.noise_precision);
  // CHECK (holds by construction).
  NGVI_CHECK_BITWISE(delta, vi::optimal_prior_precisions(at_last_update, r.blocks),
                     "δ_b vs the M-step of the posterior at the last update");
  VectorXd recomputed(4);
  for (Eigen::Index b = 0; b < 4; ++b) {
    const nn::Block& k = r.blocks[static_cast<std::size_t>(b)];
    recomputed(b) = static_cast<double>(k.size()) /
                    (at_last_update.mean().segment(k.offset, k.size()).squaredNorm() +
                     at_last_update.precision().segment(k.offset, k.size()).cwiseInverse().sum());
  }
  NGVI_CHECK_REPORT(compare(delta, recomputed, tol::closed_form, "δ_b vs P_b/(‖μ_b‖² + tr Σ_b)"));
  BOOST_TEST(delta.maxCoeff() / delta.minCoeff() > 1.5, "the blocks learned different δ_b");

  const vi::DiagonalGaussian& q = r.fit.posterior;
  VectorXd d(q.dim());
  for (Eigen::Index b = 0; b < 4; ++b) {
    const nn::Block& k = r.blocks[static_cast<std::size_t>(b)];
    d.segment(k.offset, k.size()).setConstant(delta(b));
  }
  const auto ratio = (d.array() / q.precision().array());
  const double kl = 0.5 * (ratio + d.array() * q.mean().array().square() - 1.0 - ratio.log()).sum();
  NGVI_CHECK_REPORT(
      compare(r.fit.history.back().kl, kl, tol::closed_form, "last row's KL to N(0, diag δ)"));
  const double tau = r.hyperparameters.noise_precision;
  BOOST_TEST(tau != 1.0);
  const TanhModel at_tau(model.net(), nn::GaussianFixedNoise(tau), model.data());
  NGVI_CHECK_REPORT(compare(r.fit.history.back().train_nll, vi::total_nll(at_tau, q.mean()),
                            tol::closed_form, "last row's training loss at the learned τ"));
}

// One run, not restarts: a history row per epoch, the steps of all 30 epochs counted once, the
// rows up to the first update (epoch 15) bitwise those of the plain 15-epoch fit (a run restarted
// at each update would end with rows of the last prior and τ from its start); and with no update
// due (burn-in past the end) the plain fit, bitwise. The plain fits draw from the rng after the one
// draw that seeds the M-step's stream.
BOOST_AUTO_TEST_CASE(the_updates_continue_one_run) {
  const TanhModel model = tanh_regression(1.0);
  vi::Rng rng(7);
  const auto r = vi::fit_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), rng);
  BOOST_TEST_REQUIRE(r.fit.ok(), r.fit.message);
  BOOST_TEST_REQUIRE(r.fit.history.size() == 30u);
  for (std::size_t k = 0; k < 30; ++k)
    BOOST_TEST(r.fit.history[k].iteration == static_cast<Eigen::Index>(3 * (k + 1)));
  BOOST_TEST(r.fit.counters.steps == 90);
  vi::VognOptions first = small_vogn(1);
  first.loop.epochs = 15;
  vi::Rng c(7);
  c();
  const auto plain15 = vi::fit(model, first, c);
  BOOST_TEST_REQUIRE(plain15.history.size() == 15u);
  for (std::size_t k = 0; k < 15; ++k) {
    NGVI_CHECK_BITWISE(r.fit.history[k].elbo, plain15.history[k].elbo,
                       "ELBO of row " + std::to_string(k));
    NGVI_CHECK_BITWISE(r.fit.history[k].train_nll, plain15.history[k].train_nll,
                       "training loss of row " + std::to_string(k));
  }

  vi::EmpiricalBayesOptions none = every_five_after_ten();
  none.burn_in = 30;
  vi::Rng a(8), b(8);
  const auto no_update = vi::fit_with_empirical_bayes(model, small_vogn(1), none, a);
  b();
  const auto plain = vi::fit(model, small_vogn(1), b);
  BOOST_TEST(no_update.updates.empty());
  NGVI_CHECK_BITWISE(no_update.fit.posterior.mean(), plain.posterior.mean(), "mean");
  NGVI_CHECK_BITWISE(no_update.fit.posterior.precision(), plain.posterior.precision(), "precision");
  BOOST_TEST(a() == b(), "the rng after the run");
}

// Same seed, 1 and 2 threads: the same bits (minibatches, sampled steps, sampled τ M-steps).
BOOST_AUTO_TEST_CASE(one_and_two_threads_give_the_same_bits) {
  const TanhModel model = tanh_regression(1.0);
  vi::Rng r1(9), r2(9);
  const auto one = vi::fit_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), r1);
  const auto two = vi::fit_with_empirical_bayes(model, small_vogn(2), every_five_after_ten(), r2);
  BOOST_TEST_REQUIRE(one.fit.ok(), one.fit.message);
  NGVI_CHECK_BITWISE(one.fit.posterior.mean(), two.fit.posterior.mean(), "mean");
  NGVI_CHECK_BITWISE(one.fit.posterior.precision(), two.fit.posterior.precision(), "precision");
  NGVI_CHECK_BITWISE(one.hyperparameters.prior_precisions, two.hyperparameters.prior_precisions,
                     "δ_b");
  NGVI_CHECK_BITWISE(one.hyperparameters.noise_precision, two.hyperparameters.noise_precision, "τ");
  NGVI_CHECK_BITWISE(one.fit.history.back().elbo, two.fit.history.back().elbo, "last ELBO");
}

// Keeps the loop's checkpoint at the given iterations.
struct KeepCheckpointsAt {
  std::vector<Eigen::Index> at;
  std::vector<vi::FitCheckpoint>* out;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    for (const Eigen::Index k : at)
      if (ctx.iteration() == k) out->push_back(ctx.checkpoint());
    return false;
  }
};

// A run resumed from its checkpoints (written as text and read back) ends with the bits of the
// uninterrupted run: q, the last (δ, τ), every update and the history. The checkpoints are taken
// before any update (iteration 40, epoch 14), in the phase after the first (50), at the end of
// epoch 20 just before the second M-step (60) and after the third (80). Reference: the same run
// without interruption.
BOOST_AUTO_TEST_CASE(resumed_runs_end_bitwise_as_the_uninterrupted_run) {
  const TanhModel model = tanh_regression(1.0);
  std::vector<vi::FitCheckpoint> taken;
  vi::Rng rng(11);
  const auto whole = vi::fit_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), rng,
                                                  KeepCheckpointsAt{{40, 50, 60, 80}, &taken});
  BOOST_TEST_REQUIRE(whole.fit.ok(), whole.fit.message);
  BOOST_TEST_REQUIRE(whole.updates.size() == 3u);
  BOOST_TEST_REQUIRE(taken.size() == 4u);
  const std::vector<std::size_t> updates_in = {0, 1, 1, 3};
  for (std::size_t c = 0; c < taken.size(); ++c) {
    const std::string at = "resumed at iteration " + std::to_string(taken[c].iteration);
    BOOST_TEST_REQUIRE(!taken[c].hyperparameters.empty(), at);
    const vi::FitCheckpoint read = vi::FitCheckpoint::decode(taken[c].encode());
    BOOST_TEST(vi::state_array(read.hyperparameters, "update_epochs",
                               static_cast<Eigen::Index>(updates_in[c]), 1)
                       .size() == static_cast<Eigen::Index>(updates_in[c]),
               at);
    const auto resumed =
        vi::resume_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), read);
    BOOST_TEST_REQUIRE(resumed.fit.ok(), resumed.fit.message);
    NGVI_CHECK_BITWISE(resumed.fit.posterior.mean(), whole.fit.posterior.mean(), at + ": mean");
    NGVI_CHECK_BITWISE(resumed.fit.posterior.precision(), whole.fit.posterior.precision(),
                       at + ": precision");
    NGVI_CHECK_BITWISE(resumed.hyperparameters.prior_precisions,
                       whole.hyperparameters.prior_precisions, at + ": δ_b");
    NGVI_CHECK_BITWISE(resumed.hyperparameters.noise_precision,
                       whole.hyperparameters.noise_precision, at + ": τ");
    BOOST_TEST_REQUIRE(resumed.updates.size() == whole.updates.size(), at);
    for (std::size_t u = 0; u < whole.updates.size(); ++u) {
      BOOST_TEST(resumed.updates[u].epoch == whole.updates[u].epoch, at);
      NGVI_CHECK_BITWISE(resumed.updates[u].hyperparameters.prior_precisions,
                         whole.updates[u].hyperparameters.prior_precisions,
                         at + ": δ_b of update " + std::to_string(u));
      NGVI_CHECK_BITWISE(resumed.updates[u].hyperparameters.noise_precision,
                         whole.updates[u].hyperparameters.noise_precision,
                         at + ": τ of update " + std::to_string(u));
    }
    BOOST_TEST_REQUIRE(resumed.fit.history.size() == whole.fit.history.size(), at);
    NGVI_CHECK_BITWISE(resumed.fit.history.back().elbo, whole.fit.history.back().elbo,
                       at + ": last ELBO");
    NGVI_CHECK_BITWISE(resumed.fit.history.back().train_nll, whole.fit.history.back().train_nll,
                       at + ": last training loss");
  }
  // The run's own stream matters: another seed ends elsewhere, so the comparison can fail.
  vi::Rng other(12);
  const auto moved =
      vi::fit_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), other);
  BOOST_TEST(moved.fit.posterior.mean() != whole.fit.posterior.mean());
}

// A checkpoint without empirical Bayes's state, or with one that does not fit the run, is
// refused by name.
BOOST_AUTO_TEST_CASE(resume_refuses_checkpoints_that_do_not_fit) {
  const TanhModel model = tanh_regression(1.0);
  vi::Rng rng(11);
  vi::FitCheckpoint plain_end;
  vi::fit(model, small_vogn(1), rng, vi::detail::KeepCheckpoint{&plain_end});
  check_error_mentions(
      [&] {
        vi::resume_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), plain_end);
      },
      "without empirical Bayes");

  std::vector<vi::FitCheckpoint> taken;
  vi::Rng again(11);
  vi::fit_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), again,
                               KeepCheckpointsAt{{50}, &taken});
  BOOST_TEST_REQUIRE(taken.size() == 1u);
  vi::EmpiricalBayesOptions keep_tau = every_five_after_ten();
  keep_tau.learn_noise_precision = false;
  check_error_mentions(
      [&] { vi::resume_with_empirical_bayes(model, small_vogn(1), keep_tau, taken[0]); },
      "this run does not learn it");
  vi::FitCheckpoint damaged = taken[0];
  for (auto& [name, m] : damaged.hyperparameters)
    if (name == "prior_precisions") m(1, 0) = -2.0;
  check_error_mentions(
      [&] {
        vi::resume_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), damaged);
      },
      "'prior_precisions' holds -2");
  vi::EmpiricalBayesOptions two_blocks = every_five_after_ten();
  two_blocks.blocks = {nn::Block{"first", 9, 1, 0},
                       nn::Block{"rest", model.num_params() - 9, 1, 9}};
  check_error_mentions(
      [&] { vi::resume_with_empirical_bayes(model, small_vogn(1), two_blocks, taken[0]); },
      "prior_precisions' is 4×1, expected 2×1");
  // Another schedule: updates every 4 epochs after 8 would have updated after epoch 12, not 15.
  vi::EmpiricalBayesOptions other_schedule = every_five_after_ten();
  other_schedule.frequency = 4;
  other_schedule.burn_in = 8;
  check_error_mentions(
      [&] { vi::resume_with_empirical_bayes(model, small_vogn(1), other_schedule, taken[0]); },
      "update 1 came after epoch 15, which is not when this run updates");
  // The state of before the first update in a checkpoint of iteration 50, past that update.
  vi::FitCheckpoint behind = taken[0];
  for (auto& [name, m] : behind.hyperparameters)
    if (name.starts_with("update_"))
      m = name == "update_prior_precisions" ? MatrixXd(4, 0) : MatrixXd(0, 1);
  check_error_mentions(
      [&] {
        vi::resume_with_empirical_bayes(model, small_vogn(1), every_five_after_ten(), behind);
      },
      "the checkpoint is at iteration 50, past the update after epoch 15, which it has not made");
}

BOOST_AUTO_TEST_CASE(bad_input_is_named) {
  const TanhModel model = tanh_regression(1.0);
  const auto run = [&](vi::VognOptions o, vi::EmpiricalBayesOptions eb) {
    vi::Rng rng(0);
    vi::fit_with_empirical_bayes(model, o, eb, rng);
  };
  vi::EmpiricalBayesOptions eb;
  eb.frequency = 0;
  check_error_mentions([&] { run(small_vogn(1), eb); }, "fit_with_empirical_bayes");
  check_error_mentions([&] { run(small_vogn(1), eb); }, "frequency");
  eb = {};
  eb.noise_samples = -1;
  check_error_mentions([&] { run(small_vogn(1), eb); }, "noise_samples");
  check_error_mentions([&] { run(small_vogn(1), eb); }, "-1");
  eb = {};
  eb.blocks = {{"first", 1, 5, 0}};
  check_error_mentions([&] { run(small_vogn(1), eb); }, "cover");
  vi::VognOptions o = small_vogn(1);
  o.prior = vi::GaussianPrior(
      vi::DiagonalGaussian(VectorXd::Zero(model.num_params()), VectorXd::Ones(model.num_params())));
  check_error_mentions([&] { run(o, {}); }, "isotropic");
  o = small_vogn(1);
  o.prior_precision = -2.0;
  check_error_mentions([&] { run(o, {}); }, "prior_precision");

  const nn::Supervised<nn::Sequential, nn::BernoulliLogit> classifier(
      nn::Sequential{nn::Dense(2, 1)}, nn::BernoulliLogit{},
      nn::Dataset{MatrixXd::Zero(3, 2), MatrixXd::Ones(3, 1)});
  vi::Rng rng(0);
  const vi::DiagonalGaussian q(VectorXd::Zero(3), VectorXd::Ones(3));
  check_error_mentions([&] { vi::optimal_noise_precision(classifier, q, 4, rng); },
                       "optimal_noise_precision");
  check_error_mentions([&] { vi::optimal_noise_precision(model, q, 4, rng); }, "parameters");
}

BOOST_AUTO_TEST_SUITE_END()
