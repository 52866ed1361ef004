// The scores of a method against the HMC reference (app/study/hmc_scores.hpp), on hand-made
// inputs whose answers are known in closed form: marginal sds that are exactly half or double
// the reference's, predictive sds scaled by known factors, means shifted by known amounts.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>
#include <app/study/hmc_scores.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(hmc_scores_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;

namespace {
// A few logarithms and sums of numbers of order one.
constexpr verify::Tolerance few_operations{1e-14, 1e-14};

Eigen::VectorXd values(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (const double x : v) out(i++) = x;
  return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(median_of_odd_and_even_counts) {
  BOOST_TEST(study::median({3.0, -1.0, 2.0}) == 2.0);
  BOOST_TEST(study::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  BOOST_TEST(study::median({7.0}) == 7.0);
  BOOST_TEST(std::isnan(study::median({1.0, std::numeric_limits<double>::quiet_NaN()})));
  BOOST_CHECK_THROW(study::median({}), std::invalid_argument);
}

// sd = ref · (½, ½, ½, 2, 4): the log-ratios are (−log 2 ×3, log 2, 2 log 2), so the median is
// −log 2 (three of five parameters are halved) while the mean is 0 — the median reports the
// typical parameter, not the few that the prior alone sets.
BOOST_AUTO_TEST_CASE(marginal_log_ratios_of_halved_and_doubled_sds) {
  const Eigen::VectorXd ref = values({0.1, 0.2, 0.4, 1.0, 3.0});
  const Eigen::VectorXd sd = ref.cwiseProduct(values({0.5, 0.5, 0.5, 2.0, 4.0}));
  NGVI_CHECK_REPORT(verify::compare(study::median_log_ratio(sd, ref), -std::log(2.0),
                                    few_operations, "median log-ratio"));
  NGVI_CHECK_REPORT(
      verify::compare(study::mean_log_ratio(sd, ref), 0.0, few_operations, "mean log-ratio"));
  BOOST_CHECK_THROW(study::median_log_ratio(sd, ref.head(4)), std::invalid_argument);
  BOOST_CHECK_THROW(study::mean_log_ratio(Eigen::VectorXd(), Eigen::VectorXd()),
                    std::invalid_argument);
}

// The same sds, ½ ½ ½ 2 4 times the reference: |log-ratios| (log 2 ×4, 2 log 2) average to
// 6 log 2 / 5, where the plain mean cancels to 0.
BOOST_AUTO_TEST_CASE(mean_absolute_log_ratio_counts_both_directions) {
  const Eigen::VectorXd ref = values({0.1, 0.2, 0.4, 1.0, 3.0});
  const Eigen::VectorXd sd = ref.cwiseProduct(values({0.5, 0.5, 0.5, 2.0, 4.0}));
  NGVI_CHECK_REPORT(verify::compare(study::mean_abs_log_ratio(sd, ref), 1.2 * std::log(2.0),
                                    few_operations, "mean |log-ratio|"));
  NGVI_CHECK_REPORT(verify::compare(study::mean_abs_log_ratio(ref, ref), 0.0, few_operations,
                                    "mean |log-ratio| of equal sds"));
  BOOST_CHECK_THROW(study::mean_abs_log_ratio(sd, ref.head(2)), std::invalid_argument);
}

// Predictive means off by (3, −4) at two points: RMS √((9 + 16)/2) = √12.5.
BOOST_AUTO_TEST_CASE(rms_difference_of_shifted_means) {
  NGVI_CHECK_REPORT(verify::compare(study::rms_difference(values({4.0, -3.0}), values({1.0, 1.0})),
                                    std::sqrt(12.5), few_operations, "RMS difference"));
  BOOST_CHECK_THROW(study::rms_difference(values({1.0}), values({1.0, 2.0})),
                    std::invalid_argument);
}

// A whole method record against a reference: marginals all at e^{−0.3} of the reference's, the
// predictive sd at the three points e^{−1}, e^{−0.5} and 1 times HMC's (mean log-ratio −0.5), the
// means off by 0.3 at one point of three (RMS 0.3/√3).
BOOST_AUTO_TEST_CASE(scores_of_a_record_against_a_reference) {
  study::HmcReference h;
  h.sd = values({0.5, 1.0, 2.0, 0.25});
  h.at_points.mean = values({0.1, 0.2, 0.3});
  h.at_points.spread = values({0.2, 0.4, 0.6});
  study::MethodRecord m;
  m.name = "von_diagonal";
  m.marginal_sd = std::exp(-0.3) * h.sd;
  BOOST_CHECK_THROW(study::score_against_hmc(m, h), std::invalid_argument);  // no predictive
  study::GridPredictive g;
  g.mean = values({0.1, 0.5, 0.3});
  g.spread = h.at_points.spread.cwiseProduct(values({std::exp(-1.0), std::exp(-0.5), 1.0}));
  m.at_points = g;
  const study::HmcScores s = study::score_against_hmc(m, h);
  NGVI_CHECK_REPORT(
      verify::compare(s.sd_log_ratio_median, -0.3, few_operations, "median log sd-ratio"));
  NGVI_CHECK_REPORT(
      verify::compare(s.point_sd_log_ratio, -0.5, few_operations, "predictive sd log-ratio"));
  NGVI_CHECK_REPORT(verify::compare(s.point_mean_error, 0.3 / std::sqrt(3.0), few_operations,
                                    "predictive mean RMS difference"));
}

// A last-layer posterior over positions {3, 1} of four: its sds are 0 elsewhere (over all four the
// median of the log-ratios would be −∞), and on S they are e^{0.7} and e^{0.1} times the
// reference's, so the median over S is the mean of the two, 0.4.
BOOST_AUTO_TEST_CASE(a_subnetwork_is_scored_on_its_own_parameters) {
  study::HmcReference h;
  h.sd = values({0.5, 1.0, 2.0, 0.25});
  h.at_points.mean = values({0.1});
  h.at_points.spread = values({0.2});
  study::MethodRecord m;
  m.name = "map_last_layer_laplace";
  m.marginal_sd = values({0.0, std::exp(0.1) * 1.0, 0.0, std::exp(0.7) * 0.25});
  m.subnetwork = {3, 1};
  study::GridPredictive g;
  g.mean = values({0.1});
  g.spread = values({0.2});
  m.at_points = g;
  NGVI_CHECK_REPORT(verify::compare(study::score_against_hmc(m, h).sd_log_ratio_median, 0.4,
                                    few_operations, "median log sd-ratio over S"));
  m.subnetwork = {3, 4};
  BOOST_CHECK_THROW(study::score_against_hmc(m, h), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
