// The mixture predictive of an ensemble: three Gaussian members on four test points, the
// mixture's log density against the sum of the members' densities computed here directly, its
// mean and variance against numerical integration of that density (composite Simpson's rule on
// a wide grid), its RMSE against the residuals of that mean; log-mean-exp far below exp's range;
// one member is itself; and bad input.
#include <cmath>
#include <initializer_list>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/mixture_predictive.hpp>
#include <inference/predictive.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(mixture_predictive_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::check_error_mentions;

namespace {

VectorXd vec(std::initializer_list<double> v) {
  VectorXd x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (const double e : v) x(i++) = e;
  return x;
}

double normal_density(double y, double mean, double variance) {
  return std::exp(-0.5 * (y - mean) * (y - mean) / variance) /
         std::sqrt(2.0 * std::numbers::pi * variance);
}

// A Gaussian member's predictive N(mean, variance) scored at y.
vi::RegressionPredictive gaussian_member(const VectorXd& mean, const VectorXd& variance,
                                         const VectorXd& y) {
  vi::RegressionPredictive r;
  r.mean = mean;
  r.variance = variance;
  r.log_likelihood.resize(y.size());
  for (Eigen::Index i = 0; i < y.size(); ++i)
    r.log_likelihood(i) = std::log(normal_density(y(i), mean(i), variance(i)));
  r.test_log_likelihood = r.log_likelihood.mean();
  r.rmse = std::sqrt((y - mean).squaredNorm() / static_cast<double>(y.size()));
  return r;
}

struct ThreeMembers {
  VectorXd y{{0.3, -1.2, 2.5, 0.0}};
  std::vector<VectorXd> means{vec({0.0, -1.0, 2.0, 0.5}), vec({0.5, -2.0, 3.0, -0.5}),
                              vec({1.0, -1.5, 1.0, 0.2})};
  std::vector<VectorXd> variances{vec({1.0, 0.5, 2.0, 0.3}), vec({0.8, 1.5, 0.4, 0.6}),
                                  vec({0.2, 0.9, 1.1, 2.5})};
  std::vector<vi::RegressionPredictive> members() const {
    std::vector<vi::RegressionPredictive> m;
    for (std::size_t k = 0; k < means.size(); ++k)
      m.push_back(gaussian_member(means[k], variances[k], y));
    return m;
  }
  double density(Eigen::Index i, double at) const {
    double p = 0.0;
    for (std::size_t k = 0; k < means.size(); ++k)
      p += normal_density(at, means[k](i), variances[k](i)) / static_cast<double>(means.size());
    return p;
  }
  // ∫ atᵖ·density(i, at) d(at) over ±20 around 0 by composite Simpson's rule.
  double moment(Eigen::Index i, int power) const {
    constexpr int intervals = 20000;
    constexpr double lo = -20.0, hi = 20.0, h = (hi - lo) / intervals;
    double s = 0.0;
    for (int j = 0; j <= intervals; ++j) {
      const double at = lo + j * h;
      const double w = (j == 0 || j == intervals) ? 1.0 : (j % 2 ? 4.0 : 2.0);
      s += w * std::pow(at, power) * density(i, at);
    }
    return s * h / 3.0;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(mixture_matches_the_density_and_its_moments) {
  const ThreeMembers t;
  const vi::RegressionPredictive r = vi::mixture_regression_predictive(t.members(), t.y);
  double squared_error = 0.0;
  for (Eigen::Index i = 0; i < t.y.size(); ++i) {
    NGVI_CHECK_REPORT(compare(r.log_likelihood(i), std::log(t.density(i, t.y(i))), tol::closed_form,
                              "log p(y) against the summed densities"));
    const double mean = t.moment(i, 1);
    NGVI_CHECK_REPORT(compare(r.mean(i, 0), mean, tol::quadrature, "mean against quadrature"));
    NGVI_CHECK_REPORT(compare(r.variance(i, 0), t.moment(i, 2) - mean * mean, tol::quadrature,
                              "variance against quadrature"));
    NGVI_CHECK_REPORT(compare(t.moment(i, 0), 1.0, tol::quadrature, "the density integrates to 1"));
    squared_error += (t.y(i) - mean) * (t.y(i) - mean);
  }
  NGVI_CHECK_REPORT(compare(r.test_log_likelihood, r.log_likelihood.mean(), tol::closed_form,
                            "test log-likelihood is the mean"));
  NGVI_CHECK_REPORT(
      compare(r.rmse, std::sqrt(squared_error / 4.0), tol::quadrature, "RMSE of the mixture mean"));
}

BOOST_AUTO_TEST_CASE(log_densities_far_below_exps_range_stay_finite) {
  vi::RegressionPredictive a, b;
  a.mean = b.mean = MatrixXd::Zero(1, 1);
  a.variance = b.variance = MatrixXd::Ones(1, 1);
  a.log_likelihood = VectorXd::Constant(1, -1000.0);
  b.log_likelihood = VectorXd::Constant(1, -1001.0);
  const std::vector<vi::RegressionPredictive> m{a, b};
  const vi::RegressionPredictive r = vi::mixture_regression_predictive(m, MatrixXd::Zero(1, 1));
  NGVI_CHECK_REPORT(compare(r.test_log_likelihood, -1000.0 + std::log((1.0 + std::exp(-1.0)) / 2.0),
                            tol::closed_form, "log-mean-exp of −1000 and −1001"));
}

BOOST_AUTO_TEST_CASE(one_member_is_itself) {
  const ThreeMembers t;
  const std::vector<vi::RegressionPredictive> one{t.members().front()};
  const vi::RegressionPredictive r = vi::mixture_regression_predictive(one, t.y);
  BOOST_TEST((r.mean == one.front().mean));
  BOOST_TEST((r.variance == one.front().variance));
  BOOST_TEST((r.log_likelihood == one.front().log_likelihood));
  NGVI_CHECK_REPORT(
      compare(r.rmse, one.front().rmse, tol::closed_form, "RMSE of one member is its own"));
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
  const ThreeMembers t;
  check_error_mentions(
      [&] {
        (void)vi::mixture_regression_predictive(std::vector<vi::RegressionPredictive>{}, t.y);
      },
      "mixture_regression_predictive: no members");
  check_error_mentions([&] { (void)vi::mixture_regression_predictive(t.members(), MatrixXd()); },
                       "no test targets");
  std::vector<vi::RegressionPredictive> m = t.members();
  m[1].log_likelihood.resize(3);
  check_error_mentions([&] { (void)vi::mixture_regression_predictive(m, t.y); },
                       "member 1 has a 4x1 mean, a 4x1 variance and 3 log densities; the targets "
                       "are 4x1");
}

BOOST_AUTO_TEST_SUITE_END()
