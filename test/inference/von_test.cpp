// VON (inference/von.hpp) against exact references:
// * Bayesian linear regression: one β = α = 1 step at the mean reaches the closed-form posterior
//   (also with a KL weight λ ≠ 1, whose posterior is that of the noise precision τ/λ); diagonal
//   VON reaches the mean-field optimum (its precision in one step, its mean by the Jacobi
//   iteration the update becomes, in a number of steps computed from that iteration's contraction
//   factor); with MC samples and α_t = β_t = 1/t the mean converges within standard errors derived
//   exactly (test/support/linear_gaussian_iterates.hpp) and minibatch precisions average to the
//   exact one after whole epochs.
// * 2-D logistic regression: the full-Gaussian and mean-field VI optima, found by a test-side
//   iteration with Gauss–Hermite quadrature (test/support/logistic_vi_optimum.hpp), satisfy the
//   stationarity conditions E_q[∇ log p(D|θ)] = δμ and Λ = E_q[−∇² log p(D|θ)] + δI (resp. their
//   diagonals), and are fixed points of the library's VON within the Monte-Carlo standard errors of
//   one β = 1 step with S samples (variances by the same quadrature); a perturbed q is not.
// * The ELBO rises along a run on the convex logistic problem.
// * Remedies on a tanh MLP keep Λ positive definite at every iteration, fire and are counted;
//   remedy = fail stops with an error naming the iteration.
// * Non-finite steps: status failed, the message names the iteration and the block, the last good
//   posterior is kept. The GGN fallback is refused for a model without a likelihood.
// Threads, resume and bad options: method_contract_test.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Eigenvalues>
#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/problems.hpp>
#include <inference/von.hpp>
#include <nn/activations.hpp>
#include <nn/model_concept.hpp>

#include <support/linear_gaussian_iterates.hpp>
#include <support/logistic_vi_optimum.hpp>
#include <support/method_checks.hpp>
#include <support/method_fixtures.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(von_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::InitialMean;
using ngvi::test::logistic_moments;
using ngvi::test::logistic_vi_optimum;
using ngvi::test::LossMoments;
using ngvi::test::same_bits;
using ngvi::test::tanh_mlp_problem;
using ngvi::test::ViOptimum;

namespace {

// Keeps q as it was before the first step and after every completed one.
struct LastPosterior {
  std::optional<vi::FullGaussian> q;
  Eigen::Index completed_steps = 0;
  template <class Ctx>
  void on_begin(const Ctx& ctx) {
    q = ctx.method().posterior();
  }
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    q = ctx.method().posterior();
    completed_steps = ctx.iteration();
    return false;
  }
};

// Checks after every step that Λ is positive definite.
// Also records the smallest eigenvalue of Λ over the run (by an eigendecomposition, independent
// of the Cholesky checks in von.hpp).
struct PrecisionStaysPd {
  Eigen::Index steps_checked = 0, failures = 0;
  double min_eigenvalue = std::numeric_limits<double>::infinity();
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    ++steps_checked;
    const auto& lambda = ctx.method().precision();
    if constexpr (std::is_same_v<std::decay_t<decltype(lambda)>, MatrixXd>) {
      if (!vi::FullGaussian::from_precision_if_pd(ctx.method().mean(), lambda)) ++failures;
      min_eigenvalue = std::min(
          min_eigenvalue, Eigen::SelfAdjointEigenSolver<MatrixXd>(lambda).eigenvalues().minCoeff());
    } else {
      if (!((lambda.array() > 0.0).all() && lambda.allFinite())) ++failures;
      min_eigenvalue = std::min(min_eigenvalue, lambda.minCoeff());
    }
    return false;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(one_step_reaches_the_linear_regression_posterior) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  const vi::VonOptions o{.loop = {.epochs = 1, .minibatch = 0, .elbo_samples = 0},
                         .prior_precision = p.prior_precision,
                         .mean_rate = {1.0},
                         .precision_rate = {1.0},
                         .mc_samples = 0};
  vi::Rng rng(1);
  const auto r = vi::fit(p.model, o, rng);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.counters.steps == 1);
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), p.posterior_mean, tol::exact_update, "VON mean after one step"));
  NGVI_CHECK_REPORT(compare(r.posterior.covariance(), p.posterior_covariance, tol::exact_update,
                            "VON covariance after one step"));
  BOOST_TEST(r.counters.times_fired(vi::von_remedy_name(vi::VonRemedy::clip_eigenvalues)) == 0);
}

BOOST_AUTO_TEST_CASE(kl_weight_divides_the_data_size) {
  // ELBO with weight λ on the KL: the optimum is the posterior with noise precision τ/λ.
  const auto p = vi::problems::make_bayesian_linear_regression({.seed = 2});
  const double lambda = 0.25;
  const vi::VonOptions o{.loop = {.epochs = 1, .minibatch = 0, .elbo_samples = 0},
                         .prior_precision = p.prior_precision,
                         .kl_weight = lambda,
                         .mean_rate = {1.0},
                         .precision_rate = {1.0},
                         .mc_samples = 0};
  vi::Rng rng(1);
  const auto r = vi::fit(p.model, o, rng);
  const double tau = p.noise_precision / lambda;
  MatrixXd prec = tau * p.design.transpose() * p.design;
  prec.diagonal().array() += p.prior_precision;
  const VectorXd mean = prec.llt().solve(tau * p.design.transpose() * p.targets);
  NGVI_CHECK_REPORT(compare(r.posterior.mean(), mean, tol::exact_update, "VON mean, λ = 1/4"));
  NGVI_CHECK_REPORT(
      compare(r.posterior.precision(), prec, tol::exact_update, "VON precision, λ = 1/4"));
}

BOOST_AUTO_TEST_CASE(diagonal_von_reaches_the_mean_field_optimum) {
  // With α = β = 1 at the mean, diagonal VON sets the precision to diag Λ in one step and then
  // iterates μ ← μ − D⁻¹(Λμ − τΦᵀy), D = diag Λ: the Jacobi iteration, whose error contracts by
  // ρ = spectral radius of I − D⁻¹Λ per step. The steps needed to shrink the initial error below
  // 1e-12 of ‖μ*‖ follow from ρ.
  const auto p = vi::problems::make_bayesian_linear_regression();
  const MatrixXd& lambda = p.posterior_precision;
  const VectorXd d = lambda.diagonal();
  const MatrixXd jacobi =
      MatrixXd::Identity(d.size(), d.size()) - d.cwiseInverse().asDiagonal() * lambda;
  const double rho = jacobi.eigenvalues().cwiseAbs().maxCoeff();
  BOOST_TEST_REQUIRE(rho < 0.5);  // this problem's columns are nearly orthogonal
  const auto steps = static_cast<Eigen::Index>(std::ceil(std::log(1e-14) / std::log(rho)));
  BOOST_TEST_MESSAGE("Jacobi contraction " << rho << ", " << steps << " steps");
  const vi::DiagonalVonOptions o{.loop = {.epochs = steps, .minibatch = 0, .elbo_samples = 0},
                                 .prior_precision = p.prior_precision,
                                 .mean_rate = {1.0},
                                 .precision_rate = {1.0},
                                 .mc_samples = 0};
  vi::Rng rng(4);
  const auto r = vi::fit(p.model, o, rng);
  const vi::DiagonalGaussian opt = p.mean_field_optimum();
  NGVI_CHECK_REPORT(compare(r.posterior.precision(), opt.precision(), tol::exact_update,
                            "diagonal VON precision"));
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), opt.mean(), tol::exact_update, "diagonal VON mean"));
}

BOOST_AUTO_TEST_CASE(monte_carlo_means_converge_within_their_standard_errors) {
  // α_t = β_t = 1/t, S = 3 samples per step, full batch, 200 steps: the exact distribution of
  // μ_T is Gaussian with the moments of linear_gaussian_iterate_moments.
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double delta = p.prior_precision;
  const vi::Schedule harmonic{.initial = 1.0, .decay = 1.0, .power = 1.0};
  const Eigen::Index steps = 200;
  const int samples = 3;
  const Eigen::Index n = p.design.rows(), dim = p.design.cols();
  const MatrixXd a = p.noise_precision * p.design.transpose() * p.design;
  for (const bool full : {true, false}) {
    InitialMean init;
    vi::Rng rng(17);
    VectorXd mean;
    VectorXd precision_diag;
    if (full) {
      const vi::VonOptions o{.loop = {.epochs = steps, .minibatch = 0, .elbo_samples = 0},
                             .prior_precision = delta,
                             .mean_rate = harmonic,
                             .precision_rate = harmonic,
                             .mc_samples = samples};
      const auto r = vi::fit(p.model, o, rng, init);
      mean = r.posterior.mean();
      NGVI_CHECK_REPORT(compare(r.posterior.precision(), p.posterior_precision, tol::exact_update,
                                "VON precision"));
    } else {
      const vi::DiagonalVonOptions o{.loop = {.epochs = steps, .minibatch = 0, .elbo_samples = 0},
                                     .prior_precision = delta,
                                     .mean_rate = harmonic,
                                     .precision_rate = harmonic,
                                     .mc_samples = samples};
      const auto r = vi::fit(p.model, o, rng, init);
      mean = r.posterior.mean();
      NGVI_CHECK_REPORT(compare(r.posterior.precision(), VectorXd(p.posterior_precision.diagonal()),
                                tol::exact_update, "diagonal VON precision"));
    }
    const MatrixXd k = full
                           ? p.posterior_covariance
                           : MatrixXd(p.posterior_precision.diagonal().cwiseInverse().asDiagonal());
    const MatrixXd sigma0 =
        MatrixXd::Identity(dim, dim) / (static_cast<double>(n) + delta);  // q₀ (s₀ = 1)
    const auto moments = ngvi::test::linear_gaussian_iterate_moments(
        p.posterior_precision, a, k, sigma0, init.mean - p.posterior_mean, harmonic, steps,
        samples);
    for (Eigen::Index j = 0; j < dim; ++j)
      NGVI_CHECK_MC(mean(j), p.posterior_mean(j) + moments.mean(j),
                    std::sqrt(moments.covariance(j, j)));
    // The check has power: the Monte-Carlo error is far below the prior scale.
    BOOST_TEST(std::sqrt(moments.covariance.diagonal().maxCoeff()) <
               0.05 * p.posterior_mean.cwiseAbs().maxCoeff());
  }
}

BOOST_AUTO_TEST_CASE(minibatch_precisions_average_to_the_exact_one) {
  // β_t = 1/t makes Λ_T the average of the T targets NĤ_B + δI; over whole epochs (M | N) the
  // minibatch Hessians average to the full one, so Λ_T is exact whatever the samples.
  const auto p = vi::problems::make_bayesian_linear_regression();
  const vi::Schedule harmonic{.initial = 1.0, .decay = 1.0, .power = 1.0};
  const vi::VonOptions o{.loop = {.epochs = 3, .minibatch = 10, .elbo_samples = 0},
                         .prior_precision = p.prior_precision,
                         .mean_rate = {0.5},
                         .precision_rate = harmonic,
                         .mc_samples = 1};
  vi::Rng rng(3);
  const auto r = vi::fit(p.model, o, rng);
  BOOST_TEST(r.counters.steps == 12);
  NGVI_CHECK_REPORT(compare(r.posterior.precision(), p.posterior_precision, tol::exact_update,
                            "minibatch VON precision after 3 epochs"));
}

BOOST_AUTO_TEST_CASE(logistic_vi_optimum_is_a_fixed_point_of_von) {
  const auto p = vi::problems::make_logistic_regression_2d();
  const double delta = p.prior_precision;
  const ViOptimum q = logistic_vi_optimum(p, false);
  const MatrixXd c = Eigen::LLT<MatrixXd>(q.precision).matrixU().solve(MatrixXd::Identity(2, 2));
  const LossMoments m = logistic_moments(p, q.mean, c);
  // The stationarity conditions of full-Gaussian VI, by quadrature: E_q[∇ log p] = δμ,
  // Λ = E_q[−∇² log p] + δI (∇ log p = −∇L).
  NGVI_CHECK_REPORT(compare(VectorXd(-m.grad), VectorXd(delta * q.mean), tol::quadrature,
                            "E_q[∇ log p(D|θ)] = δμ"));
  NGVI_CHECK_REPORT(compare(q.precision, MatrixXd(m.hess + delta * MatrixXd::Identity(2, 2)),
                            tol::quadrature, "Λ = E_q[−∇² log p(D|θ)] + δI"));

  // One β = α = 1 step of VON from q with S samples: Λ₁ = δI + (1/S)Σ∇²L(θₛ), whose standard
  // errors are √(Var_q ∇²L / S); μ₁ − μ ≈ −Λ⁻¹((1/S)Σ∇L(θₛ) + δμ), covariance Λ⁻¹ Cov_q(∇L) Λ⁻¹ /
  // S.
  const int samples = 4000;
  auto one_step = [&](const VectorXd& start) {
    const vi::VonOptions o{.loop = {.epochs = 1, .minibatch = 0, .elbo_samples = 0},
                           .prior_precision = delta,
                           .mean_rate = {1.0},
                           .precision_rate = {1.0},
                           .mc_samples = samples,
                           .initial_mean = start,
                           .initial_precision = q.precision};
    vi::Rng rng(23);
    return vi::fit(p.model, o, rng).posterior;
  };
  const vi::FullGaussian q1 = one_step(q.mean);
  const MatrixXd cov = q.precision.inverse();
  const MatrixXd mean_cov = cov * m.grad_cov * cov / samples;
  for (Eigen::Index j = 0; j < 2; ++j) {
    NGVI_CHECK_MC(q1.mean()(j), q.mean(j), std::sqrt(mean_cov(j, j)));
    for (Eigen::Index k = 0; k < 2; ++k)
      NGVI_CHECK_MC(q1.precision()(j, k), q.precision(j, k), std::sqrt(m.hess_var(j, k) / samples));
  }
  // Power: from a mean 0.2 away the same step moves by many standard errors.
  const VectorXd off = q.mean + (VectorXd(2) << 0.2, -0.2).finished();
  const vi::FullGaussian q_off = one_step(off);
  BOOST_TEST((q_off.mean() - off).cwiseAbs().minCoeff() >
             20.0 * std::sqrt(mean_cov.diagonal().maxCoeff()));
}

BOOST_AUTO_TEST_CASE(logistic_mean_field_optimum_is_a_fixed_point_of_diagonal_von) {
  const auto p = vi::problems::make_logistic_regression_2d({.seed = 1});
  const double delta = p.prior_precision;
  const ViOptimum q = logistic_vi_optimum(p, true);
  const VectorXd prec = q.precision.diagonal();
  const LossMoments m =
      logistic_moments(p, q.mean, MatrixXd(prec.cwiseInverse().cwiseSqrt().asDiagonal()));
  NGVI_CHECK_REPORT(compare(VectorXd(-m.grad), VectorXd(delta * q.mean), tol::quadrature,
                            "mean field: E_q[∇ log p(D|θ)] = δμ"));
  NGVI_CHECK_REPORT(compare(prec, VectorXd(m.hess.diagonal().array() + delta), tol::quadrature,
                            "mean field: λⱼ = E_q[−∂ⱼ² log p(D|θ)] + δ"));
  const int samples = 4000;
  const vi::DiagonalVonOptions o{.loop = {.epochs = 1, .minibatch = 0, .elbo_samples = 0},
                                 .prior_precision = delta,
                                 .mean_rate = {1.0},
                                 .precision_rate = {1.0},
                                 .mc_samples = samples,
                                 .initial_mean = q.mean,
                                 .initial_precision = prec};
  vi::Rng rng(29);
  const vi::DiagonalGaussian q1 = vi::fit(p.model, o, rng).posterior;
  for (Eigen::Index j = 0; j < 2; ++j) {
    NGVI_CHECK_MC(q1.mean()(j), q.mean(j), std::sqrt(m.grad_cov(j, j) / samples) / prec(j));
    NGVI_CHECK_MC(q1.precision()(j), prec(j), std::sqrt(m.hess_var(j, j) / samples));
  }
}

BOOST_AUTO_TEST_CASE(elbo_rises_along_a_run_on_a_convex_problem) {
  const auto p = vi::problems::make_logistic_regression_2d();
  const vi::VonOptions o{
      .loop = {.epochs = 40, .minibatch = 10, .history_every = 1, .elbo_samples = 8},
      .prior_precision = p.prior_precision,
      .mean_rate = {0.1},
      .precision_rate = {0.1},
      .mc_samples = 1};
  vi::Rng rng(5);
  const auto r = vi::fit(p.model, o, rng);
  const auto& h = r.history;
  BOOST_TEST_REQUIRE(h.size() == 120u);
  const std::size_t quarter = h.size() / 4;
  double first = 0.0, last = 0.0;
  for (std::size_t k = 0; k < quarter; ++k) {
    first += h[k].elbo / quarter;
    last += h[h.size() - 1 - k].elbo / quarter;
  }
  BOOST_TEST_MESSAGE("mean ELBO, first quarter " << first << ", last quarter " << last);
  BOOST_TEST(last > first + 1.0);
}

BOOST_AUTO_TEST_CASE(every_remedy_keeps_the_precision_positive_definite) {
  const auto model = tanh_mlp_problem();
  for (const vi::VonRemedy remedy :
       {vi::VonRemedy::clip_eigenvalues, vi::VonRemedy::damp_step, vi::VonRemedy::add_damping,
        vi::VonRemedy::reject_step, vi::VonRemedy::ggn_fallback}) {
    BOOST_TEST_CONTEXT("remedy " << vi::von_remedy_name(remedy)) {
      vi::VonOptions o{.loop = {.epochs = 10, .minibatch = 5, .elbo_samples = 0},
                       .mean_rate = {0.05},
                       .precision_rate = {0.9},
                       .mc_samples = 1,
                       .remedy = remedy};
      // At β = 0.9 clipping lets the mean run away (the loss at the mean goes from 3 to ~4700
      // per example by iteration 20, and the divergence rule stops the run): this test is about
      // the precision alone, so it runs all 40 steps without the rule.
      o.loop.divergence.enabled = false;
      vi::Rng rng(7);
      PrecisionStaysPd check;
      const auto r = vi::fit(model, o, rng, check);
      BOOST_TEST(r.ok(), r.message);
      BOOST_TEST(check.steps_checked == 40);
      BOOST_TEST(check.failures == 0);
      BOOST_TEST(r.counters.times_fired(vi::von_remedy_name(remedy)) > 0);
      // The Cholesky-checked remedies keep Λ ⪰ κδI (precision_floor κ = ½, δ = 1).
      if (remedy != vi::VonRemedy::clip_eigenvalues)
        BOOST_TEST(check.min_eigenvalue > o.precision_floor * o.prior_precision);
      BOOST_TEST_MESSAGE(vi::von_remedy_name(remedy)
                         << ": fired on " << r.counters.times_fired(vi::von_remedy_name(remedy))
                         << " of 40 steps; smallest eigenvalue of Λ " << check.min_eigenvalue);
    }
  }
  for (const vi::VonRemedy remedy : {vi::VonRemedy::clip_eigenvalues, vi::VonRemedy::damp_step}) {
    BOOST_TEST_CONTEXT("diagonal, remedy " << vi::von_remedy_name(remedy)) {
      const vi::DiagonalVonOptions o{.loop = {.epochs = 10, .minibatch = 5, .elbo_samples = 0},
                                     .mean_rate = {0.05},
                                     .precision_rate = {0.9},
                                     .mc_samples = 1,
                                     .remedy = remedy};
      vi::Rng rng(7);
      PrecisionStaysPd check;
      const auto r = vi::fit(model, o, rng, check);
      BOOST_TEST(r.ok(), r.message);
      BOOST_TEST(check.failures == 0);
      BOOST_TEST(r.counters.times_fired(vi::von_remedy_name(remedy)) > 0);
      if (remedy != vi::VonRemedy::clip_eigenvalues)
        BOOST_TEST(check.min_eigenvalue > o.precision_floor * o.prior_precision);
    }
  }
}

BOOST_AUTO_TEST_CASE(remedy_fail_stops_the_fit_naming_the_iteration_with_the_last_good_q) {
  const auto model = tanh_mlp_problem();
  const vi::VonOptions o{.loop = {.epochs = 10, .minibatch = 5, .elbo_samples = 0},
                         .mean_rate = {0.05},
                         .precision_rate = {0.9},
                         .mc_samples = 1,
                         .remedy = vi::VonRemedy::fail};
  vi::Rng rng(7);
  LastPosterior last;
  const auto r = vi::fit(model, o, rng, last);
  BOOST_TEST(r.status == vi::FitStatus::failed);
  const Eigen::Index failed_at = r.counters.steps + 1;  // the step that threw is not counted
  BOOST_TEST(r.message.find("at iteration " + std::to_string(failed_at) + " ") != std::string::npos,
             r.message);
  BOOST_TEST(r.message.find("not positive definite") != std::string::npos, r.message);
  // The failed step left nothing behind: q is the one after the last completed step.
  BOOST_TEST(last.completed_steps == failed_at - 1);
  BOOST_TEST(same_bits(r.posterior, *last.q));
}

// No history row before the step that overflows: the step's own check of μ and Λ names the
// parameter block (a history row would stop the run earlier, on its non-finite training loss).
constexpr Eigen::Index kNoHistory = 1000;

BOOST_AUTO_TEST_CASE(a_step_size_that_overflows_fails_with_the_last_good_posterior) {
  {  // α = 1e300 on logistic regression: μ overflows to ±∞ within a few steps
    const auto p = vi::problems::make_logistic_regression_2d();
    const vi::VonOptions o{
        .loop = {.epochs = 5, .minibatch = 0, .history_every = kNoHistory, .elbo_samples = 0},
        .prior_precision = p.prior_precision,
        .mean_rate = {1e300},
        .precision_rate = {0.5},
        .mc_samples = 1};
    ngvi::test::check_overflow_keeps_last_good(p.model, o, 41, "mean of dense0.");
  }
  {  // α = 1e200 on a quartic: μ₁ ≈ 1e195 and the Hessian 3(θ − x)² overflows at step 2
    nn::ParameterLayout layout;
    layout.add("location", 2, 1);
    const auto quartic = nn::make_model(
        [](const auto& th, Eigen::Index i) {
          using T = typename std::decay_t<decltype(th)>::Scalar;
          const T d = th(0) - 0.1 * static_cast<double>(i);
          return T(d * d * d * d / 4.0 + th(1) * th(1));
        },
        5, layout);
    const vi::VonOptions o{
        .loop = {.epochs = 5, .minibatch = 0, .history_every = kNoHistory, .elbo_samples = 0},
        .mean_rate = {1e200},
        .precision_rate = {0.5},
        .mc_samples = 0};
    vi::Rng rng(43);
    ngvi::test::check_failed_naming(vi::fit(quartic, o, rng), 2, "precision of location");
  }
}

BOOST_AUTO_TEST_CASE(the_ggn_fallback_needs_a_likelihood) {
  const auto callable = nn::make_model(
      [](const auto& th, Eigen::Index) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return T(th(0) * th(0));
      },
      4, 1);
  const vi::VonOptions o{.loop = {.minibatch = 0}, .remedy = vi::VonRemedy::ggn_fallback};
  ngvi::test::check_rejects(callable, o, "remedy ggn_fallback needs a model with outputs");
}

BOOST_AUTO_TEST_SUITE_END()
