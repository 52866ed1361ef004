// Tests of autodiff/eigen/reductions.hpp: sum, squared_norm, dot (Var·Var, double·Var,
// Var·double) and log_sum_exp of a vector, against scalar-expression routes, finite
// differences and closed forms (log_sum_exp stays finite where exp overflows).
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

Eigen::VectorXd point(Eigen::Index n) {
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) x(i) = std::sin(1.1 * static_cast<double>(i) + 0.4);
  return x;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reductions_test)

BOOST_AUTO_TEST_CASE(sum_squared_norm_dot_match_scalar_route) {
  const Eigen::VectorXd c = point(5) + Eigen::VectorXd::Constant(5, 2.0);
  auto fused = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    const Vec<T> a = x.head(5), b = x.tail(5);
    return T(ad::sum(a) * ad::squared_norm(b) + ad::dot(a, b) * ad::dot(c, a) + ad::dot(b, c));
  };
  auto scalar = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    T s = 0.0, q = 0.0, ab = 0.0, ca = 0.0, bc = 0.0;
    for (Eigen::Index i = 0; i < 5; ++i) {
      s += x(i);
      q += x(i + 5) * x(i + 5);
      ab += x(i) * x(i + 5);
      ca += c(i) * x(i);
      bc += x(i + 5) * c(i);
    }
    return T(s * q + ab * ca + bc);
  };
  ngvi::test::check_fused_against_scalar(fused, scalar, point(10));
}

BOOST_AUTO_TEST_CASE(log_sum_exp_matches_scalar_route_and_closed_form) {
  auto fused = [](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    return T(ad::log_sum_exp(x));
  };
  auto scalar = [](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    using std::exp;
    using std::log;
    T z = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) z += exp(x(i));
    return T(log(z));
  };
  ngvi::test::check_fused_against_scalar(fused, scalar, point(6));
  // Stable where exp overflows: log(e^1000 + e^1000) = 1000 + log 2, gradient (½, ½).
  const Eigen::Vector2d big(1000.0, 1000.0);
  Eigen::VectorXd g;
  const double v = ad::value_and_gradient(fused, big, g);
  NGVI_CHECK_REPORT(
      vf::compare(v, 1000.0 + std::log(2.0), tol::closed_form, "log_sum_exp(1000, 1000)"));
  NGVI_CHECK_REPORT(vf::compare(g, Eigen::Vector2d(0.5, 0.5), tol::closed_form, "its gradient"));
}

BOOST_AUTO_TEST_CASE(reductions_of_constants_are_constants) {
  ad::TapeScope<double> scope;
  const Vec<ad::Var<double>> a = point(4).cast<ad::Var<double>>();
  BOOST_TEST(!ad::sum(a).is_active());
  BOOST_TEST(!ad::dot(a, point(4)).is_active());
  NGVI_CHECK_REPORT(vf::compare(ad::squared_norm(a).value(), point(4).squaredNorm(), tol::ad_vs_ad,
                                "squared_norm value"));
}

BOOST_AUTO_TEST_SUITE_END()
