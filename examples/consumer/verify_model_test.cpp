// Downstream-user check: a Boost.Test verification test of the user's own model, written with
// the macros the installed package ships (autodiff/verify/boost_test.hpp).
//
// The model is a small Poisson regression with a log link and a Gaussian prior,
//   f(θ) = Σ_i [exp(a_i·θ) − y_i a_i·θ + lgamma(y_i + 1)] + ½|θ|²,
// written once in ad:: functions, so it runs on double, Var<double> and Var<Dual>. Each macro
// checks the AD derivative against finite differences (and AD against AD) and, on failure,
// prints the worst component with both values. Uses Boost.Test's header-only variant, so the
// consumer needs no Boost library beyond the headers ngvi already requires.
#define BOOST_TEST_MODULE ngvi_consumer_verify
#include <cmath>

#include <Eigen/Core>
#include <boost/test/included/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/boost_test.hpp>

namespace {

namespace ad = ngvi::ad;

const auto poisson_loss = [](const auto& theta) {
  using T = typename std::decay_t<decltype(theta)>::Scalar;
  constexpr int n = 6;
  T total = 0.5 * theta.squaredNorm();
  for (int i = 0; i < n; ++i) {
    const double a0 = 1.0, a1 = 0.3 * i - 0.8, a2 = 0.1 * i * i - 0.5;
    const double y = double((3 * i + 1) % 4);
    const T eta = a0 * theta(0) + a1 * theta(1) + a2 * theta(2);
    total += ad::exp(eta) - y * eta + ad::lgamma(y + 1.0);
  }
  return total;
};

}  // namespace

BOOST_AUTO_TEST_CASE(poisson_regression_derivatives) {
  const Eigen::Vector3d theta(0.2, -0.4, 0.3);
  NGVI_CHECK_GRADIENT(poisson_loss, theta);
  NGVI_CHECK_HVP(poisson_loss, theta, Eigen::Vector3d(1.0, 0.5, -0.25));
  NGVI_CHECK_HESSIAN(poisson_loss, theta);
}

BOOST_AUTO_TEST_CASE(value_on_double_is_the_closed_form) {
  // ad::exp and ad::lgamma on plain numbers are <cmath>'s.
  const Eigen::Vector3d theta = Eigen::Vector3d::Zero();
  double expected = 0.0;
  for (int i = 0; i < 6; ++i) expected += 1.0 + std::lgamma(double((3 * i + 1) % 4) + 1.0);
  const auto report = ngvi::ad::verify::compare(poisson_loss(theta), expected,
                                                ngvi::ad::verify::tolerances::closed_form,
                                                "loss at 0 vs closed form");
  BOOST_TEST(report.passed, report.to_string());
}
