// SLANG (inference/slang.hpp) against independent references:
// * rank 0 is diagonal VOGN (inference/vogn.hpp): the same options and seed give the same
//   iterates to rounding (not bitwise: VOGN sums diag ĉ by its batched routes, SLANG from the
//   factors), for the empirical Fisher, the GGN and the MC Fisher, with minibatches and samples;
// * Bayesian linear regression with the GGN (exact for this model): rank P reaches the
//   closed-form posterior in one β = α = 1 step; rank 2 < P gives the precision whose low-rank
//   part is the best rank-2 approximation of τΦᵀΦ (by Eigen's SelfAdjointEigenSolver) and whose
//   diagonal is the exact one (the diagonal correction); on a 3-class softmax, rank P gives
//   nn::ggn + δI (the GGN's per-example factors of a 3×3 output Hessian);
// * 2-D logistic regression with rank P = 2: the full-covariance VI optimum (by quadrature,
//   test/support/logistic_vi_optimum.hpp) is a fixed point of one β = α = 1 step within the
//   Monte-Carlo standard errors, and a mean 0.2 away is not;
// * the randomized eigendecomposition against SelfAdjointEigenSolver on matrices of known rank;
// * a BlockedReducer gives the run without one, to rounding (the factors placed per example);
// * bad options name the field and the value.
// Threads (the same bits for 1 and 2), resume and the shared bad options:
// method_contract_test.cpp.
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/problems.hpp>
#include <inference/slang.hpp>
#include <inference/vogn.hpp>
#include <nn/curvature/ggn.hpp>

#include <support/curvature_fixtures.hpp>
#include <support/logistic_vi_optimum.hpp>
#include <support/method_fixtures.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(slang_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

namespace {

// Full batch, α = β = 1, at the mean, the GGN: the options of the one-step tests.
vi::SlangOptions one_step(double delta, Eigen::Index rank) {
  return {.loop = {.epochs = 1, .minibatch = 0, .elbo_samples = 0},
          .prior_precision = delta,
          .mean_rate = {1.0},
          .precision_rate = {1.0},
          .rank = rank,
          .mc_samples = 0,
          .curvature = vi::VognCurvature::ggn};
}

}  // namespace

BOOST_AUTO_TEST_CASE(rank_zero_is_diagonal_vogn) {
  // Rounding accumulated over 12 steps (measured: at most 3e-15 relative on the means, 1e-15 on
  // the precisions); a relative 1e-12 bar, far below any modelling change.
  constexpr ngvi::ad::verify::Tolerance rounding{1e-12, 1e-14};
  const auto model = ngvi::test::tanh_mlp_problem();
  for (const auto curvature : {vi::VognCurvature::empirical_fisher, vi::VognCurvature::ggn,
                               vi::VognCurvature::mc_fisher}) {
    BOOST_TEST_CONTEXT(vi::to_string(curvature)) {
      const vi::LoopOptions loop{.epochs = 3, .minibatch = 5, .elbo_samples = 0};
      const vi::VognOptions v{.loop = loop,
                              .mean_rate = {0.05},
                              .precision_rate = {0.3},
                              .mc_samples = 2,
                              .curvature = curvature,
                              .fisher_samples = 2};
      const vi::SlangOptions s{.loop = loop,
                               .mean_rate = {0.05},
                               .precision_rate = {0.3},
                               .rank = 0,
                               .mc_samples = 2,
                               .curvature = curvature,
                               .fisher_samples = 2};
      vi::Rng r1(11), r2(11);
      const auto a = vi::fit(model, v, r1);
      const auto b = vi::fit(model, s, r2);
      BOOST_TEST_REQUIRE(a.ok(), a.message);
      BOOST_TEST_REQUIRE(b.ok(), b.message);
      BOOST_TEST(b.posterior.rank() == 0);
      NGVI_CHECK_REPORT(compare(b.posterior.mean(), a.posterior.mean(), rounding, "mean"));
      NGVI_CHECK_REPORT(
          compare(b.posterior.diagonal(), a.posterior.precision(), rounding, "precision"));
      // The runs moved: the precision started at N(s₀ + δ/N) = 20 + 1 everywhere.
      BOOST_TEST((a.posterior.precision().array() - 21.0).abs().maxCoeff() > 1.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(full_rank_with_the_ggn_reaches_the_linear_regression_posterior) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  const Eigen::Index dim = p.design.cols();
  vi::Rng rng(1);
  const auto r = vi::fit(p.model, one_step(p.prior_precision, dim), rng);
  BOOST_TEST_REQUIRE(r.ok(), r.message);
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), p.posterior_mean, tol::exact_update, "SLANG (rank P) mean"));
  NGVI_CHECK_REPORT(compare(r.posterior.covariance(), p.posterior_covariance, tol::exact_update,
                            "SLANG (rank P) covariance"));
  // KL weight λ: the optimum of the λ-weighted ELBO is the posterior for noise precision τ/λ.
  const double lambda = 0.25;
  vi::SlangOptions o = one_step(p.prior_precision, dim);
  o.kl_weight = lambda;
  vi::Rng rng2(1);
  const auto t = vi::fit(p.model, o, rng2);
  ngvi::test::check_kl_weighted_linear_posterior(t.posterior, p, lambda, "SLANG");
}

BOOST_AUTO_TEST_CASE(rank_two_keeps_the_leading_eigenpairs_and_the_exact_diagonal) {
  // One β = 1 step: Λ = UUᵀ + diag(d) with UUᵀ the best rank-2 approximation of τΦᵀΦ and
  // d = diag(τΦᵀΦ − UUᵀ) + δ (P = 4, so rank + oversampling = P: the eigenpairs are exact).
  const auto p = vi::problems::make_bayesian_linear_regression();
  vi::Rng rng(2);
  const auto r = vi::fit(p.model, one_step(p.prior_precision, 2), rng);
  BOOST_TEST_REQUIRE(r.ok(), r.message);
  const MatrixXd a = p.noise_precision * p.design.transpose() * p.design;
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(a);
  const MatrixXd v = eig.eigenvectors().rightCols(2);
  const MatrixXd low = v * eig.eigenvalues().tail(2).asDiagonal() * v.transpose();
  const MatrixXd& u = r.posterior.low_rank_factor();
  NGVI_CHECK_REPORT(compare(MatrixXd(u * u.transpose()), low, tol::exact_update, "UUᵀ"));
  NGVI_CHECK_REPORT(compare(VectorXd(r.posterior.precision().diagonal()),
                            p.posterior_precision.diagonal(), tol::exact_update, "diag Λ"));
  // It is not the full posterior: the discarded eigenvalues are visible off the diagonal.
  BOOST_TEST((r.posterior.precision() - p.posterior_precision).cwiseAbs().maxCoeff() >
             0.1 * eig.eigenvalues()(1));
}

BOOST_AUTO_TEST_CASE(full_rank_ggn_of_a_softmax_is_nn_ggn) {
  // Three outputs: Fᵢ = JᵢᵀZ diag(√ν) from the 3×3 output Hessian diag(p) − ppᵀ, whose zero
  // eigenvalue (the logits' common shift) comes out as ±rounding. One β = 1 step at θ with rank
  // P = 9 gives the precision G(θ) + δI, G by nn::ggn (Σᵢ JᵢᵀH_L,iJᵢ, formed whole).
  Eigen::VectorXd theta;
  const auto model =
      ngvi::test::make_supervised({2, 3}, ngvi::nn::SoftmaxCategorical(3), 25, 13, &theta);
  vi::SlangOptions o = one_step(0.5, model.num_params());
  o.initial_mean = theta;
  vi::Rng rng(4);
  const auto r = vi::fit(model, o, rng);
  BOOST_TEST_REQUIRE(r.ok(), r.message);
  MatrixXd expected = ngvi::nn::ggn(model, theta);
  expected.diagonal().array() += 0.5;
  NGVI_CHECK_REPORT(compare(r.posterior.precision(), expected, tol::exact_update, "G + δI"));
}

BOOST_AUTO_TEST_CASE(logistic_vi_optimum_is_a_fixed_point_of_full_rank_slang) {
  // At rank P = 2 with the GGN (the Hessian of the logistic loss in (w, b)) one β = α = 1 step
  // with S samples is VON's: Λ₁ = δI + (1/S)Σ∇²L(θₛ) and μ₁ = μ − Λ₁⁻¹((1/S)Σ∇L(θₛ) + δμ).
  const auto p = vi::problems::make_logistic_regression_2d();
  const double delta = p.prior_precision, n = static_cast<double>(p.inputs.size());
  const ngvi::test::ViOptimum q = ngvi::test::logistic_vi_optimum(p, false);
  const MatrixXd c = Eigen::LLT<MatrixXd>(q.precision).matrixU().solve(MatrixXd::Identity(2, 2));
  const ngvi::test::LossMoments m = ngvi::test::logistic_moments(p, q.mean, c);
  // Start at q: UUᵀ = (Λ − δI)/N, d = 0.
  MatrixXd s0 = q.precision / n;
  s0.diagonal().array() -= delta / n;
  const MatrixXd u0 = Eigen::LLT<MatrixXd>(s0).matrixL();
  const int samples = 4000;
  auto step_from = [&](const VectorXd& start) {
    vi::SlangOptions o = one_step(delta, 2);
    o.mc_samples = samples;
    o.initial_mean = start;
    o.initial_low_rank = u0;
    o.initial_diagonal = VectorXd::Zero(2);
    vi::Rng rng(23);
    return vi::fit(p.model, o, rng).posterior;
  };
  const vi::LowRankGaussian q1 = step_from(q.mean);
  const MatrixXd cov = q.precision.inverse();
  const MatrixXd mean_cov = cov * m.grad_cov * cov / samples;
  const MatrixXd prec = q1.precision();
  for (Eigen::Index j = 0; j < 2; ++j) {
    NGVI_CHECK_MC(q1.mean()(j), q.mean(j), std::sqrt(mean_cov(j, j)));
    for (Eigen::Index k = 0; k < 2; ++k)
      NGVI_CHECK_MC(prec(j, k), q.precision(j, k), std::sqrt(m.hess_var(j, k) / samples));
  }
  // Power: from a mean 0.2 away the same step moves by many standard errors.
  const VectorXd off = q.mean + (VectorXd(2) << 0.2, -0.2).finished();
  const vi::LowRankGaussian q_off = step_from(off);
  BOOST_TEST((q_off.mean() - off).cwiseAbs().minCoeff() >
             20.0 * std::sqrt(mean_cov.diagonal().maxCoeff()));
}

BOOST_AUTO_TEST_CASE(randomized_eigenpairs_of_a_matrix_of_known_rank_are_exact) {
  // T = WWᵀ, W of 12×r: rank r. With r ≤ L + oversampling the range finder sees all of T.
  vi::Rng rng(5);
  const Eigen::Index p = 12;
  for (const Eigen::Index r : {3, 5}) {
    BOOST_TEST_CONTEXT("rank " << r) {
      const MatrixXd w = vi::standard_normal(rng, p, r);
      const Eigen::SelfAdjointEigenSolver<MatrixXd> exact(w * w.transpose());
      const Eigen::Index l = 3;
      for (const int iterations : {0, 4}) {
        const vi::Eigenpairs e = vi::randomized_top_eigenpairs(
            w, l, {.oversampling = r - l, .power_iterations = iterations}, 7);
        const VectorXd top = exact.eigenvalues().tail(l).reverse();
        NGVI_CHECK_REPORT(compare(e.values, top, {1e-10, 1e-12}, "top-L eigenvalues"));
        const MatrixXd ve = exact.eigenvectors().rightCols(l);
        NGVI_CHECK_REPORT(compare(MatrixXd(e.vectors * e.vectors.transpose()),
                                  MatrixXd(ve * ve.transpose()), {1e-10, 1e-12},
                                  "projector on the top-L eigenvectors"));
        NGVI_CHECK_REPORT(compare(MatrixXd(e.vectors.transpose() * e.vectors),
                                  MatrixXd::Identity(l, l), {1e-12, 1e-12}, "orthonormal"));
        // Each value with its own vector: Tv = νv.
        NGVI_CHECK_REPORT(compare(MatrixXd(w * (w.transpose() * e.vectors)),
                                  MatrixXd(e.vectors * e.values.asDiagonal()), {1e-10, 1e-10},
                                  "Tv = νv"));
      }
    }
  }
  // The range finder is what makes it exact: rank 6 seen through 3 columns without iterations
  // misses the top eigenvalues by far more than rounding.
  const MatrixXd w = vi::standard_normal(rng, p, 6);
  const Eigen::SelfAdjointEigenSolver<MatrixXd> exact(w * w.transpose());
  const vi::Eigenpairs e =
      vi::randomized_top_eigenpairs(w, 3, {.oversampling = 0, .power_iterations = 0}, 7);
  BOOST_TEST((e.values - VectorXd(exact.eigenvalues().tail(3).reverse())).cwiseAbs().maxCoeff() >
             1e-6);
}

BOOST_AUTO_TEST_CASE(a_blocked_reducer_gives_the_same_fit_to_rounding) {
  const auto model = ngvi::test::tanh_mlp_problem();
  vi::SlangOptions o{.loop = {.epochs = 2, .minibatch = 7, .elbo_samples = 0},
                     .mean_rate = {0.05},
                     .precision_rate = {0.3},
                     .rank = 3,
                     .curvature = vi::VognCurvature::ggn};
  vi::Rng r1(3), r2(3);
  const auto a = vi::fit(model, o, r1);
  o.loop.reducer = std::make_shared<vi::BlockedReducer>(3);
  const auto b = vi::fit(model, o, r2);
  BOOST_TEST_REQUIRE(a.ok(), a.message);
  BOOST_TEST_REQUIRE(b.ok(), b.message);
  constexpr ngvi::ad::verify::Tolerance rounding{1e-10, 1e-12};
  NGVI_CHECK_REPORT(compare(b.posterior.mean(), a.posterior.mean(), rounding, "mean"));
  NGVI_CHECK_REPORT(compare(b.posterior.precision(), a.posterior.precision(), rounding, "Λ"));
}

BOOST_AUTO_TEST_CASE(bad_options_name_the_field_and_the_value) {
  const auto p = vi::problems::make_bayesian_linear_regression();  // P = 4
  const double inf = std::numeric_limits<double>::infinity();
  const auto rejects = [&](const vi::SlangOptions& o, const std::string& message) {
    vi::Rng rng(1);
    ngvi::test::check_error_mentions([&] { (void)vi::fit(p.model, o, rng); }, message);
  };
  rejects({.rank = -1}, "ngvi::vi::Slang: rank must be >= 0, got -1");
  rejects({.rank = 5}, "ngvi::vi::Slang: rank must be <= P = 4 (the number of parameters), got 5");
  rejects({.mean_rate = {inf}},
          "ngvi::vi::Slang mean_rate: the initial step must be positive and "
          "finite, got inf");
  rejects({.precision_rate = {std::nan("")}},
          "precision_rate: the initial step must be positive "
          "and finite, got nan");
  rejects({.kl_weight = -inf}, "kl_weight must be positive and finite, got -inf");
  rejects({.rank = 2, .initial_low_rank = MatrixXd::Zero(4, 3)},
          "initial_low_rank is 4×3, expected 4×2");
  rejects({.initial_diagonal = VectorXd::Constant(4, -1.0)},
          "initial_diagonal(0) must be >= 0 and finite, got -1");
  rejects({.eigen = {.oversampling = -2}}, "eigen.oversampling must be >= 0, got -2");
}

BOOST_AUTO_TEST_SUITE_END()
