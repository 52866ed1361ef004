// Hamiltonian Monte Carlo (inference/hmc.hpp) against posteriors known independently of it: the
// conjugate linear-Gaussian regression's closed-form mean and covariance (test/support's own
// formulas) and the 2-D logistic regression's mean and covariance by a fine grid quadrature
// written here. Every comparison is within Monte-Carlo error, the standard error computed from the
// run's own effective sample size (mc_sigmas = 5 of them). Also: the adapted step size and mass
// matrix (diagonal, and dense on a correlated Gaussian), NUTS's tree-depth cap, divergences counted
// (never NaN draws), chains that are different streams, and the predictive of the draws against
// the exact predictive. Static HMC and NUTS are both checked wherever the statement holds for both.
// Threads and bad options: method_contract_test.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/test/unit_test.hpp>

#include <inference/hmc.hpp>
#include <inference/mcmc_diagnostics.hpp>
#include <inference/predictive.hpp>
#include <inference/problems/logistic_regression_2d.hpp>

#include <support/conjugate_linear.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(hmc_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::test::ConjugateLinear;

namespace {

ConjugateLinear conjugate() { return ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 17); }

constexpr vi::HmcAlgorithm algorithms[] = {vi::HmcAlgorithm::nuts, vi::HmcAlgorithm::static_hmc};

vi::HmcOptions short_run(double delta, vi::HmcAlgorithm algorithm) {
  vi::HmcOptions o;
  o.algorithm = algorithm;
  o.chains = 4;
  o.warmup = 300;
  o.draws = 1000;
  o.prior_precision = delta;
  return o;
}

// All chains' draws of the series g(θ) (one value per draw), as draws × chains.
template <class G>
MatrixXd series(const vi::HmcResult& r, G&& g) {
  MatrixXd s(r.draws.front().rows(), static_cast<Eigen::Index>(r.draws.size()));
  for (std::size_t c = 0; c < r.draws.size(); ++c)
    for (Eigen::Index t = 0; t < s.rows(); ++t)
      s(t, static_cast<Eigen::Index>(c)) = g(VectorXd(r.draws[c].row(t).transpose()));
  return s;
}

// Standard error of the mean of a series from its own sd and ESS.
double standard_error(const MatrixXd& s) {
  const double mean = s.mean();
  const double var = (s.array() - mean).square().sum() / static_cast<double>(s.size() - 1);
  return std::sqrt(var / vi::effective_sample_size(s));
}

// The largest R-hat that a converged sampler shows, with probability 0.999, at the effective
// sample size of the quantity it is computed from — Vehtari et al. 2021's 1.01 is a rule for long
// runs (it asks for an ESS of several hundred per chain), and a short run's R-hat scatters above
// it by chance. With m split chains of n draws each whose means are independent with variance
// σ²·m/ESS, the between-chain variance is B/n = σ²·(m/ESS)·X with X ~ χ²(m − 1)/(m − 1), so
// R-hat² = (n − 1)/n + (m/ESS)·X. X is taken at its quantile 1 − 0.001/(2P) (P parameters, a bulk
// and a tail R-hat each), the ESS at most the number of draws.
double converged_rhat_bound(double m, double n, double p, double ess) {
  const boost::math::chi_squared chi2(m - 1.0);
  const double x =
      boost::math::quantile(boost::math::complement(chi2, 0.001 / (2.0 * p))) / (m - 1.0);
  return std::sqrt((n - 1.0) / n + m / ess * x);
}

// No divergence, and each parameter's bulk and tail R-hat (the R-hats of its rank-normalised
// split chains and of their folded values, whose larger is the result's rhat) within what
// convergence allows at that quantity's own ESS (converged_rhat_bound).
void check_converged(const vi::HmcResult& r) {
  namespace d = vi::detail;
  BOOST_TEST(r.divergences == 0);
  const double p = static_cast<double>(r.rhat.size());
  for (Eigen::Index j = 0; j < r.rhat.size(); ++j) {
    const MatrixXd split = d::split_chains(r.parameter_draws(j));
    const double m = static_cast<double>(split.cols()), n = static_cast<double>(split.rows());
    const MatrixXd bulk = d::rank_normalize(split);
    const MatrixXd tail = d::rank_normalize(d::fold_at_median(split));
    BOOST_TEST(std::max(d::rhat_of_chains(bulk), d::rhat_of_chains(tail)) == r.rhat(j));
    for (const MatrixXd* z : {&bulk, &tail}) {
      // Antithetic chains (NUTS's ESS can exceed the draws) have chain means closer together
      // than independent draws: the bound at ESS = m·n, independent draws, is the looser one.
      const double rhat = d::rhat_of_chains(*z), ess = std::min(d::ess_of_chains(*z), m * n);
      const double bound = converged_rhat_bound(m, n, p, ess);
      BOOST_TEST_MESSAGE("θ" << j << (z == &bulk ? " bulk" : " tail") << " R-hat " << rhat
                             << ", bound " << bound << " at ESS " << ess);
      BOOST_TEST(rhat < bound, "θ" << j << (z == &bulk ? " bulk" : " tail") << " R-hat " << rhat
                                   << " against a bound of " << bound << " at ESS " << ess);
    }
  }
}

// Checks the draws' mean and covariance against exact ones within Monte-Carlo error: the mean
// coordinate by coordinate with se = sd/√ESS, each covariance entry Σⱼₖ as the mean of the
// series (θⱼ − μⱼ)(θₖ − μₖ) (centred at the exact mean) with that series' own sd and ESS.
void check_moments(const vi::HmcResult& r, const VectorXd& mu, const MatrixXd& sigma) {
  const Eigen::Index p = mu.size();
  for (Eigen::Index j = 0; j < p; ++j) {
    BOOST_TEST_CONTEXT("mean of θ" << j << ", ESS " << r.ess_mean(j)) {
      NGVI_CHECK_MC(r.mean(j), mu(j), r.mc_standard_error(j));
    }
    for (Eigen::Index k = 0; k <= j; ++k) {
      const MatrixXd s =
          series(r, [&](const VectorXd& th) { return (th(j) - mu(j)) * (th(k) - mu(k)); });
      BOOST_TEST_CONTEXT("covariance (" << j << ", " << k << ")") {
        NGVI_CHECK_MC(s.mean(), sigma(j, k), standard_error(s));
      }
    }
  }
}

// U(w, b) = Σᵢ log(1 + e^{fᵢ}) − yᵢfᵢ + ½δ(w² + b²), fᵢ = w xᵢ + b, written out here.
double logistic_potential(const vi::problems::LogisticRegression2d& p, double w, double b) {
  double u = 0.5 * p.prior_precision * (w * w + b * b);
  for (Eigen::Index i = 0; i < p.inputs.size(); ++i) {
    const double f = w * p.inputs(i) + b;
    u += (f > 0.0 ? f + std::log1p(std::exp(-f)) : std::log1p(std::exp(f))) - p.labels(i) * f;
  }
  return u;
}

struct GridMoments {
  VectorXd mean = VectorXd::Zero(2);
  MatrixXd covariance = MatrixXd::Zero(2, 2);
};

// Mean and covariance of the density ∝ exp(−U) by the Riemann sum on a k × k grid over the box
// centre ± half (the trapezoid rule, for an integrand that vanishes at the box's edge).
GridMoments grid_moments(const vi::problems::LogisticRegression2d& p, const VectorXd& centre,
                         const VectorXd& half, int k) {
  std::vector<double> u(static_cast<std::size_t>(k * k));
  const auto node = [&](int d, int i) { return centre(d) - half(d) + 2.0 * half(d) * i / (k - 1); };
  double u_min = std::numeric_limits<double>::infinity();
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      const double v = logistic_potential(p, node(0, i), node(1, j));
      u[static_cast<std::size_t>(i * k + j)] = v;
      u_min = std::min(u_min, v);
    }
  double z = 0.0;
  VectorXd m1 = VectorXd::Zero(2);
  MatrixXd m2 = MatrixXd::Zero(2, 2);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      const double w = std::exp(-(u[static_cast<std::size_t>(i * k + j)] - u_min));
      const VectorXd th = (VectorXd(2) << node(0, i), node(1, j)).finished();
      z += w;
      m1 += w * th;
      m2 += w * th * th.transpose();
    }
  GridMoments g;
  g.mean = m1 / z;
  g.covariance = m2 / z - g.mean * g.mean.transpose();
  return g;
}

}  // namespace

BOOST_AUTO_TEST_CASE(conjugate_regression_matches_the_exact_posterior) {
  const ConjugateLinear c = conjugate();
  const auto model = c.model();
  // The bound has power: the posterior under δ = 4 instead of 1 (means shrunk by a few percent)
  // lies many standard errors away in some coordinate.
  const ConjugateLinear wrong = ngvi::test::make_conjugate_linear(40, 3, 4.0, 4.0, 17);
  for (const vi::HmcAlgorithm algorithm : algorithms) {
    BOOST_TEST_CONTEXT(vi::to_string(algorithm)) {
      vi::Rng rng(5);
      const vi::HmcResult r = vi::hmc(model, short_run(c.delta, algorithm), rng);
      check_converged(r);
      BOOST_TEST(r.min_ess_bulk() > 400.0);
      BOOST_TEST(r.min_ess_tail() > 200.0);
      check_moments(r, c.mean(), c.covariance());
      const VectorXd z = (r.mean - wrong.mean()).cwiseAbs().cwiseQuotient(r.mc_standard_error);
      BOOST_TEST(z.maxCoeff() > 10.0, "largest |mean − wrong mean|/se = " << z.maxCoeff());
      // The pooled mean and covariance are those of the draws.
      const MatrixXd d0 = r.parameter_draws(0);
      BOOST_TEST(std::abs(r.mean(0) - d0.mean()) <= 1e-12);
    }
  }
}

BOOST_AUTO_TEST_CASE(logistic_regression_matches_grid_quadrature) {
  const auto p = vi::problems::make_logistic_regression_2d();
  // Quadrature independent of HMC: a coarse grid over the prior's ±8 sd locates the posterior,
  // then grids over its mean ± 12 sd (the log-concave integrand is negligible at the edges; a
  // Riemann sum of a smooth, decayed integrand converges geometrically, which the two grid sizes
  // confirm).
  const GridMoments coarse = grid_moments(
      p, VectorXd::Zero(2), VectorXd::Constant(2, 8.0 / std::sqrt(p.prior_precision)), 81);
  const VectorXd half = 12.0 * coarse.covariance.diagonal().cwiseSqrt();
  const GridMoments exact = grid_moments(p, coarse.mean, half, 145);
  const GridMoments check = grid_moments(p, coarse.mean, half, 97);
  BOOST_TEST((exact.mean - check.mean).norm() < 1e-9);
  BOOST_TEST((exact.covariance - check.covariance).norm() < 1e-9);
  for (const vi::HmcAlgorithm algorithm : algorithms) {
    BOOST_TEST_CONTEXT(vi::to_string(algorithm)) {
      vi::Rng rng(6);
      const vi::HmcResult r = vi::hmc(p.model, short_run(p.prior_precision, algorithm), rng);
      check_converged(r);
      BOOST_TEST_MESSAGE(vi::to_string(algorithm)
                         << ": quadrature mean " << exact.mean.transpose() << ", HMC "
                         << r.mean.transpose() << " ± " << r.mc_standard_error.transpose());
      check_moments(r, exact.mean, exact.covariance);
    }
  }
}

BOOST_AUTO_TEST_CASE(any_separable_model_a_correlated_gaussian) {
  // A model written as a lambda (nn::CallableModel, no initialisation of its own: every chain
  // starts at 0): ℓ(θ) = ½(θ − m)ᵀA(θ − m), A the precision of sds (1, 3) with correlation 0.95
  // — a posterior the diagonal mass matrix cannot round off. Exact: Λ = A + δI, μ = Λ⁻¹Am.
  MatrixXd cov(2, 2);
  cov << 1.0, 0.95 * 3.0, 0.95 * 3.0, 9.0;
  const MatrixXd A = cov.inverse();
  const VectorXd m = (VectorXd(2) << 1.0, -2.0).finished();
  const auto model = nn::make_model(
      [A, m](const auto& th, Eigen::Index) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        T total(0.0);
        for (Eigen::Index j = 0; j < 2; ++j)
          for (Eigen::Index k = 0; k < 2; ++k)
            total += 0.5 * A(j, k) * (th(j) - m(j)) * (th(k) - m(k));
        return total;
      },
      1, 2);
  const double delta = 0.01;
  const MatrixXd precision = A + delta * MatrixXd::Identity(2, 2);
  const MatrixXd sigma = precision.inverse();
  const VectorXd mu = sigma * A * m;
  for (const vi::HmcAlgorithm algorithm : algorithms) {
    BOOST_TEST_CONTEXT(vi::to_string(algorithm)) {
      vi::Rng rng(12);
      const vi::HmcResult r = vi::hmc(model, short_run(delta, algorithm), rng);
      check_converged(r);
      check_moments(r, mu, sigma);
    }
  }
}

BOOST_AUTO_TEST_CASE(dense_metric_learns_a_correlated_gaussian) {
  // ℓ(θ) = ½(θ − m)ᵀA(θ − m) in 5-D, A⁻¹ = DRD: every pair correlated 0.95 (R's eigenvalues 4.8
  // and, four times, 0.05) and sds D from 1 to 100 (√10 apart). A diagonal metric removes the
  // scales but not the correlation: the whitened posterior keeps a condition number of 96. The
  // dense metric's M⁻¹ is the last window's (500 draws) sample covariance, so L⁻¹M⁻¹L⁻ᵀ (Σ = LLᵀ
  // the exact covariance) is a Wishart matrix over n ≈ 500 (or its ESS) and its eigenvalues lie
  // within about (1 ± √(5/n))², [0.8, 1.2]; the bound is a factor 1.6 either way (measured:
  // 0.75–1.29 over the four chains; the diagonal metric's spread 0.18–22).
  const Eigen::Index d = 5;
  VectorXd scale(d);
  for (Eigen::Index j = 0; j < d; ++j) scale(j) = std::pow(10.0, 0.5 * static_cast<double>(j));
  MatrixXd cov = MatrixXd::Constant(d, d, 0.95);
  cov.diagonal().setOnes();
  cov = scale.asDiagonal() * cov * scale.asDiagonal();
  const MatrixXd A = cov.inverse();
  const VectorXd m = VectorXd::LinSpaced(d, -2.0, 2.0).cwiseProduct(scale);
  const auto model = nn::make_model(
      [A, m, d](const auto& th, Eigen::Index) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        T total(0.0);
        for (Eigen::Index j = 0; j < d; ++j)
          for (Eigen::Index k = 0; k < d; ++k)
            total += 0.5 * A(j, k) * (th(j) - m(j)) * (th(k) - m(k));
        return total;
      },
      1, d);
  const double delta = 1e-6;
  const MatrixXd sigma = (A + delta * MatrixXd::Identity(d, d)).inverse();
  const VectorXd mu = sigma * A * m;
  const Eigen::LLT<MatrixXd> exact(sigma);
  // The eigenvalues of L⁻¹ M⁻¹ L⁻ᵀ: M⁻¹ against Σ, 1 where they agree.
  const auto whitened = [&](const MatrixXd& inverse_metric) {
    const MatrixXd half = exact.matrixL().solve(inverse_metric);
    const MatrixXd w = exact.matrixL().solve(half.transpose());
    return Eigen::SelfAdjointEigenSolver<MatrixXd>(0.5 * (w + w.transpose())).eigenvalues();
  };
  vi::HmcOptions o = short_run(delta, vi::HmcAlgorithm::nuts);
  o.warmup = 1000;
  o.draws = 1000;
  double steps[2] = {0.0, 0.0}, step_sizes[2] = {0.0, 0.0};
  for (const vi::HmcMetric metric : {vi::HmcMetric::dense, vi::HmcMetric::diagonal}) {
    BOOST_TEST_CONTEXT(vi::to_string(metric)) {
      o.metric = metric;
      vi::Rng rng(13);
      const vi::HmcResult r = vi::hmc(model, o, rng);
      for (const vi::HmcChainSummary& s : r.chains) {
        const bool dense = metric == vi::HmcMetric::dense;
        BOOST_TEST(s.dense_inverse_metric.size() == (dense ? d * d : 0));
        const MatrixXd inverse_metric =
            dense ? s.dense_inverse_metric : MatrixXd(s.inverse_metric.asDiagonal());
        BOOST_TEST((inverse_metric.diagonal() - s.inverse_metric).norm() == 0.0);
        const VectorXd e = whitened(inverse_metric);
        BOOST_TEST_MESSAGE(vi::to_string(metric)
                           << ": eigenvalues of M⁻¹ against Σ " << e.transpose() << ", ε "
                           << s.step_size << ", leapfrog steps per draw " << s.mean_leapfrog_steps);
        if (dense) {
          BOOST_TEST(e.minCoeff() > 1.0 / 1.6);
          BOOST_TEST(e.maxCoeff() < 1.6);
        } else {
          BOOST_TEST(e.maxCoeff() / e.minCoeff() > 50.0);
        }
        steps[dense ? 0 : 1] += s.mean_leapfrog_steps / static_cast<double>(r.chains.size());
        step_sizes[dense ? 0 : 1] += s.step_size / static_cast<double>(r.chains.size());
      }
      check_converged(r);
      check_moments(r, mu, sigma);
    }
  }
  // The step size follows the narrowest sd of the posterior in the metric's frame, 1/√(largest
  // eigenvalue above): about 0.9 for the dense metric, 1/√21 ≈ 0.22 for the diagonal one, a
  // ratio near 4 (measured: ε 0.66–0.87 against 0.17–0.20); and NUTS then needs fewer steps
  // per draw (measured: 4.4–6.2 against 9.8–11.8).
  BOOST_TEST(step_sizes[0] > 2.5 * step_sizes[1],
             "mean ε: dense " << step_sizes[0] << ", diagonal " << step_sizes[1]);
  BOOST_TEST(1.5 * steps[0] < steps[1],
             "leapfrog steps per draw: dense " << steps[0] << ", diagonal " << steps[1]);
}

BOOST_AUTO_TEST_CASE(warmup_adapts_the_step_size_and_the_mass_matrix) {
  // The dual averaging aims at α = 0.8. Its averaged ε̄ lands the kept draws' mean acceptance
  // near that, not on it: the average leans on the early, oscillating iterates, so the
  // acceptance comes out above the target (with Stan's short final buffer of 50, near 0.9, as in
  // Stan; here, with a final buffer of 300, 0.83–0.87 for NUTS and 0.86–0.89 for static HMC over
  // seeds 7–10), hence ±0.12 on the chains' mean and ±0.15 per chain. The windowed estimate of
  // diag(M⁻¹) is the posterior's marginal variances (about 0.006; M = I would be off 150-fold) up
  // to the noise of the last, 250-draw window — a relative sd of some 12 %, so within a factor
  // 1.75 (at most 1.35 over those seeds).
  const ConjugateLinear c = conjugate();
  const auto model = c.model();
  const VectorXd var = c.covariance().diagonal();
  for (const vi::HmcAlgorithm algorithm : algorithms) {
    BOOST_TEST_CONTEXT(vi::to_string(algorithm)) {
      vi::Rng rng(7);
      vi::HmcOptions o = short_run(c.delta, algorithm);
      o.warmup = 800;
      o.adapt_term_buffer = 300;
      o.draws = 400;
      const vi::HmcResult r = vi::hmc(model, o, rng);
      double mean_acceptance = 0.0;
      for (const vi::HmcChainSummary& s : r.chains) {
        mean_acceptance += s.acceptance_rate / static_cast<double>(r.chains.size());
        BOOST_TEST(std::abs(s.acceptance_rate - 0.8) < 0.15, "acceptance " << s.acceptance_rate);
        BOOST_TEST(s.step_size > 0.0);
        for (Eigen::Index j = 0; j < var.size(); ++j)
          BOOST_TEST(std::abs(std::log(s.inverse_metric(j) / var(j))) < std::log(1.75),
                     "v" << j << " = " << s.inverse_metric(j) << " vs variance " << var(j));
      }
      BOOST_TEST(std::abs(mean_acceptance - 0.8) < 0.12, "mean acceptance " << mean_acceptance);
    }
  }
}

BOOST_AUTO_TEST_CASE(nuts_trees_stop_at_max_tree_depth) {
  // A tree of depth d holds 2^d − 1 leapfrog steps. This posterior wants depth 2–3 at the
  // adapted ε; capped at 2, no tree has more than 3 steps and nearly all reach the cap.
  const ConjugateLinear c = conjugate();
  const auto model = c.model();
  vi::HmcOptions o = short_run(c.delta, vi::HmcAlgorithm::nuts);
  o.warmup = 100;
  o.draws = 100;
  o.max_tree_depth = 2;
  vi::Rng rng(11);
  const vi::HmcResult r = vi::hmc(model, o, rng);
  for (const vi::HmcChainSummary& s : r.chains) {
    BOOST_TEST(s.mean_tree_depth <= 2.0);
    BOOST_TEST(s.mean_leapfrog_steps <= 3.0);
    BOOST_TEST(s.mean_leapfrog_steps > 2.0);
    BOOST_TEST(s.max_tree_depth_hits > 50);
  }
}

BOOST_AUTO_TEST_CASE(non_finite_energies_are_divergences_not_nans) {
  // ε = 50 on a posterior of scale ~0.1 without warmup: every trajectory explodes to ±∞ or NaN.
  // Each transition is a counted divergence and keeps the chain where it is (static HMC rejects;
  // NUTS stops at its first step, whose tree holds only the start).
  const ConjugateLinear c = conjugate();
  const auto model = c.model();
  for (const vi::HmcAlgorithm algorithm : algorithms) {
    BOOST_TEST_CONTEXT(vi::to_string(algorithm)) {
      vi::HmcOptions o = short_run(c.delta, algorithm);
      o.warmup = 0;
      o.draws = 20;
      o.initial_step_size = 50.0;
      o.initial = VectorXd::Constant(4, 0.1);
      vi::Rng rng(8);
      const vi::HmcResult r = vi::hmc(model, o, rng);
      BOOST_TEST(r.divergences == 4 * 20);
      for (std::size_t ch = 0; ch < r.draws.size(); ++ch) {
        BOOST_TEST(r.chains[ch].divergences == 20);
        BOOST_TEST(r.chains[ch].acceptance_rate == 0.0);
        BOOST_TEST(r.draws[ch].allFinite());
        for (Eigen::Index t = 0; t < r.draws[ch].rows(); ++t)
          BOOST_TEST((r.draws[ch].row(t).transpose() == o.initial));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(chains_are_different_streams) {
  const ConjugateLinear c = conjugate();
  vi::HmcOptions o = short_run(c.delta, vi::HmcAlgorithm::nuts);
  o.chains = 2;
  o.warmup = 60;
  o.draws = 40;
  vi::Rng rng(9);
  const vi::HmcResult r = vi::hmc(c.model(), o, rng);
  BOOST_TEST((r.draws[0].array() != r.draws[1].array()).any());
}

BOOST_AUTO_TEST_CASE(predictive_of_the_draws_matches_the_exact_predictive) {
  // At a test input φ*: mean φ*ᵀμ, variance 1/τ + φ*ᵀΣφ*. The predictive resamples S draws, so
  // its mean's error has the resampling part (sd_f/√S) and the chains' part (sd_f/√ESS_f).
  const ConjugateLinear c = conjugate();
  const auto model = c.model();
  vi::Rng rng(10);
  const vi::HmcResult r = vi::hmc(model, short_run(c.delta, vi::HmcAlgorithm::nuts), rng);
  const MatrixXd x_test = (MatrixXd(2, 3) << 0.5, -1.0, 2.0, 3.0, 0.0, -2.0).finished();
  const auto test = c.model_over(x_test, MatrixXd::Zero(2, 1));
  const nn::Standardizer identity{.mean = Eigen::RowVectorXd::Zero(1),
                                  .scale = Eigen::RowVectorXd::Ones(1)};
  const vi::DrawsPosterior q(r);
  BOOST_TEST(q.dim() == 4);
  const int samples = 4000;
  const vi::RegressionPredictive pred =
      vi::mc_regression_predictive(test, q, identity, rng, {.samples = samples});
  const MatrixXd phi = ngvi::test::design_of(x_test);
  const VectorXd mu = c.mean();
  const MatrixXd sigma = c.covariance();
  for (Eigen::Index i = 0; i < 2; ++i) {
    const VectorXd f = phi.row(i).transpose();
    const MatrixXd s = series(r, [&](const VectorXd& th) { return f.dot(th); });
    const double sd_f = std::sqrt(f.dot(sigma * f));
    const double se = sd_f * std::sqrt(1.0 / samples + 1.0 / vi::effective_sample_size(s));
    NGVI_CHECK_MC(pred.mean(i, 0), f.dot(mu), se);
    // Variance: 1/τ + sd_f², the sampled part within a loose 20 % (a variance's relative
    // Monte-Carlo error is √(2/ESS), a few percent here).
    const double exact_var = 1.0 / c.tau + sd_f * sd_f;
    BOOST_TEST(std::abs(pred.variance(i, 0) / exact_var - 1.0) < 0.2);
  }
}

BOOST_AUTO_TEST_SUITE_END()
