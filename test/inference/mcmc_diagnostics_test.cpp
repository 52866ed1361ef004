// Stan's convergence diagnostics (inference/mcmc_diagnostics.hpp) against series whose answer is
// known: independent normal draws (R-hat → 1, ESS ≈ the number of draws), chains with shifted
// means or different scales (R-hat well above 1, the scale difference seen only by the folded
// tail R-hat), AR(1) series with known ρ (ESS ≈ n(1 − ρ)/(1 + ρ), above n for ρ < 0; bulk- and
// tail-ESS far below n), the FFT autocovariance against the direct sum, rank normalisation
// against Φ⁻¹ of the plotting positions, the pooled quantile, and bad input.
#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/normal.hpp>
#include <boost/test/unit_test.hpp>

#include <inference/mcmc_diagnostics.hpp>
#include <inference/random.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(mcmc_diagnostics_test)

namespace vi = ngvi::vi;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::test::check_error_mentions;

namespace {

// n × m independent N(0, 1) draws.
MatrixXd iid_normal(Eigen::Index n, Eigen::Index m, std::uint64_t seed) {
  vi::Rng rng(seed);
  return vi::standard_normal(rng, n, m);
}

// m AR(1) chains xₜ = ρxₜ₋₁ + √(1 − ρ²) eₜ, started in the stationary N(0, 1): their integrated
// autocorrelation time is (1 + ρ)/(1 − ρ).
MatrixXd ar1(Eigen::Index n, Eigen::Index m, double rho, std::uint64_t seed) {
  vi::Rng rng(seed);
  const MatrixXd e = vi::standard_normal(rng, n, m);
  MatrixXd x(n, m);
  x.row(0) = e.row(0);
  for (Eigen::Index t = 1; t < n; ++t)
    x.row(t) = rho * x.row(t - 1) + std::sqrt(1.0 - rho * rho) * e.row(t);
  return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(autocovariance_by_fft_is_the_direct_sum) {
  const VectorXd x = ar1(37, 1, 0.5, 3).col(0);
  const VectorXd g = vi::detail::autocovariance(x);
  const double mean = x.mean();
  for (Eigen::Index t = 0; t < x.size(); ++t) {
    double direct = 0.0;
    for (Eigen::Index i = 0; i + t < x.size(); ++i) direct += (x(i) - mean) * (x(i + t) - mean);
    BOOST_TEST(std::abs(g(t) - direct / 37.0) <= 1e-12);
  }
}

BOOST_AUTO_TEST_CASE(rank_normalization_is_the_normal_quantile_of_the_average_rank) {
  // Five values, two tied: ranks 1, 2.5, 2.5, 4, 5 of S = 5 → Φ⁻¹((r − 3/8)/(5 + 1/4)).
  MatrixXd d(5, 1);
  d << 0.3, -1.0, 7.0, 0.3, 2.0;
  const MatrixXd z = vi::detail::rank_normalize(d);
  const boost::math::normal_distribution<double> n01;
  const double ranks[] = {2.5, 1.0, 5.0, 2.5, 4.0};
  for (int i = 0; i < 5; ++i)
    BOOST_TEST(std::abs(z(i, 0) - boost::math::quantile(n01, (ranks[i] - 0.375) / 5.25)) <= 1e-14);
}

BOOST_AUTO_TEST_CASE(independent_draws_have_rhat_near_one_and_ess_near_n) {
  // 4 chains × 1000 independent draws. R-hat − 1 is O(1/n) here; ESS/S fluctuates by a few
  // percent around 1 (Geyer's truncation adds a little noise), so ±15 % is several of its sd.
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const MatrixXd d = iid_normal(1000, 4, seed);
    const double total = 4000.0;
    BOOST_TEST(std::abs(vi::split_rhat(d) - 1.0) < 0.01);
    BOOST_TEST(std::abs(vi::rank_normalized_rhat(d) - 1.0) < 0.01);
    BOOST_TEST(std::abs(vi::effective_sample_size(d) / total - 1.0) < 0.15);
    BOOST_TEST(std::abs(vi::bulk_effective_sample_size(d) / total - 1.0) < 0.15);
    BOOST_TEST(std::abs(vi::tail_effective_sample_size(d) / total - 1.0) < 0.15);
  }
}

BOOST_AUTO_TEST_CASE(chains_with_shifted_means_have_rhat_far_above_one) {
  // Chain c centred at c: between-chain variance 5/3 against within-chain 1, R-hat ≈ 1.5.
  MatrixXd d = iid_normal(500, 4, 7);
  for (Eigen::Index c = 0; c < 4; ++c) d.col(c).array() += static_cast<double>(c);
  BOOST_TEST(vi::split_rhat(d) > 1.3);
  BOOST_TEST(vi::rank_normalized_rhat(d) > 1.3);
  // A trend within each chain: the split halves disagree though the chains agree.
  MatrixXd trend = iid_normal(500, 4, 8);
  for (Eigen::Index t = 0; t < 500; ++t) trend.row(t).array() += 4.0 * t / 500.0;
  BOOST_TEST(vi::split_rhat(trend) > 1.3);
}

BOOST_AUTO_TEST_CASE(chains_with_different_scales_are_caught_by_the_folded_tail_rhat) {
  // Same centre, standard deviations 1, 1, 1 and 4: the bulk R-hat stays near 1, the plain split
  // R-hat moves little, the folded draws' R-hat (and so the rank-normalised R-hat) does not.
  MatrixXd d = iid_normal(1000, 4, 9);
  d.col(3) *= 4.0;
  BOOST_TEST(vi::split_rhat(d) < 1.05);
  BOOST_TEST(vi::rank_normalized_rhat(d) > 1.1);
}

BOOST_AUTO_TEST_CASE(ar1_series_have_the_ess_of_their_autocorrelation_time) {
  // ESS = S(1 − ρ)/(1 + ρ) for AR(1). 4 chains × 5000 draws; the estimate's relative sd is
  // about √(2τ/n_split)-ish, a few percent here, so ±20 % holds with a wide margin.
  for (const double rho : {0.5, 0.9, -0.5}) {
    const MatrixXd d = ar1(5000, 4, rho, 11);
    const double expected = 20000.0 * (1.0 - rho) / (1.0 + rho);
    const double ess = vi::effective_sample_size(d);
    BOOST_TEST_MESSAGE("rho " << rho << ": ESS " << ess << ", theory " << expected);
    BOOST_TEST(std::abs(ess / expected - 1.0) < 0.2,
               "ρ = " << rho << ": ESS " << ess << " vs n(1 − ρ)/(1 + ρ) = " << expected);
    BOOST_TEST(std::abs(vi::split_rhat(d) - 1.0) < 0.02);
  }
  // Strong autocorrelation: far fewer effective draws than draws, for the mean, the bulk and
  // the tails alike.
  const MatrixXd slow = ar1(5000, 4, 0.9, 12);
  BOOST_TEST(vi::effective_sample_size(slow) < 0.1 * 20000.0);
  BOOST_TEST(vi::bulk_effective_sample_size(slow) < 0.1 * 20000.0);
  BOOST_TEST(vi::tail_effective_sample_size(slow) < 0.2 * 20000.0);
}

BOOST_AUTO_TEST_CASE(pooled_quantile_interpolates_the_order_statistics) {
  // 1..9 shuffled over 3 chains: q_p = 1 + 8p.
  MatrixXd d(3, 3);
  d << 5, 1, 9, 3, 7, 2, 8, 4, 6;
  for (const double p : {0.0, 0.05, 0.5, 0.95, 1.0})
    BOOST_TEST(std::abs(vi::detail::pooled_quantile(d, p) - (1.0 + 8.0 * p)) <= 1e-14);
}

BOOST_AUTO_TEST_CASE(bad_draws_throw) {
  check_error_mentions([] { vi::split_rhat(MatrixXd(7, 4)); }, "at least 8 draws");
  check_error_mentions([] { vi::effective_sample_size(MatrixXd(20, 0)); }, "no chains");
  MatrixXd d = iid_normal(20, 2, 1);
  d(3, 1) = std::nan("");
  check_error_mentions([&] { vi::rank_normalized_rhat(d); }, "not all finite");
  check_error_mentions([] { vi::tail_effective_sample_size(MatrixXd(3, 2)); },
                       "ngvi::vi::tail_effective_sample_size: each chain needs at least 8 draws");
}

BOOST_AUTO_TEST_SUITE_END()
