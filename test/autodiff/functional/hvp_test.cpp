// Tests of autodiff/functional/hvp.hpp: Hessian-vector products by forward-over-reverse
// against closed forms, against hessian(f, x)·v (AD vs AD), against finite differences of
// the AD gradient (check_hvp), linearity in v; the gradient and value that
// gradient_and_hvp returns along the way; constant functions; the size check; and the
// regression of pow(x, 2.0) at x < 0, whose second derivative used to be NaN.
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/hvp.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(hvp_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

// f(x) = Σ_i x_i³/3 + Σ_i x_i x_{i+1} + e^{x_0 x_{n−1}}: H has a diagonal 2x_i, unit
// off-diagonals and a rank-one corner from the exponential.
struct Poly {
  template <class X>
  auto operator()(const X& x) const {
    using std::exp;
    using S = std::decay_t<decltype(x(0))>;
    const Eigen::Index n = x.size();
    S f = exp(x(0) * x(n - 1));
    for (Eigen::Index i = 0; i < n; ++i) {
      f += x(i) * x(i) * x(i) / 3.0;
      if (i + 1 < n) f += x(i) * x(i + 1);
    }
    return f;
  }
  static Eigen::MatrixXd hess(const Eigen::VectorXd& x) {
    const Eigen::Index n = x.size();
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      H(i, i) = 2.0 * x(i);
      if (i + 1 < n) H(i, i + 1) = H(i + 1, i) = 1.0;
    }
    const double e = std::exp(x(0) * x(n - 1));
    // ∂²/∂a∂b e^{ab} for a = x0, b = x_{n−1}: [b², 1 + ab; 1 + ab, a²]·e.
    const double a = x(0), b = x(n - 1);
    H(0, 0) += b * b * e;
    H(n - 1, n - 1) += a * a * e;
    H(0, n - 1) += (1.0 + a * b) * e;
    H(n - 1, 0) += (1.0 + a * b) * e;
    return H;
  }
};

const Eigen::VectorXd x6 = (Eigen::VectorXd(6) << 0.3, -0.8, 1.2, 0.05, -1.5, 0.6).finished();

}  // namespace

BOOST_AUTO_TEST_CASE(matches_closed_form_and_hessian_times_v) {
  const Eigen::MatrixXd H = Poly::hess(x6);
  const Eigen::MatrixXd H_ad = ngvi::ad::hessian(Poly{}, x6);
  for (int k = 0; k < 4; ++k) {
    Eigen::VectorXd v(6);
    for (Eigen::Index i = 0; i < 6; ++i) v(i) = std::cos(1.7 * static_cast<double>(i + 6 * k));
    BOOST_TEST_CONTEXT("direction " << k) {
      const Eigen::VectorXd hv = ngvi::ad::hvp(Poly{}, x6, v);
      NGVI_CHECK_REPORT(
          vf::compare(hv, (H * v).eval(), tol::closed_form, "hvp vs closed-form H·v"));
      NGVI_CHECK_REPORT(vf::compare(hv, (H_ad * v).eval(), tol::ad_vs_ad, "hvp vs hessian()·v"));
    }
  }
  // Unit directions give the columns.
  for (Eigen::Index j = 0; j < 6; ++j) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(6, j);
    NGVI_CHECK_REPORT(
        vf::compare(ngvi::ad::hvp(Poly{}, x6, e), H.col(j), tol::closed_form, "hvp(e_j) = H e_j"));
  }
}

BOOST_AUTO_TEST_CASE(is_linear_in_the_direction) {
  const Eigen::VectorXd v1 = Eigen::VectorXd::LinSpaced(6, -1.0, 1.0);
  const Eigen::VectorXd v2 = Eigen::VectorXd::LinSpaced(6, 2.0, -0.5);
  const Eigen::VectorXd lhs = ngvi::ad::hvp(Poly{}, x6, v1 - 2.5 * v2);
  const Eigen::VectorXd rhs = ngvi::ad::hvp(Poly{}, x6, v1) - 2.5 * ngvi::ad::hvp(Poly{}, x6, v2);
  NGVI_CHECK_REPORT(vf::compare(lhs, rhs, tol::ad_vs_ad, "H(v1 − 2.5 v2) vs Hv1 − 2.5 Hv2"));
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hvp(Poly{}, x6, Eigen::VectorXd::Zero(6)),
                                Eigen::VectorXd::Zero(6), tol::exact, "H·0"));
}

BOOST_AUTO_TEST_CASE(gradient_and_hvp_returns_value_and_gradient_too) {
  const Eigen::VectorXd v = Eigen::VectorXd::Ones(6);
  Eigen::VectorXd g, hv;
  const double value = ngvi::ad::gradient_and_hvp(Poly{}, x6, v, g, hv);
  NGVI_CHECK_REPORT(vf::compare(value, Poly{}(x6), tol::ad_vs_ad, "value vs double evaluation"));
  NGVI_CHECK_REPORT(
      vf::compare(g, ngvi::ad::gradient(Poly{}, x6), tol::ad_vs_ad, "gradient vs gradient()"));
  NGVI_CHECK_REPORT(vf::compare(hv, (Poly::hess(x6) * v).eval(), tol::closed_form, "hvp"));
}

BOOST_AUTO_TEST_CASE(agrees_with_finite_differences_of_the_gradient) {
  auto f = [](const auto& x) {
    using std::log1p;
    using std::sin;
    using std::sqrt;
    using S = std::decay_t<decltype(x(0))>;
    return S(sin(x(0) * x(1)) * sqrt(1.0 + x(2) * x(2)) + log1p(x(0) * x(0) * x(2) * x(2)));
  };
  const Eigen::Vector3d x(0.7, -1.3, 0.4);
  for (const Eigen::Vector3d& v :
       {Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0.3, 2.0, -1.0), Eigen::Vector3d(-5, 1e-3, 4)})
    NGVI_CHECK_REPORT(vf::check_hvp(f, x, v));
}

BOOST_AUTO_TEST_CASE(constant_function_gives_zero) {
  auto f = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    return S(1.5);
  };
  Eigen::VectorXd g, hv;
  const double value =
      ngvi::ad::gradient_and_hvp(f, Eigen::Vector2d(1, 2), Eigen::Vector2d(3, 4), g, hv);
  BOOST_TEST(value == 1.5);
  NGVI_CHECK_REPORT(vf::compare(g, Eigen::Vector2d::Zero(), tol::exact, "gradient"));
  NGVI_CHECK_REPORT(vf::compare(hv, Eigen::Vector2d::Zero(), tol::exact, "hvp"));
}

BOOST_AUTO_TEST_CASE(direction_of_the_wrong_size_is_rejected) {
  BOOST_CHECK_EXCEPTION(ngvi::ad::hvp(Poly{}, x6, Eigen::VectorXd::Ones(5)), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()).find(
                                     "direction v has 5 entries, expected 6") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(pow_with_a_constant_exponent_at_a_negative_base) {
  // d²/dx² x^c = c(c−1)x^{c−2}; at x < 0 with integer c this is finite. The exponent's
  // partial x^c log x is NaN there, and must not leak into the tangents (it used to: NaN).
  for (double c : {2.0, 3.0, -1.0, 4.0}) {
    auto f = [c](const auto& x) {
      using std::pow;
      using S = std::decay_t<decltype(x(0))>;
      return S(pow(x(0), c) * x(1));
    };
    const Eigen::Vector2d x(-1.5, 0.5);
    Eigen::Matrix2d H;
    H << c * (c - 1) * std::pow(-1.5, c - 2) * 0.5, c * std::pow(-1.5, c - 1),  //
        c * std::pow(-1.5, c - 1), 0.0;
    BOOST_TEST_CONTEXT("c = " << c) {
      NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hvp(f, x, Eigen::Vector2d(1.0, -2.0)),
                                    (H * Eigen::Vector2d(1.0, -2.0)).eval(), tol::closed_form,
                                    "hvp of pow(x, c)·y at x = −1.5"));
      NGVI_CHECK_REPORT(
          vf::compare(ngvi::ad::hessian(f, x), H, tol::closed_form, "Hessian of pow(x, c)·y"));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
