// Statistics over the study's seeds (app/study/seed_statistics.hpp): the t-interval of a mean
// against values computed by hand from tabulated Student-t quantiles, and the rule that decides
// a finding at its boundaries.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <app/study/seed_statistics.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(seed_statistics_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;
using study::ClaimRule;
using study::SeedInterval;
using study::VerdictStatus;

namespace {
// A handful of floating-point operations on numbers of order one.
constexpr verify::Tolerance few_operations{1e-14, 1e-14};
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// An interval by its ends, as t_interval returns it.
SeedInterval interval(double low, double high) {
  SeedInterval s;
  s.n = 5;
  s.mean = 0.5 * (low + high);
  s.low = low;
  s.high = high;
  return s;
}
}  // namespace

// Differences {1, 2, 3, 4, 5}: mean 3, sd √2.5, and t_{0.975, 4} = 2.7764451051977987 (tables;
// e.g. R's qt(0.975, 4)), so the half-width is 2.7764451051977987·√2.5/√5 = 1.9632431614775607.
BOOST_AUTO_TEST_CASE(t_interval_of_five_differences_by_hand) {
  const SeedInterval s = study::t_interval({1.0, 2.0, 3.0, 4.0, 5.0});
  BOOST_TEST(s.n == 5u);
  NGVI_CHECK_REPORT(verify::compare(s.mean, 3.0, few_operations, "mean"));
  NGVI_CHECK_REPORT(verify::compare(s.sd, std::sqrt(2.5), few_operations, "sd"));
  NGVI_CHECK_REPORT(verify::compare(s.low, 3.0 - 1.9632431614775607, few_operations, "low"));
  NGVI_CHECK_REPORT(verify::compare(s.high, 3.0 + 1.9632431614775607, few_operations, "high"));
}

// Two seeds: t_{0.975, 1} = 12.706204736174698; values {0.5, 1.5} have mean 1 and sd √0.5, so
// the half-width is 12.706204736174698·√0.5/√2 = 6.353102368087349. A 90% interval uses
// t_{0.95, 1} = 6.313751514675043.
BOOST_AUTO_TEST_CASE(t_interval_of_two_values_and_another_level) {
  const SeedInterval s = study::t_interval({0.5, 1.5});
  NGVI_CHECK_REPORT(verify::compare(s.low, 1.0 - 6.353102368087349, few_operations, "low"));
  NGVI_CHECK_REPORT(verify::compare(s.high, 1.0 + 6.353102368087349, few_operations, "high"));
  const SeedInterval ninety = study::t_interval({0.5, 1.5}, 0.90);
  NGVI_CHECK_REPORT(verify::compare(ninety.high - ninety.mean, 0.5 * 6.313751514675043,
                                    few_operations, "90% half-width"));
}

BOOST_AUTO_TEST_CASE(one_value_has_no_interval_and_a_nan_poisons_it) {
  const SeedInterval one = study::t_interval({2.5});
  BOOST_TEST(one.mean == 2.5);
  BOOST_TEST(std::isnan(one.sd));
  BOOST_TEST(std::isnan(one.low));
  BOOST_TEST(std::isnan(one.high));
  const SeedInterval bad = study::t_interval({1.0, nan, 3.0});
  BOOST_TEST(std::isnan(bad.mean));
  BOOST_TEST(std::isnan(bad.low));
  BOOST_CHECK_THROW(study::t_interval({}), std::invalid_argument);
  BOOST_CHECK_THROW(study::t_interval({1.0, 2.0}, 1.0), std::invalid_argument);
  BOOST_CHECK_THROW(study::t_interval({1.0, 2.0}, nan), std::invalid_argument);
}

// Claim above 1 with margin 0.5: confirmed only when the whole interval is above 1.5, refuted only
// when it is all below 0.5; an interval touching a boundary is inconclusive.
BOOST_AUTO_TEST_CASE(over_seeds_rule_at_its_boundaries_claim_above) {
  const ClaimRule rule{1.0, true, 0.5};
  BOOST_TEST(to_string(rule.over_seeds(interval(1.5001, 3.0))) == "confirmed");
  BOOST_TEST(to_string(rule.over_seeds(interval(1.5, 3.0))) == "inconclusive");
  BOOST_TEST(to_string(rule.over_seeds(interval(1.2, 3.0))) == "inconclusive");
  BOOST_TEST(to_string(rule.over_seeds(interval(-1.0, 0.4999))) == "refuted");
  BOOST_TEST(to_string(rule.over_seeds(interval(-1.0, 0.5))) == "inconclusive");
  BOOST_TEST(to_string(rule.over_seeds(interval(0.6, 1.4))) == "inconclusive");
  BOOST_TEST(to_string(rule.over_seeds(interval(nan, nan))) == "inconclusive");
}

// Claim below 0.9 without a margin (a ratio against 0.9): the interval's high end
// below 0.9 confirms, its low end above 0.9 refutes.
BOOST_AUTO_TEST_CASE(over_seeds_rule_at_its_boundaries_claim_below) {
  const ClaimRule rule{0.9, false, 0.0};
  BOOST_TEST(to_string(rule.over_seeds(interval(0.2, 0.8999))) == "confirmed");
  BOOST_TEST(to_string(rule.over_seeds(interval(0.2, 0.9))) == "inconclusive");
  BOOST_TEST(to_string(rule.over_seeds(interval(0.9001, 2.0))) == "refuted");
  BOOST_TEST(to_string(rule.over_seeds(interval(0.9, 2.0))) == "inconclusive");
}

// One seed: beyond the margin on the claimed side confirms; within it (positive margin only) is
// inconclusive; otherwise refuted, as a single run was decided before seeds.
BOOST_AUTO_TEST_CASE(single_seed_rule_at_its_boundaries) {
  const ClaimRule rule{0.0, true, 0.0};
  BOOST_TEST(to_string(rule.single(0.3, 0.2)) == "confirmed");
  BOOST_TEST(to_string(rule.single(0.2, 0.2)) == "inconclusive");
  BOOST_TEST(to_string(rule.single(-0.2, 0.2)) == "inconclusive");
  BOOST_TEST(to_string(rule.single(-0.2001, 0.2)) == "refuted");
  BOOST_TEST(to_string(rule.single(1e-300, 0.0)) == "confirmed");
  BOOST_TEST(to_string(rule.single(0.0, 0.0)) == "refuted");
  BOOST_TEST(to_string(rule.single(nan, 0.0)) == "refuted");
  BOOST_TEST(rule.holds(0.3, 0.2));
  BOOST_TEST(!rule.holds(0.2, 0.2));
  const ClaimRule below{1e-6, false, 0.0};
  BOOST_TEST(below.holds(5e-7, 0.0));
  BOOST_TEST(!below.holds(2e-6, 0.0));
}

// The interval and the rule together on the hand-computed example: {1, …, 5} gives [1.037, 4.963],
// so a claim "above 0" is confirmed with margin 1 and inconclusive with margin 1.05, and a claim
// "above 6" is refuted with margin 1 (4.963 < 6 − 1) and inconclusive with margin 1.05.
BOOST_AUTO_TEST_CASE(interval_and_rule_together) {
  const SeedInterval s = study::t_interval({1.0, 2.0, 3.0, 4.0, 5.0});
  BOOST_TEST(to_string((ClaimRule{0.0, true, 1.0}).over_seeds(s)) == "confirmed");
  BOOST_TEST(to_string((ClaimRule{0.0, true, 1.05}).over_seeds(s)) == "inconclusive");
  BOOST_TEST(to_string((ClaimRule{6.0, true, 1.0}).over_seeds(s)) == "refuted");
  BOOST_TEST(to_string((ClaimRule{6.0, true, 1.05}).over_seeds(s)) == "inconclusive");
}

BOOST_AUTO_TEST_SUITE_END()
