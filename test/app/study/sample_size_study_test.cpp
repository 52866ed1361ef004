// The statistic of the finding "the Monte-Carlo error at the fixed point falls as 1/√S"
// (app/study/sample_size_study.hpp): the least-squares slope of log e(S) on log S on hand-built
// errors whose slope is known, and the rule of study_verdicts.hpp deciding it over seeds.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <app/study/sample_size_study.hpp>
#include <app/study/seed_statistics.hpp>
#include <app/study/study_verdicts.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(sample_size_study_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;

namespace {
// Logarithms and sums of a few numbers of order one.
constexpr verify::Tolerance few_operations{1e-13, 1e-13};

const std::vector<int> sizes = {1, 4, 16, 64};

// e(S) = c · S^b · exp(r_k): log e = log c + b log S + r_k.
std::vector<double> errors(double c, double b, const std::vector<double>& residual) {
  std::vector<double> e;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    e.push_back(c * std::pow(static_cast<double>(sizes[k]), b) * std::exp(residual[k]));
  return e;
}
}  // namespace

BOOST_AUTO_TEST_CASE(errors_proportional_to_one_over_root_s) {
  NGVI_CHECK_REPORT(verify::compare(study::log_log_slope(sizes, errors(3.0, -0.5, {0, 0, 0, 0})),
                                    -0.5, few_operations, "slope of 3/√S"));
}

// log S = (0, 2, 4, 6)·log 2, centred (−3, −1, 1, 3)·log 2; residuals ∝ (1, −1, −1, 1) are
// orthogonal to it and to the constant, so least squares recovers the slope b exactly, though
// no point lies on the line.
BOOST_AUTO_TEST_CASE(residuals_orthogonal_to_the_line_leave_the_slope) {
  NGVI_CHECK_REPORT(
      verify::compare(study::log_log_slope(sizes, errors(0.02, -0.37, {0.2, -0.2, -0.2, 0.2})),
                      -0.37, few_operations, "slope with orthogonal residuals"));
  // A residual along log S itself adds to the slope: +0.1·(−3, −1, 1, 3)·log 2 adds 0.1.
  const double l2 = std::log(2.0);
  NGVI_CHECK_REPORT(verify::compare(
      study::log_log_slope(sizes, errors(1.0, -0.5, {-0.3 * l2, -0.1 * l2, 0.1 * l2, 0.3 * l2})),
      -0.4, few_operations, "slope with a residual along log S"));
}

BOOST_AUTO_TEST_CASE(a_missing_error_gives_nan_and_bad_input_throws) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  BOOST_TEST(std::isnan(study::log_log_slope(sizes, {1.0, 0.5, nan, 0.1})));
  BOOST_TEST(std::isnan(study::log_log_slope(sizes, {1.0, 0.5, 0.0, 0.1})));
  BOOST_CHECK_THROW(study::log_log_slope(sizes, {1.0, 0.5}), std::invalid_argument);
  BOOST_CHECK_THROW(study::log_log_slope({1}, {1.0}), std::invalid_argument);
  BOOST_CHECK_THROW(study::log_log_slope({0, 4}, {1.0, 0.5}), std::invalid_argument);
  BOOST_CHECK_THROW(study::log_log_slope({4, 4}, {1.0, 0.5}), std::invalid_argument);
}

// Over three seeds, slopes near −½ confirm the finding, errors that do not fall refute it, and
// slopes around the threshold leave it undecided (the rule fixed in study_verdicts.hpp).
BOOST_AUTO_TEST_CASE(the_rule_decides_hand_built_seeds) {
  const study::ClaimRule rule{study::sample_size_slope_threshold, false,
                              study::sample_size_slope_margin};
  auto decide = [&](double b0, double b1, double b2) {
    std::vector<double> slopes;
    for (const double b : {b0, b1, b2})
      slopes.push_back(study::log_log_slope(sizes, errors(0.1, b, {0.05, -0.05, -0.05, 0.05})));
    return std::string(study::to_string(rule.over_seeds(study::t_interval(slopes))));
  };
  BOOST_TEST(decide(-0.52, -0.48, -0.5) == "confirmed");
  BOOST_TEST(decide(0.01, -0.02, 0.0) == "refuted");
  BOOST_TEST(decide(-0.3, -0.2, -0.25) == "inconclusive");
}

BOOST_AUTO_TEST_SUITE_END()
