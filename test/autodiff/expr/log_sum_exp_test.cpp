// Tests of autodiff/expr/log_sum_exp.hpp: the n-ary scalar log_sum_exp on double, Dual and
// Var arguments (mixed with numbers) against closed forms, its gradient (the softmax
// weights) and Hessian against finite differences, stability where exp overflows, and the
// accuracy of the gradient and Hessian there against 50-digit softmax weights.
#include <array>
#include <cmath>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(log_sum_exp_test)
namespace {
namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
}  // namespace

BOOST_AUTO_TEST_CASE(double_values_match_closed_form) {
  NGVI_CHECK_REPORT(
      vf::compare(ad::log_sum_exp(0.0, 0.0), std::log(2.0), tol::closed_form, "lse(0, 0)"));
  NGVI_CHECK_REPORT(vf::compare(ad::log_sum_exp(1.0, 2.0, 3.0),
                                std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)),
                                tol::closed_form, "lse(1, 2, 3)"));
  NGVI_CHECK_REPORT(vf::compare(ad::log_sum_exp(1000.0, 1000.0), 1000.0 + std::log(2.0),
                                tol::closed_form, "lse(1000, 1000) without overflow"));
}

BOOST_AUTO_TEST_CASE(var_gradient_is_softmax_and_hessian_matches_fd) {
  auto f = [](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    return T(ad::log_sum_exp(x(0), T(x(1) * x(2)), 0.5, x(2)));
  };
  const Eigen::Vector3d x(0.3, -0.8, 1.1);
  const Eigen::VectorXd g = ad::gradient(f, x);
  const double e0 = std::exp(x(0)), e1 = std::exp(x(1) * x(2)), e2 = std::exp(0.5),
               e3 = std::exp(x(2));
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

// Beyond 709 exp overflows and the arguments are large: the weights must still be accurate to
// round-off (formed as exp(x_i − total) they were off by 3e-14 at 1000). Reference: softmax
// w and diag(w) − wwᵀ in 50 digits. Checked on the scalar Var route (gradient, and Hessian by
// forward-over-reverse), the scalar Dual route and the vector form of eigen/reductions.hpp.
BOOST_AUTO_TEST_CASE(softmax_weights_accurate_beyond_exp_overflow) {
  using Big = boost::multiprecision::cpp_bin_float_50;
  for (const Eigen::Vector3d& x :
       {Eigen::Vector3d(1000.0, 1000.5, 999.0), Eigen::Vector3d(-3000.25, -2999.0, -3001.5),
        Eigen::Vector3d(1e4 + 0.125, 1e4 - 0.75, 1e4 + 0.375)}) {
    std::array<Big, 3> e;
    Big z = 0;
    for (int i = 0; i < 3; ++i) {
      e[i] = boost::multiprecision::exp(Big(x(i)) - Big(x.maxCoeff()));
      z += e[i];
    }
    Eigen::Vector3d w;
    Eigen::Matrix3d h;
    for (int i = 0; i < 3; ++i) w(i) = static_cast<double>(e[i] / z);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        h(i, j) = static_cast<double>((i == j ? e[i] / z : Big(0)) - e[i] * e[j] / (z * z));
    const double value = static_cast<double>(Big(x.maxCoeff()) + boost::multiprecision::log(z));

    const auto scalar = [](const auto& t) {
      using T = typename std::decay_t<decltype(t)>::Scalar;
      return T(ad::log_sum_exp(t(0), t(1), t(2)));
    };
    const auto vector = [](const auto& t) {
      using T = typename std::decay_t<decltype(t)>::Scalar;
      return T(ad::log_sum_exp(t));
    };
    Eigen::VectorXd g;
    NGVI_CHECK_REPORT(
        vf::compare(ad::value_and_gradient(scalar, x, g), value, tol::extended_precision, "value"));
    NGVI_CHECK_REPORT(
        vf::compare(g, w, tol::extended_precision, "scalar gradient vs 50-digit softmax"));
    NGVI_CHECK_REPORT(vf::compare(ad::hessian(scalar, x), h, tol::extended_precision,
                                  "scalar Hessian vs 50-digit diag(w) - wwT"));
    NGVI_CHECK_REPORT(vf::compare(ad::gradient(vector, x), w, tol::extended_precision,
                                  "vector gradient vs 50-digit softmax"));
    NGVI_CHECK_REPORT(vf::compare(ad::hessian(vector, x), h, tol::extended_precision,
                                  "vector Hessian vs 50-digit diag(w) - wwT"));
    using D = ad::Dual<double, 3>;
    const D r = ad::log_sum_exp(D(x(0), 0, 1.0), D(x(1), 1, 1.0), D(x(2), 2, 1.0));
    NGVI_CHECK_REPORT(vf::compare(r.v, value, tol::extended_precision, "Dual value"));
    NGVI_CHECK_REPORT(vf::compare(Eigen::Vector3d(r.d[0], r.d[1], r.d[2]), w,
                                  tol::extended_precision, "Dual tangents vs 50-digit softmax"));
  }
}

BOOST_AUTO_TEST_SUITE_END()
