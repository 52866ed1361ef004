// VOGN (inference/vogn.hpp) against exact references on Bayesian linear regression:
// * full VOGN with the GGN: one β = α = 1 step at the mean reaches the closed-form posterior;
// * diagonal VOGN with the GGN reaches the mean-field optimum (precisions in one step, means by the
//   Jacobi iteration the update becomes, in a number of steps computed from its contraction);
// * with MC samples and α_t = β_t = 1/t the means converge within exactly derived standard errors
//   (test/support/linear_gaussian_iterates.hpp);
// * the empirical Fisher is the mean of the squared per-example gradients τ(φᵢᵀθ − yᵢ)φᵢ computed
//   in closed form; the MC true Fisher averages to the GGN within its derived standard error;
// plus: a step size that overflows stops with the last good posterior, and a curvature that needs
// a likelihood is refused for a model without one. Threads, resume and bad options:
// method_contract_test.cpp.
#include <cmath>
#include <string>

#include <Eigen/Eigenvalues>
#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/problems.hpp>
#include <inference/vogn.hpp>
#include <nn/activations.hpp>
#include <nn/model_concept.hpp>

#include <support/linear_gaussian_iterates.hpp>
#include <support/method_checks.hpp>
#include <support/method_fixtures.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(vogn_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::InitialMean;

namespace {

// Full batch, α = β = 1, at the mean: the options of the one-step tests.
template <vi::Covariance C>
vi::VognOptionsFor<C> one_step(double delta, vi::VognCurvature curvature, Eigen::Index epochs = 1) {
  return {.loop = {.epochs = epochs, .minibatch = 0, .elbo_samples = 0},
          .prior_precision = delta,
          .mean_rate = {1.0},
          .precision_rate = {1.0},
          .mc_samples = 0,
          .curvature = curvature};
}

}  // namespace

BOOST_AUTO_TEST_CASE(full_vogn_with_the_ggn_reaches_the_posterior_in_one_step) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  vi::Rng rng(1);
  const auto r = vi::fit(
      p.model, one_step<vi::Covariance::full>(p.prior_precision, vi::VognCurvature::ggn), rng);
  BOOST_TEST(r.ok());
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), p.posterior_mean, tol::exact_update, "full VOGN (GGN) mean"));
  NGVI_CHECK_REPORT(compare(r.posterior.covariance(), p.posterior_covariance, tol::exact_update,
                            "full VOGN (GGN) covariance"));
  // KL weight λ: the optimum of the λ-weighted ELBO is the posterior for noise precision τ/λ.
  const double lambda = 0.25;
  vi::FullVognOptions o = one_step<vi::Covariance::full>(p.prior_precision, vi::VognCurvature::ggn);
  o.kl_weight = lambda;
  vi::Rng rng2(1);
  const auto t = vi::fit(p.model, o, rng2);
  ngvi::test::check_kl_weighted_linear_posterior(t.posterior, p, lambda, "full VOGN");
}

BOOST_AUTO_TEST_CASE(diagonal_vogn_with_the_ggn_reaches_the_mean_field_optimum) {
  // s is exact after one step; then μ ← μ − D⁻¹(Λμ − τΦᵀy), D = diag Λ (the Jacobi iteration),
  // whose error contracts by its spectral radius ρ per step.
  const auto p = vi::problems::make_bayesian_linear_regression();
  const MatrixXd& lambda = p.posterior_precision;
  const VectorXd d = lambda.diagonal();
  const MatrixXd jacobi =
      MatrixXd::Identity(d.size(), d.size()) - d.cwiseInverse().asDiagonal() * lambda;
  const double rho = jacobi.eigenvalues().cwiseAbs().maxCoeff();
  BOOST_TEST_REQUIRE(rho < 0.5);
  const auto steps = static_cast<Eigen::Index>(std::ceil(std::log(1e-14) / std::log(rho)));
  BOOST_TEST_MESSAGE("Jacobi contraction " << rho << ", " << steps << " steps");
  vi::Rng rng(2);
  const auto r = vi::fit(
      p.model, one_step<vi::Covariance::diagonal>(p.prior_precision, vi::VognCurvature::ggn, steps),
      rng);
  const vi::DiagonalGaussian opt = p.mean_field_optimum();
  NGVI_CHECK_REPORT(compare(r.posterior.precision(), opt.precision(), tol::exact_update,
                            "diagonal VOGN precision"));
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), opt.mean(), tol::exact_update, "diagonal VOGN mean"));
}

BOOST_AUTO_TEST_CASE(monte_carlo_means_converge_within_their_standard_errors) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double delta = p.prior_precision;
  const vi::Schedule harmonic{.initial = 1.0, .decay = 1.0, .power = 1.0};
  const Eigen::Index steps = 200, n = p.design.rows(), dim = p.design.cols();
  const int samples = 3;
  const MatrixXd a = p.noise_precision * p.design.transpose() * p.design;
  const MatrixXd sigma0 =
      MatrixXd::Identity(dim, dim) / (static_cast<double>(n) * (1.0 + delta / n));  // s₀ = 1
  auto check = [&](const VectorXd& mean, const VectorXd& init, const MatrixXd& k) {
    const auto moments = ngvi::test::linear_gaussian_iterate_moments(
        p.posterior_precision, a, k, sigma0, init - p.posterior_mean, harmonic, steps, samples);
    for (Eigen::Index j = 0; j < dim; ++j)
      NGVI_CHECK_MC(mean(j), p.posterior_mean(j) + moments.mean(j),
                    std::sqrt(moments.covariance(j, j)));
    BOOST_TEST(std::sqrt(moments.covariance.diagonal().maxCoeff()) <
               0.05 * p.posterior_mean.cwiseAbs().maxCoeff());
  };
  {
    vi::FullVognOptions o = one_step<vi::Covariance::full>(delta, vi::VognCurvature::ggn, steps);
    o.mean_rate = o.precision_rate = harmonic;
    o.mc_samples = samples;
    InitialMean init;
    vi::Rng rng(17);
    const auto r = vi::fit(p.model, o, rng, init);
    NGVI_CHECK_REPORT(compare(r.posterior.precision(), p.posterior_precision, tol::exact_update,
                              "full VOGN precision"));
    check(r.posterior.mean(), init.mean, p.posterior_covariance);
  }
  {
    vi::VognOptions o = one_step<vi::Covariance::diagonal>(delta, vi::VognCurvature::ggn, steps);
    o.mean_rate = o.precision_rate = harmonic;
    o.mc_samples = samples;
    InitialMean init;
    vi::Rng rng(19);
    const auto r = vi::fit(p.model, o, rng, init);
    check(r.posterior.mean(), init.mean,
          MatrixXd(p.posterior_precision.diagonal().cwiseInverse().asDiagonal()));
  }
}

BOOST_AUTO_TEST_CASE(empirical_fisher_is_the_mean_squared_per_example_gradient) {
  // One β = 1 step at the mean from μ₀: s₁ = (1/N)Σᵢ gᵢgᵢᵀ with gᵢ = τ(φᵢᵀμ₀ − yᵢ)φᵢ, and
  // μ₁ = μ₀ − (s₁ + δ̃)⁻¹(ĝ + δ̃μ₀); q's precision is N(s₁ + δ̃).
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double n = static_cast<double>(p.design.rows()), dt = p.prior_precision / n;
  for (const bool full : {true, false}) {
    InitialMean init;
    vi::Rng rng(5);
    VectorXd mean;
    MatrixXd precision;
    if (full) {
      const auto r = vi::fit(
          p.model,
          one_step<vi::Covariance::full>(p.prior_precision, vi::VognCurvature::empirical_fisher),
          rng, init);
      mean = r.posterior.mean();
      precision = r.posterior.precision();
    } else {
      const auto r = vi::fit(p.model,
                             one_step<vi::Covariance::diagonal>(
                                 p.prior_precision, vi::VognCurvature::empirical_fisher),
                             rng, init);
      mean = r.posterior.mean();
      precision = r.posterior.precision().asDiagonal();
    }
    const VectorXd res = p.design * init.mean - p.targets;
    const MatrixXd g = (p.noise_precision * res).asDiagonal() * p.design;  // row i = gᵢᵀ
    MatrixXd s = g.transpose() * g / n;
    if (!full) s = MatrixXd(s.diagonal().asDiagonal());
    MatrixXd shifted = s;
    shifted.diagonal().array() += dt;
    const VectorXd g_hat = g.colwise().mean().transpose();
    const VectorXd expected_mean = init.mean - shifted.llt().solve(g_hat + dt * init.mean);
    NGVI_CHECK_REPORT(compare(precision, MatrixXd(n * shifted), tol::exact_update,
                              "VOGN (EF) precision N(s + δ̃)"));
    NGVI_CHECK_REPORT(compare(mean, expected_mean, tol::exact_update, "VOGN (EF) mean"));
  }
}

BOOST_AUTO_TEST_CASE(mc_fisher_averages_to_the_ggn) {
  // Gaussian noise, linear model: a sampled target's gradient is √τ zφᵢ with z ~ N(0, 1), so
  // each entry of (1/K)Σₖ g̃ᵢₖg̃ᵢₖᵀ has mean τφᵢⱼφᵢₗ and variance 2τ²φᵢⱼ²φᵢₗ²/K. After one
  // β = 1 step s₁ = (1/N)Σᵢ(...), with mean τΦᵀΦ/N and variance Σᵢ 2τ²φᵢⱼ²φᵢₗ²/(K N²).
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double n = static_cast<double>(p.design.rows()), tau = p.noise_precision,
               dt = p.prior_precision / n;
  const int k = 50;
  vi::FullVognOptions o =
      one_step<vi::Covariance::full>(p.prior_precision, vi::VognCurvature::mc_fisher);
  o.fisher_samples = k;
  vi::Rng rng(6);
  const auto r = vi::fit(p.model, o, rng);
  MatrixXd s = r.posterior.precision() / n;
  s.diagonal().array() -= dt;
  const MatrixXd ggn = tau * p.design.transpose() * p.design / n;
  const MatrixXd phi2 = p.design.cwiseAbs2();
  const MatrixXd var = 2.0 * tau * tau * phi2.transpose() * phi2 / (k * n * n);
  for (Eigen::Index j = 0; j < s.rows(); ++j)
    for (Eigen::Index l = 0; l < s.cols(); ++l)
      NGVI_CHECK_MC(s(j, l), ggn(j, l), std::sqrt(var(j, l)));
  // It is not the GGN itself: the sampling noise is visible.
  BOOST_TEST((s - ggn).cwiseAbs().maxCoeff() > 0.0);
}

// No history row before the step that overflows: the step's own check of μ and Λ names the
// parameter block (a history row would stop the run earlier, on its non-finite training loss).
constexpr Eigen::Index kNoHistory = 1000;

BOOST_AUTO_TEST_CASE(a_step_size_that_overflows_fails_with_the_last_good_posterior) {
  {  // α = 1e300 on logistic regression: μ overflows to ±∞ within a few steps
    const auto p = vi::problems::make_logistic_regression_2d();
    const vi::VognOptions o{
        .loop = {.epochs = 5, .minibatch = 0, .history_every = kNoHistory, .elbo_samples = 0},
        .prior_precision = p.prior_precision,
        .mean_rate = {1e300},
        .precision_rate = {0.5}};
    ngvi::test::check_overflow_keeps_last_good(p.model, o, 41, "mean of dense0.");
  }
  {  // α = 1e300 on linear regression: μ₁ ≈ 1e300 and the squared gradients overflow at step 2
    const auto p = vi::problems::make_bayesian_linear_regression();
    const vi::VognOptions o{
        .loop = {.epochs = 5, .minibatch = 0, .history_every = kNoHistory, .elbo_samples = 0},
        .mean_rate = {1e300},
        .precision_rate = {0.5},
        .mc_samples = 0};
    vi::Rng rng(43);
    ngvi::test::check_failed_naming(vi::fit(p.model, o, rng), 2, "precision of dense0.");
  }
}

BOOST_AUTO_TEST_CASE(a_curvature_other_than_the_empirical_fisher_needs_a_likelihood) {
  const auto callable = nn::make_model(
      [](const auto& th, Eigen::Index) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return T(th(0) * th(0));
      },
      4, 1);
  const vi::VognOptions o{.loop = {.minibatch = 0}, .curvature = vi::VognCurvature::ggn};
  ngvi::test::check_rejects(callable, o, "needs a model with outputs and a likelihood");
}

BOOST_AUTO_TEST_SUITE_END()
