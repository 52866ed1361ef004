// Tests of autodiff/eigen/log_softmax.hpp: against x − log_sum_exp(x) written with scalar
// expressions, finite differences, and the identity Σ exp(log_softmax(x)) = 1, also where
// exp(x) overflows.
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

}  // namespace

BOOST_AUTO_TEST_SUITE(log_softmax_test)

BOOST_AUTO_TEST_CASE(matches_scalar_route_and_finite_differences) {
  const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(5, 0.5, 2.5);
  auto fused = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    const Vec<T> y = ad::log_softmax(x);
    T s = 0.0;
    for (Eigen::Index i = 0; i < y.size(); ++i) s += w(i) * y(i) + y(i) * y(i);
    return s;
  };
  auto scalar = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    using std::exp;
    using std::log;
    T z = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) z += exp(x(i));
    const T lse = log(z);
    T s = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const T y = x(i) - lse;
      s += w(i) * y + y * y;
    }
    return s;
  };
  Eigen::VectorXd x(5);
  x << 0.3, -1.2, 2.0, 0.0, 0.7;
  ngvi::test::check_fused_against_scalar(fused, scalar, x);
}

BOOST_AUTO_TEST_CASE(probabilities_sum_to_one_without_overflow) {
  const Eigen::Vector3d x(800.0, 799.0, -5.0);
  const Eigen::VectorXd y = ad::log_softmax(x);
  NGVI_CHECK_REPORT(vf::compare(y.array().exp().sum(), 1.0, tol::closed_form, "Σ softmax"));
  NGVI_CHECK_REPORT(
      vf::compare(y(0) - y(1), 1.0, tol::closed_form, "log-ratio of the two largest"));
}

BOOST_AUTO_TEST_SUITE_END()
