// Hyperparameters from the evidence's gradient against independent references: the gradient of the
// Laplace-GGN evidence in (log δ_b, log τ) against Boost.Math's central finite differences of the
// evidence, and the evidence itself against laplace() with per-parameter prior precisions (a
// network with a Gaussian and one with a Bernoulli likelihood); on Bayesian linear regression,
// where the Laplace evidence is exact, the (δ, τ) learned during training (Adam on the
// hyperparameters, and MacKay's updates) against the maximiser of the exact data-space evidence
// log N(y; 0, τ⁻¹I + Φ D⁻¹Φᵀ) found by alternating Brent searches, once with one block and once
// with two blocks of very different true scales; laplace() with per-parameter δ against that exact
// evidence; the ELBO's optimal δ_b against Brent maximisations of the prior term (through the
// posteriors' own KL for one block, through their covariance for two); a resumed run against the
// uninterrupted one, bitwise; bad options.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <autodiff/verify/finite_diff.hpp>
#include <inference/evidence_hyperparameters.hpp>
#include <inference/problems/bayesian_linear_regression.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>

#include <support/conjugate_linear.hpp>
#include <support/evidence_maximiser.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(evidence_hyperparameters_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::ad::verify::Tolerance;
using ngvi::test::brent_argmin;
using ngvi::test::check_error_mentions;
using ngvi::test::exact_log_evidence;
using ngvi::test::exact_maximiser;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
// The learned hyperparameters against the Brent maximiser: the bar of the task, 1e-6 relative.
constexpr Tolerance learned_vs_search{1e-6, 0.0};

MatrixXd draws(std::uint64_t seed, Eigen::Index rows, Eigen::Index cols) {
  vi::Rng rng(seed);
  return vi::standard_normal(rng, rows, cols);
}

void check_learned(const vi::EvidenceHyperparameters& learned,
                   const vi::EvidenceHyperparameters& reference, const std::string& what) {
  NGVI_CHECK_REPORT(compare(learned.prior_precisions, reference.prior_precisions, learned_vs_search,
                            what + ": δ_b vs the exact evidence's maximiser"));
  NGVI_CHECK_REPORT(compare(learned.noise_precision, reference.noise_precision, learned_vs_search,
                            what + ": τ vs the exact evidence's maximiser"));
}

// Full-batch training long enough for θ and the hyperparameters to settle to their joint fixed
// point. Both Adam step sizes decay so that the iterates converge rather than hover: with the
// default constant 0.1 the hyperparameters reach the maximiser to ~1e-9 within 300 epochs on the
// two-block problem, then wander by up to ~1e-2 relative in bursts once Adam's second moment has
// decayed towards its ε.
vi::EvidenceMapOptions online_options(vi::HyperparameterUpdate update,
                                      std::vector<nn::Block> blocks) {
  vi::EvidenceMapOptions o;
  o.loop.epochs = 1000;
  o.loop.minibatch = 0;
  o.learning_rate = {.initial = 0.05, .decay = 0.01};
  o.hyper_steps = 10;
  o.hyper_learning_rate = {.initial = 0.1, .decay = 0.03};
  o.update = update;
  o.blocks = std::move(blocks);
  return o;
}

nn::Supervised<nn::Sequential, nn::GaussianFixedNoise> tanh_regression(double tau) {
  const MatrixXd X = draws(3, 12, 2);
  const MatrixXd Y = (X.col(0).array().sin() + 0.3 * X.col(1).array()).matrix();
  return {nn::Sequential{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 1)}, nn::GaussianFixedNoise(tau),
          nn::Dataset{X, Y}};
}

// The evidence_gradient's log Z as a function of x = (log δ_1, …, log δ_B[, log τ]).
double log_z_at(const vi::EvidenceTerms& t, const VectorXd& x, bool with_tau) {
  const auto B = static_cast<Eigen::Index>(t.blocks.size());
  return vi::evidence_gradient(t, {x.head(B).array().exp(), with_tau ? std::exp(x(B)) : nan})
      .log_marginal_likelihood;
}

// The fit loop's callback that keeps the checkpoint of one iteration.
struct SaveCheckpointAt {
  Eigen::Index iteration;
  vi::FitCheckpoint* out;
  template <class Context>
  bool on_iteration(const Context& ctx) {
    if (ctx.iteration() == iteration) *out = ctx.checkpoint();
    return false;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(gradient_matches_finite_differences_and_laplace) {
  // A tanh network away from its MAP: the evidence formula, not a stationary point, is tested.
  const auto model = tanh_regression(2.0);
  const VectorXd theta = 0.7 * draws(11, model.num_params(), 1);
  const vi::EvidenceTerms t = vi::evidence_terms(model, theta);
  BOOST_TEST(t.blocks.size() == 4u);  // dense0.weight, dense0.bias, dense1.weight, dense1.bias
  VectorXd x(5);
  x << std::log(0.5), std::log(3.0), std::log(1.5), std::log(0.2), std::log(5.0);
  const vi::EvidenceGradient g =
      vi::evidence_gradient(t, {x.head(4).array().exp(), std::exp(x(4))});
  const VectorXd fd = ngvi::ad::verify::finite_diff_gradient(
      [&](const auto& v) { return log_z_at(t, v, true); }, x);
  NGVI_CHECK_REPORT(compare(g.gradient, fd, ngvi::ad::verify::tolerances::gradient_vs_fd,
                            "∂ log Z/∂(log δ_b, log τ) vs finite differences"));
  // log Z is laplace()'s evidence for a model of noise precision τ and the per-block prior.
  vi::LaplaceOptions lo;
  lo.prior_precisions = vi::per_parameter_precisions(t.blocks, x.head(4).array().exp());
  const auto la = vi::laplace(tanh_regression(std::exp(x(4))), theta, lo);
  NGVI_CHECK_REPORT(compare(g.log_marginal_likelihood, la.log_marginal_likelihood, tol::closed_form,
                            "log Z vs laplace() with per-parameter δ"));
  BOOST_TEST(std::isnan(la.prior_precision));
  // τ not given: the model's own τ₀ = 2, not differentiated.
  const vi::EvidenceGradient g0 = vi::evidence_gradient(t, {x.head(4).array().exp(), nan});
  BOOST_TEST(g0.gradient.size() == 4);
  VectorXd x0 = x;
  x0(4) = std::log(2.0);
  NGVI_CHECK_REPORT(compare(g0.log_marginal_likelihood, log_z_at(t, x0, true), tol::closed_form,
                            "τ = NaN is the model's τ₀"));

  // A Bernoulli likelihood (no τ): the δ_b gradient only, against finite differences and laplace().
  const MatrixXd X = draws(4, 12, 2);
  const MatrixXd Y = (X.col(0).array() > 0.0).cast<double>().matrix();
  const nn::Supervised classifier(nn::Sequential{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 1)},
                                  nn::BernoulliLogit(), nn::Dataset{X, Y});
  const vi::EvidenceTerms tc = vi::evidence_terms(classifier, theta);
  const VectorXd xc = x.head(4);
  const vi::EvidenceGradient gc = vi::evidence_gradient(tc, {xc.array().exp(), nan});
  const VectorXd fdc = ngvi::ad::verify::finite_diff_gradient(
      [&](const auto& v) { return log_z_at(tc, v, false); }, xc);
  NGVI_CHECK_REPORT(compare(gc.gradient, fdc, ngvi::ad::verify::tolerances::gradient_vs_fd,
                            "Bernoulli: ∂ log Z/∂ log δ_b vs finite differences"));
  const auto lc = vi::laplace(classifier, theta, lo);
  NGVI_CHECK_REPORT(compare(gc.log_marginal_likelihood, lc.log_marginal_likelihood,
                            tol::closed_form, "Bernoulli: log Z vs laplace()"));
}

BOOST_AUTO_TEST_CASE(per_parameter_laplace_is_exact_for_the_conjugate_model) {
  const ngvi::test::ConjugateLinear c = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 17);
  const auto model = c.model();
  const MatrixXd Phi = c.Phi();
  VectorXd d(4);
  d << 0.3, 2.0, 7.0, 0.05;
  MatrixXd lambda = c.tau * Phi.transpose() * Phi;
  lambda.diagonal() += d;
  const VectorXd mu = lambda.llt().solve(c.tau * Phi.transpose() * c.Y.col(0));
  vi::LaplaceOptions o;
  o.prior_precisions = d;
  const auto la = vi::laplace(model, mu, o);
  NGVI_CHECK_REPORT(compare(la.log_marginal_likelihood,
                            exact_log_evidence(Phi, c.Y.col(0), d, c.tau), tol::closed_form,
                            "per-parameter Laplace evidence vs the exact evidence"));
  NGVI_CHECK_REPORT(compare(la.posterior.precision(), lambda, tol::closed_form, "Λ = τΦᵀΦ + D"));
  NGVI_CHECK_REPORT(compare(la.gradient_norm, 0.0, tol::closed_form, "stationary at μ"));
  const auto dl = vi::diagonal_laplace(model, mu, o);
  NGVI_CHECK_REPORT(
      compare(dl.posterior.precision(), VectorXd(lambda.diagonal()), tol::closed_form, "diag Λ"));
}

BOOST_AUTO_TEST_CASE(learns_the_exact_evidence_maximiser_of_linear_regression) {
  const auto p = vi::problems::make_bayesian_linear_regression(
      {.examples = 40, .inputs = 3, .noise_precision = 4.0, .prior_precision = 1.0, .seed = 2});
  const std::vector<nn::Block> one = {nn::Block{"theta", 1, 4, 0}};
  const vi::EvidenceHyperparameters reference = exact_maximiser(p.design, p.targets, one);
  BOOST_TEST_MESSAGE("exact maximiser: δ = " << reference.prior_precisions(0)
                                             << ", τ = " << reference.noise_precision);
  for (const auto update : {vi::HyperparameterUpdate::adam, vi::HyperparameterUpdate::mackay}) {
    const std::string name =
        update == vi::HyperparameterUpdate::adam ? "Adam steps" : "MacKay updates";
    vi::Rng rng(7);
    const vi::EvidenceFit f = vi::fit_with_evidence(p.model, online_options(update, one), rng);
    BOOST_TEST(f.fit.ok(), f.fit.message);
    check_learned(f.hyperparameters, reference, name);
    // θ is the MAP of the learned (δ, τ), and the evidence there is the exact maximum.
    const ngvi::test::ConjugateLinear learned{.X = p.design.leftCols(3),
                                              .Y = p.targets,
                                              .tau = f.hyperparameters.noise_precision,
                                              .delta = f.hyperparameters.prior_precisions(0)};
    NGVI_CHECK_REPORT(compare(f.fit.posterior.mean(), learned.mean(), tol::iterative,
                              name + ": θ vs the MAP of the learned (δ, τ)"));
    NGVI_CHECK_REPORT(
        compare(f.log_marginal_likelihood,
                exact_log_evidence(p.design, p.targets,
                                   VectorXd::Constant(4, reference.prior_precisions(0)),
                                   reference.noise_precision),
                tol::iterative, name + ": log Z vs the exact maximum"));
  }
}

BOOST_AUTO_TEST_CASE(two_blocks_of_different_scales_get_their_own_precisions) {
  // y = Φθ + ε with θ = [3 weights of scale 3 | 3 weights and the bias of scale 0.2].
  const Eigen::Index n = 40, d = 6;
  const MatrixXd X = draws(21, n, d);
  VectorXd theta_true = draws(22, d + 1, 1);
  theta_true.head(3) *= 3.0;
  theta_true.tail(4) *= 0.2;
  const MatrixXd Phi = ngvi::test::design_of(X);
  const VectorXd y = Phi * theta_true + 0.5 * draws(23, n, 1);
  const ngvi::test::ConjugateLinear c{.X = X, .Y = y, .tau = 1.0, .delta = 1.0};
  const std::vector<nn::Block> blocks = {nn::Block{"large", 1, 3, 0}, nn::Block{"small", 1, 4, 3}};
  const vi::EvidenceHyperparameters reference = exact_maximiser(Phi, y, blocks);
  BOOST_TEST_MESSAGE("exact maximiser: δ = " << reference.prior_precisions.transpose()
                                             << ", τ = " << reference.noise_precision);
  vi::Rng rng(8);
  const vi::EvidenceFit f =
      vi::fit_with_evidence(c.model(), online_options(vi::HyperparameterUpdate::adam, blocks), rng);
  BOOST_TEST(f.fit.ok(), f.fit.message);
  check_learned(f.hyperparameters, reference, "two blocks");
  // The block of large weights gets the weaker prior, by more than an order of magnitude.
  BOOST_TEST(f.hyperparameters.prior_precisions(0) * 10.0 < f.hyperparameters.prior_precisions(1));
}

BOOST_AUTO_TEST_CASE(resume_continues_bitwise) {
  // Minibatches of 10 of 40 examples (4 steps an epoch), updates after epochs 2 and 4: a
  // checkpoint at iteration 10, between them, then resumed.
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 40, .seed = 3});
  vi::EvidenceMapOptions o;
  o.loop.epochs = 5;
  o.loop.minibatch = 10;
  o.frequency = 2;
  o.hyper_steps = 5;
  vi::FitCheckpoint checkpoint;
  vi::Rng rng(9);
  const vi::EvidenceFit whole =
      vi::fit_with_evidence(p.model, o, rng, SaveCheckpointAt{10, &checkpoint});
  BOOST_TEST_REQUIRE(checkpoint.iteration == 10);
  const vi::EvidenceFit resumed = vi::resume_with_evidence(p.model, o, checkpoint);
  BOOST_TEST((whole.fit.posterior.mean().array() == resumed.fit.posterior.mean().array()).all());
  BOOST_TEST((whole.hyperparameters.prior_precisions.array() ==
              resumed.hyperparameters.prior_precisions.array())
                 .all());
  BOOST_TEST(whole.hyperparameters.noise_precision == resumed.hyperparameters.noise_precision);
  BOOST_TEST(whole.log_marginal_likelihood == resumed.log_marginal_likelihood);
  // The updates moved the hyperparameters off their start (δ = 1, τ = 4).
  BOOST_TEST(whole.hyperparameters.noise_precision != 4.0);
}

BOOST_AUTO_TEST_CASE(optimal_prior_precisions_maximise_the_elbo_prior_term) {
  const VectorXd mean = draws(31, 5, 1);
  const MatrixXd A = draws(32, 5, 5);
  const MatrixXd precision = A * A.transpose() + MatrixXd::Identity(5, 5);
  const vi::FullGaussian full(mean, precision);
  const vi::DiagonalGaussian diagonal(mean, VectorXd(precision.diagonal()));
  const std::vector<nn::Block> one = {nn::Block{"theta", 1, 5, 0}};
  const std::vector<nn::Block> two = {nn::Block{"first", 1, 2, 0}, nn::Block{"rest", 1, 3, 2}};
  // One block: −KL(q‖N(0, δ⁻¹I)) = E_q[log p₀] + H[q], maximised over log δ.
  const auto check_one = [&](const auto& q, const std::string& name) {
    const double ref =
        std::exp(brent_argmin([&](double t) { return q.kl_to_prior(std::exp(t)); }, -10.0, 10.0));
    NGVI_CHECK_REPORT(compare(vi::optimal_prior_precisions(q, one)(0), ref, learned_vs_search,
                              name + ": δ vs the KL's minimiser"));
  };
  check_one(full, "full");
  check_one(diagonal, "diagonal");
  // Two blocks: the prior term Σ_b [(P_b/2) log δ_b − (δ_b/2) E_q‖θ_b‖²], E_q‖θ_b‖² from the
  // covariance matrix, maximised block by block over log δ_b.
  const auto check_two = [&](const auto& q, const MatrixXd& covariance, const std::string& name) {
    const VectorXd delta = vi::optimal_prior_precisions(q, two);
    for (std::size_t b = 0; b < two.size(); ++b) {
      const nn::Block& k = two[b];
      const double second = mean.segment(k.offset, k.size()).squaredNorm() +
                            covariance.block(k.offset, k.offset, k.size(), k.size()).trace();
      const double ref = std::exp(brent_argmin(
          [&](double t) {
            return -(0.5 * static_cast<double>(k.size()) * t - 0.5 * std::exp(t) * second);
          },
          -10.0, 10.0));
      NGVI_CHECK_REPORT(
          compare(delta(static_cast<Eigen::Index>(b)), ref, learned_vs_search,
                  name + ": δ of block " + k.name + " vs the prior term's maximiser"));
    }
  };
  check_two(full, precision.inverse(), "full");
  check_two(diagonal, MatrixXd(precision.diagonal().cwiseInverse().asDiagonal()), "diagonal");
}

BOOST_AUTO_TEST_CASE(bad_options_are_named) {
  const auto p = vi::problems::make_bayesian_linear_regression({.examples = 10});
  const auto run = [&](auto change) {
    return [&, change] {
      vi::EvidenceMapOptions o;
      o.loop.epochs = 1;
      o.loop.minibatch = 0;
      change(o);
      vi::Rng rng(1);
      (void)vi::fit_with_evidence(p.model, o, rng);
    };
  };
  check_error_mentions(run([](auto& o) { o.frequency = 0; }), "frequency must be >= 1, got 0");
  check_error_mentions(run([](auto& o) { o.burn_in = -2; }), "burn_in must be >= 0, got -2");
  check_error_mentions(run([](auto& o) { o.hyper_steps = 0; }), "hyper_steps must be >= 1, got 0");
  check_error_mentions(run([](auto& o) { o.hyper_learning_rate.initial = -0.5; }),
                       "hyper_learning_rate: the initial step must be positive and finite, got "
                       "-0.500000");
  check_error_mentions(run([](auto& o) { o.noise_precision = -1.0; }),
                       "noise_precision must be positive and finite, got -1.000000");
  check_error_mentions(run([](auto& o) { o.prior_precision = 0.0; }),
                       "prior_precision must be positive and finite, got 0.000000");
  check_error_mentions(run([](auto& o) {
                         o.blocks = {nn::Block{"a", 1, 2, 0}};
                       }),
                       "the parameter blocks cover 0..1 but θ has 4 entries");
  check_error_mentions(run([](auto& o) {
                         o.blocks = {nn::Block{"a", 1, 2, 0}, nn::Block{"b", 1, 2, 1}};
                       }),
                       "the block \"b\" starts at 1, expected 2");
  // A τ for a likelihood without one.
  const MatrixXd X = draws(4, 6, 2);
  const nn::Supervised classifier(nn::Sequential{nn::Dense(2, 1)}, nn::BernoulliLogit(),
                                  nn::Dataset{X, MatrixXd::Ones(6, 1)});
  check_error_mentions(
      [&] {
        vi::EvidenceMapOptions o;
        o.loop.minibatch = 0;
        o.noise_precision = 2.0;
        vi::Rng rng(1);
        (void)vi::fit_with_evidence(classifier, o, rng);
      },
      "noise_precision = 2.000000 needs a model with an nn::GaussianFixedNoise likelihood");
  // The evidence's and laplace()'s per-block and per-parameter precisions.
  const vi::EvidenceTerms t = vi::evidence_terms(p.model, VectorXd::Zero(4));
  check_error_mentions(
      [&] {
        (void)vi::evidence_gradient(t, {VectorXd::Ones(3), nan});
      },
      "prior_precisions has 3 entries for 2 blocks");
  check_error_mentions(
      [&] {
        (void)vi::evidence_gradient(t, {VectorXd::Constant(2, -1.0), nan});
      },
      "prior_precisions(0) of block \"dense0.weight\" must be positive and finite, got -1.000000");
  check_error_mentions(
      [&] {
        (void)vi::evidence_gradient(t, {VectorXd::Ones(2), 0.0});
      },
      "noise_precision must be positive and finite, got 0.000000");
  vi::LaplaceOptions lo;
  lo.prior_precisions = VectorXd::Ones(3);
  check_error_mentions([&] { (void)vi::laplace(p.model, VectorXd::Zero(4), lo); },
                       "prior_precisions has 3 entries, the model has 4 parameters");
  lo.prior_precisions = VectorXd::Ones(4);
  lo.prior_precisions(2) = nan;
  check_error_mentions([&] { (void)vi::diagonal_laplace(p.model, VectorXd::Zero(4), lo); },
                       "prior_precisions(2) must be positive and finite, got nan");
}

BOOST_AUTO_TEST_SUITE_END()
