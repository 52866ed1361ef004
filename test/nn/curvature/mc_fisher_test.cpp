// Tests of nn/curvature/mc_fisher.hpp: the Monte-Carlo true Fisher with targets sampled from
// the model. Its Jacobian route against the literal per-sample gradients through the whole
// network (same targets); determinism (threads, repeated calls, seeds); and convergence to the
// generalized Gauss-Newton for exponential-family likelihoods at the 1/√S rate, checked by
// the slope of log error against log S.
//
// Minibatch overloads (ExampleIndices): against the literal sampled-target gradients of all N
// examples picked at idx (the targets depend on the global index only), a permuted idx, threads.
#include <cmath>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <nn/curvature/ggn.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/curvature/mc_fisher.hpp>

#include <support/check_report.hpp>
#include <support/curvature_fixtures.hpp>
#include <support/curvature_routes.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(mc_fisher_test)

namespace {

using namespace ngvi;
namespace tol = ad::verify::tolerances;
using ad::verify::compare;

constexpr ad::verify::Tolerance reordered_sum = tol::ad_vs_ad.scaled(10.0);

// The fitted slope of log RMS error vs log S must be within this of −1/2. The RMS over 8
// seeds of a squared Frobenius error that itself sums hundreds of entries has a relative
// spread of a few percent, i.e. ±0.02 in each log error, ±0.02 in a slope fitted over 2.4
// decades of S; 0.08 leaves margin, yet rejects a biased estimator (slope → 0 once the bias
// dominates) or one that converges at another rate (−1 or −1/4).
constexpr double rate_tolerance = 0.08;

// Least-squares slope of y against x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sx += x[k];
    sy += y[k];
    sxx += x[k] * x[k];
    sxy += x[k] * y[k];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// Fits log(RMS over seeds of ‖F̃_S − G‖_F / ‖G‖_F) against log S; returns the slope and
// writes the error at the largest S.
template <class Model>
double convergence_slope(const Model& m, const Eigen::VectorXd& theta, double* last_error) {
  const Eigen::MatrixXd G = nn::ggn(m, theta);
  std::vector<double> log_s, log_err;
  for (int S : {4, 16, 64, 256, 1024}) {
    double sq = 0.0;
    const int seeds = 8;
    for (int seed = 0; seed < seeds; ++seed) {
      nn::MonteCarloFisherOptions o;
      o.samples = S;
      o.seed = 1000u + static_cast<std::uint64_t>(seed);
      const double e = (nn::mc_fisher(m, theta, o) - G).norm() / G.norm();
      sq += e * e;
    }
    const double rms = std::sqrt(sq / seeds);
    BOOST_TEST_MESSAGE("S = " << S << ": RMS relative error " << rms);
    log_s.push_back(std::log(static_cast<double>(S)));
    log_err.push_back(std::log(rms));
    if (last_error) *last_error = rms;
  }
  return slope(log_s, log_err);
}

}  // namespace

BOOST_AUTO_TEST_CASE(jacobian_route_equals_literal_sampled_gradients) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 3}, nn::SoftmaxCategorical(3), 14, 41, &theta);
  nn::MonteCarloFisherOptions o;
  o.samples = 5;
  o.seed = 7;
  const ad::RowMatrixXd G = nn::sampled_target_gradients(m, theta, o);
  BOOST_TEST_REQUIRE(G.rows() == 14 * 5);
  const Eigen::MatrixXd ref = G.transpose() * G / 5.0;
  const Eigen::MatrixXd F = nn::mc_fisher(m, theta, o);
  NGVI_CHECK_REPORT(compare(F, ref, reordered_sum,
                            "Σ Jᵀ(1/S Σ rrᵀ)J vs 1/S Σ gᵢₛgᵢₛᵀ through the whole network"));
  NGVI_CHECK_REPORT(compare(nn::mc_fisher_diagonal(m, theta, o), Eigen::VectorXd(F.diagonal()),
                            reordered_sum, "mc_fisher_diagonal vs diag(mc_fisher)"));
}

BOOST_AUTO_TEST_CASE(deterministic_for_threads_calls_and_seed) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 50, 42, &theta);
  const nn::MonteCarloFisherOptions one{.samples = 3, .seed = 5, .threads = 1, .grain = 1},
      two{.samples = 3, .seed = 5, .threads = 2, .grain = 1};
  const Eigen::MatrixXd F1 = nn::mc_fisher(m, theta, one);
  NGVI_CHECK_REPORT(compare(nn::mc_fisher(m, theta, two), F1, tol::exact, "2 threads vs 1"));
  NGVI_CHECK_REPORT(compare(nn::mc_fisher(m, theta, one), F1, tol::exact, "repeated call"));
  NGVI_CHECK_REPORT(compare(nn::sampled_target_gradients(m, theta, two),
                            nn::sampled_target_gradients(m, theta, one), tol::exact,
                            "sampled-target gradients, 2 threads vs 1"));
  // Another seed or stream draws other targets (for Bernoulli targets, 150 draws all equal
  // would have probability < 1e-20 here).
  nn::MonteCarloFisherOptions other = one;
  other.seed = 6;
  BOOST_TEST((nn::mc_fisher(m, theta, other) - F1).norm() > 1e-3 * F1.norm());
  other = one;
  other.stream = 1;
  BOOST_TEST((nn::mc_fisher(m, theta, other) - F1).norm() > 1e-3 * F1.norm());
}

BOOST_AUTO_TEST_CASE(converges_to_ggn_at_rate_one_over_sqrt_s_bernoulli) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 30, 43, &theta);
  double last = 0.0;
  const double s = convergence_slope(m, theta, &last);
  BOOST_TEST_MESSAGE("Bernoulli-logit: slope " << s);
  BOOST_TEST(std::abs(s + 0.5) < rate_tolerance, "slope " << s << " vs −1/2");
  BOOST_TEST(last < 0.1);
}

BOOST_AUTO_TEST_CASE(converges_to_ggn_at_rate_one_over_sqrt_s_gaussian) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 2}, nn::GaussianFixedNoise(2.0, 2), 30, 44, &theta);
  double last = 0.0;
  const double s = convergence_slope(m, theta, &last);
  BOOST_TEST_MESSAGE("Gaussian: slope " << s);
  BOOST_TEST(std::abs(s + 0.5) < rate_tolerance, "slope " << s << " vs −1/2");
  BOOST_TEST(last < 0.1);
}

BOOST_AUTO_TEST_CASE(converges_to_ggn_at_rate_one_over_sqrt_s_softmax) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 3}, nn::SoftmaxCategorical(3), 30, 45, &theta);
  double last = 0.0;
  const double s = convergence_slope(m, theta, &last);
  BOOST_TEST_MESSAGE("softmax: slope " << s);
  BOOST_TEST(std::abs(s + 0.5) < rate_tolerance, "slope " << s << " vs −1/2");
  BOOST_TEST(last < 0.1);
}

BOOST_AUTO_TEST_CASE(does_not_converge_to_the_hessian_of_an_mlp) {
  // The rate test must be able to fail: against the exact Hessian (≠ GGN for an MLP) the
  // error stalls at the GGN-Hessian gap, so the fitted slope is far from −1/2.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 30, 43, &theta);
  const Eigen::MatrixXd H = nn::exact_hessian_by_examples(m, theta);
  std::vector<double> log_s, log_err;
  for (int S : {4, 64, 1024}) {
    nn::MonteCarloFisherOptions o;
    o.samples = S;
    o.seed = 1000;
    log_s.push_back(std::log(static_cast<double>(S)));
    log_err.push_back(std::log((nn::mc_fisher(m, theta, o) - H).norm() / H.norm()));
  }
  BOOST_TEST(std::abs(slope(log_s, log_err) + 0.5) > 3 * rate_tolerance);
}

BOOST_AUTO_TEST_CASE(bad_options_throw) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 1}, nn::BernoulliLogit(), 5, 46, &theta);
  nn::MonteCarloFisherOptions o;
  o.samples = 0;
  BOOST_CHECK_THROW(nn::mc_fisher(m, theta, o), std::invalid_argument);
  BOOST_CHECK_THROW(nn::mc_fisher_diagonal(m, theta, o), std::invalid_argument);
  BOOST_CHECK_THROW(nn::sampled_target_gradients(m, theta, o), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(minibatch_draws_by_global_index) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 2}, nn::GaussianFixedNoise(1.5, 2), 13, 81, &theta);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(13);
  const nn::MonteCarloFisherOptions one{.samples = 3, .seed = 5, .threads = 1, .grain = 3},
      two{.samples = 3, .seed = 5, .threads = 2, .grain = 3};
  const Eigen::MatrixXd F = nn::mc_fisher(m, theta, idx, one);
  // Literal route on all N examples; example i's rows i·S .. i·S+S−1 use i's own stream.
  const ad::RowMatrixXd Gall = nn::sampled_target_gradients(m, theta, one);
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(theta.size(), theta.size());
  Eigen::VectorXd dref = Eigen::VectorXd::Zero(theta.size());
  ad::RowMatrixXd picked(static_cast<Eigen::Index>(idx.size()) * 3, theta.size());
  for (std::size_t k = 0; k < idx.size(); ++k)
    for (Eigen::Index s = 0; s < 3; ++s) {
      const auto g = Gall.row(idx[k] * 3 + s);
      picked.row(static_cast<Eigen::Index>(k) * 3 + s) = g;
      ref += g.transpose() * g / 3.0;
      dref += g.transpose().cwiseAbs2() / 3.0;
    }
  NGVI_CHECK_REPORT(
      compare(F, ref, reordered_sum, "mc_fisher(idx) vs literal sampled-target gradients at idx"));
  NGVI_CHECK_REPORT(compare(nn::mc_fisher_diagonal(m, theta, idx, one), dref, reordered_sum,
                            "mc_fisher_diagonal(idx) vs literal sampled-target gradients at idx"));
  NGVI_CHECK_REPORT(compare(nn::sampled_target_gradients(m, theta, idx, one), picked, tol::ad_vs_ad,
                            "sampled_target_gradients(idx) vs rows of the all-N version"));
  std::vector<Eigen::Index> reversed(idx.rbegin(), idx.rend());
  NGVI_CHECK_REPORT(compare(nn::mc_fisher(m, theta, reversed, one), F, reordered_sum,
                            "mc_fisher does not depend on the position of an example in idx"));
  NGVI_CHECK_REPORT(
      compare(nn::mc_fisher(m, theta, idx, two), F, tol::exact, "mc_fisher(idx), 2 vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::mc_fisher_diagonal(m, theta, idx, two),
                            nn::mc_fisher_diagonal(m, theta, idx, one), tol::exact,
                            "mc_fisher_diagonal(idx), 2 vs 1 thread"));
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::mc_fisher(m, theta, bad); }, 13, "mc_fisher");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::mc_fisher_diagonal(m, theta, bad); }, 13,
      "mc_fisher_diagonal");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::sampled_target_gradients(m, theta, bad); }, 13,
      "sampled_target_gradients");
}

// The batched route against the generic one on the same model (test::GenericRoute): the same
// seed draws the same targets (they depend on fᵢ and the example's global index only), so the
// two must agree to rounding; the same bits for 1, 2 and 3 threads.
template <class Model>
void check_mc_routes(const Model& m, const Eigen::VectorXd& theta, const std::string& what) {
  const auto options = [](int threads) {
    return nn::MonteCarloFisherOptions{.samples = 3, .seed = 17, .threads = threads, .grain = 3};
  };
  test::check_batched_route(m, what + ", full",
                            [&](const auto& model, nn::ExampleIndices idx, int t) {
                              return idx.empty() ? nn::mc_fisher(model, theta, options(t))
                                                 : nn::mc_fisher(model, theta, idx, options(t));
                            });
  test::check_batched_route(
      m, what + ", diagonal", [&](const auto& model, nn::ExampleIndices idx, int t) {
        return idx.empty() ? nn::mc_fisher_diagonal(model, theta, options(t))
                           : nn::mc_fisher_diagonal(model, theta, idx, options(t));
      });
}

BOOST_AUTO_TEST_CASE(batched_route_matches_generic_route) {
  test::for_each_route_model(81, [](const auto& m, const Eigen::VectorXd& theta,
                                    const std::string& what) { check_mc_routes(m, theta, what); });
}

BOOST_AUTO_TEST_SUITE_END()
