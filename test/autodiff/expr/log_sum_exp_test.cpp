// Tests of autodiff/expr/log_sum_exp.hpp: the n-ary scalar log_sum_exp on double, Dual and
// Var arguments (mixed with numbers) against closed forms, its gradient (the softmax
// weights) and Hessian against finite differences, and stability where exp overflows.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/check.hpp>
#include <support/check_report.hpp>

namespace {
namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
}  // namespace

BOOST_AUTO_TEST_SUITE(log_sum_exp_test)

BOOST_AUTO_TEST_CASE(double_values_match_closed_form) {
  NGVI_CHECK_REPORT(vf::compare(ad::log_sum_exp(0.0, 0.0), std::log(2.0), tol::closed_form, "lse(0, 0)"));
  NGVI_CHECK_REPORT(vf::compare(ad::log_sum_exp(1.0, 2.0, 3.0),
                                std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), tol::closed_form,
                                "lse(1, 2, 3)"));
  NGVI_CHECK_REPORT(vf::compare(ad::log_sum_exp(1000.0, 1000.0), 1000.0 + std::log(2.0), tol::closed_form,
                                "lse(1000, 1000) without overflow"));
}

BOOST_AUTO_TEST_CASE(var_gradient_is_softmax_and_hessian_matches_fd) {
  auto f = [](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    return T(ad::log_sum_exp(x(0), T(x(1) * x(2)), 0.5, x(2)));
  };
  const Eigen::Vector3d x(0.3, -0.8, 1.1);
  const Eigen::VectorXd g = ad::gradient(f, x);
  const double e0 = std::exp(x(0)), e1 = std::exp(x(1) * x(2)), e2 = std::exp(0.5), e3 = std::exp(x(2));
  const double z = e0 + e1 + e2 + e3;
  const Eigen::Vector3d closed(e0 / z, e1 * x(2) / z, (e1 * x(1) + e3) / z);
  NGVI_CHECK_REPORT(vf::compare(g, closed, tol::closed_form, "gradient vs softmax weights"));
  NGVI_CHECK_REPORT(vf::check_gradient(f, x));
  NGVI_CHECK_REPORT(vf::check_hessian(f, x));
}

BOOST_AUTO_TEST_CASE(dual_matches_var_route) {
  using D = ad::Dual<double, 2>;
  const D a(0.4, 0, 1.0), b(-0.2, 1, 1.0);
  const D r = ad::log_sum_exp(a, b, D(1.0));
  const double z = std::exp(0.4) + std::exp(-0.2) + std::exp(1.0);
  NGVI_CHECK_REPORT(vf::compare(r.v, std::log(z), tol::closed_form, "value"));
  NGVI_CHECK_REPORT(vf::compare(r.d[0], std::exp(0.4) / z, tol::closed_form, "tangent 0"));
  NGVI_CHECK_REPORT(vf::compare(r.d[1], std::exp(-0.2) / z, tol::closed_form, "tangent 1"));
}

BOOST_AUTO_TEST_SUITE_END()
