// The study's fit-health rule (app/study/fit_health.hpp): the no-skill predictive's test
// log-likelihood against Boost.Math's normal and Bernoulli densities, and each fit's health
// from its status and test log-likelihood.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/Core>
#include <app/study/fit_health.hpp>
#include <boost/math/distributions/bernoulli.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(fit_health_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;
using Eigen::VectorXd;

namespace {
constexpr verify::Tolerance round_off{1e-13, 1e-13};
}

BOOST_AUTO_TEST_CASE(no_skill_predictive_against_boost_densities) {
  const VectorXd train = (VectorXd(5) << 1.0, 2.0, 4.0, 0.5, 2.5).finished();
  const VectorXd test = (VectorXd(3) << 3.0, -1.0, 2.0).finished();
  // N(ȳ, s²) with the sample variance; standardised targets with scale 2 lose log 2.
  const double mean = train.mean();
  const double sd = std::sqrt((train.array() - mean).square().sum() / 4.0);
  const boost::math::normal normal(mean, sd);
  double expected = 0.0;
  for (const double y : test) expected += std::log(boost::math::pdf(normal, y)) / 3.0;
  NGVI_CHECK_REPORT(verify::compare(study::no_skill_log_likelihood(train, test, false), expected,
                                    round_off, "regression"));
  NGVI_CHECK_REPORT(
      verify::compare(study::no_skill_log_likelihood(train, test, false, std::log(2.0)),
                      expected - std::log(2.0), round_off, "standardised"));
  // Labels: Laplace's rule p = (Σy + 1)/(N + 2) = 3/6.
  const VectorXd labels = (VectorXd(4) << 1.0, 0.0, 1.0, 0.0).finished();
  const VectorXd test_labels = (VectorXd(3) << 1.0, 1.0, 0.0).finished();
  const boost::math::bernoulli bernoulli(0.5);
  double expected_c = 0.0;
  for (const double y : test_labels) expected_c += std::log(boost::math::pdf(bernoulli, y)) / 3.0;
  NGVI_CHECK_REPORT(verify::compare(study::no_skill_log_likelihood(labels, test_labels, true),
                                    expected_c, round_off, "classification"));
  BOOST_CHECK_THROW(study::no_skill_log_likelihood(VectorXd::Ones(1), test, false),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(health_from_status_and_test_log_likelihood) {
  study::MethodRecord m;
  m.status = "finished";
  m.test_log_likelihood = -0.5;
  study::assess_health(m, -1.4);
  BOOST_TEST(m.health == "ok");
  BOOST_TEST(m.health_reason.empty());
  m.test_log_likelihood = -28.6;
  study::assess_health(m, -1.4);
  BOOST_TEST(m.health == "poor");
  BOOST_TEST(m.health_reason.find("-28.6") != std::string::npos, m.health_reason);
  m.test_log_likelihood = std::numeric_limits<double>::quiet_NaN();
  study::assess_health(m, -1.4);
  BOOST_TEST(m.health == "diverged");
  m.status = "failed";
  m.message = "vogn: the fit diverged at iteration 7";
  m.test_log_likelihood = -0.5;
  study::assess_health(m, -1.4);
  BOOST_TEST(m.health == "diverged");
  BOOST_TEST(m.health_reason == m.message);
}

BOOST_AUTO_TEST_SUITE_END()
