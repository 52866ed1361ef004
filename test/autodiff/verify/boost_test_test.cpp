// Tests of autodiff/verify/boost_test.hpp: the one-line verification macros pass on a correct
// model, and fail — through Boost.Test's own error count — on a model whose AD derivative is
// deliberately wrong, with a message that names the worst component and both values.
#include <cmath>
#include <string>

#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/boost_test.hpp>

#include <support/wrong_derivative_models.hpp>

BOOST_AUTO_TEST_SUITE(boost_test_test)

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;

using namespace ngvi::test::wrong_derivative_models;

// The number of failed assertions recorded so far in the running test case.
unsigned long failures_so_far() {
  namespace ut = boost::unit_test;
  return ut::results_collector.results(ut::framework::current_test_case().p_id).p_assertions_failed;
}

BOOST_AUTO_TEST_CASE(macros_pass_on_a_correct_model) {
  const Eigen::VectorXd x = point();
  NGVI_CHECK_GRADIENT(good_model, x);
  NGVI_CHECK_HVP(good_model, x, Eigen::Vector3d(1.0, -0.5, 0.25));
  NGVI_CHECK_HESSIAN(good_model, x);
  NGVI_CHECK_DERIVATIVES(good_model, x);
  NGVI_REQUIRE_DERIVATIVES(good_model, x);
  // A lambda written inside the macro, commas and all, passes through.
  NGVI_CHECK_GRADIENT([](const auto& y) { return decltype(y.sum())(ad::sin(y(0)) * y(1)); }, x);
}

// The predicate under the macros: the report of a wrong derivative fails, and the message
// names the macro call, the worst component and both values.
BOOST_AUTO_TEST_CASE(predicate_fails_on_a_wrong_derivative) {
  const Eigen::VectorXd x = point();
  const vf::CheckReport g = vf::check_gradient(wrong_gradient, x);
  BOOST_TEST(!g.passed);
  BOOST_TEST(g.worst_row == 1);
  // AD: 2·x_1 + 0.01; finite differences of the double function: 2·x_1.
  BOOST_TEST(std::abs(g.computed_at_worst - (2.0 * x(1) + 0.01)) < 1e-12);
  BOOST_TEST(std::abs(g.reference_at_worst - 2.0 * x(1)) < 1e-6);
  const std::string msg = vf::failure_message(g, "NGVI_CHECK_GRADIENT(wrong_gradient, x)");
  BOOST_TEST(msg.find("NGVI_CHECK_GRADIENT(wrong_gradient, x) failed") == 0u, msg);
  const std::string worst = "worst component [1] computed " +
                            vf::detail::fmt_g(g.computed_at_worst, 17) + " vs reference " +
                            vf::detail::fmt_g(g.reference_at_worst, 17);
  BOOST_TEST(msg.find(worst) != std::string::npos, msg);
  BOOST_TEST(vf::check_gradient(wrong_hessian, x).passed);
  const vf::CheckReport h = vf::check_hessian(wrong_hessian, x);
  BOOST_TEST(!h.passed);
  BOOST_TEST(h.worst_row == 1);
  BOOST_TEST(h.worst_col == 1);
  BOOST_TEST(std::abs(h.computed_at_worst - (2.0 + 0.06 * x(1))) < 1e-12);
  BOOST_TEST(!vf::check_hvp(wrong_hessian, x, direction()).passed);
  BOOST_TEST(!vf::check_derivatives(wrong_hessian, x).passed);
}

// The macros themselves: each must record exactly one Boost.Test failure here. The case
// expects those failures (expected_failures), and turns a macro that stays silent into more
// failures than expected, so that it cannot pass unless every macro failed. The NGVI_REQUIRE_
// variants differ only in the Boost level (REQUIRE for CHECK); they are not failed here,
// because Boost.Test marks a case whose REQUIRE failed as aborted, which no expected_failures
// count absorbs.
constexpr unsigned long wrong_macros = 4;
BOOST_AUTO_TEST_CASE(macros_fail_on_a_wrong_derivative,
                     *boost::unit_test::expected_failures(wrong_macros)) {
  const Eigen::VectorXd x = point();
  const Eigen::VectorXd v = direction();
  unsigned long silent = 0;
  const auto count = [&silent](unsigned long before) {
    silent += failures_so_far() == before ? 1 : 0;
  };
  unsigned long before = failures_so_far();
  NGVI_CHECK_GRADIENT(wrong_gradient, x);
  count(before);
  before = failures_so_far();
  NGVI_CHECK_HVP(wrong_hessian, x, v);
  count(before);
  before = failures_so_far();
  NGVI_CHECK_HESSIAN(wrong_hessian, x);
  count(before);
  before = failures_so_far();
  NGVI_CHECK_DERIVATIVES(wrong_hessian, x);
  count(before);
  if (silent > 0) {
    // One failure per silent macro would be absorbed by expected_failures; exceed it instead.
    for (unsigned long i = 0; i <= wrong_macros; ++i)
      BOOST_ERROR("a verification macro did not fail on a wrong derivative (" << silent
                                                                              << " silent)");
  }
}

BOOST_AUTO_TEST_SUITE_END()
