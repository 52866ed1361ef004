// Tests of autodiff/verify/finite_diff.hpp against closed-form derivatives: the FD helpers
// are the reference for every AD-vs-FD check, so they are themselves checked against
// derivatives written out by hand — at ordinary points, at large |x|, near domain boundaries
// and poles (where Boost's fixed step would leave the domain or straddle the singularity),
// for every stencil order, and for the Hessian and Hessian-vector variants that difference
// ngvi's AD gradient. Also: the documented stencil radius, the error estimates, and the
// errors thrown for bad arguments.
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <Eigen/Core>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/var.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/finite_diff.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(finite_diff_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

// f(x) = exp(x0) x1² + log(x2) x0 + x1 x2³ and its closed-form gradient and Hessian.
struct Cubic {
  template <class X>
  auto operator()(const X& x) const {
    using std::exp;
    using std::log;
    using S = std::decay_t<decltype(x(0))>;
    return S(exp(x(0)) * x(1) * x(1) + log(x(2)) * x(0) + x(1) * x(2) * x(2) * x(2));
  }
  static Eigen::Vector3d grad(const Eigen::Vector3d& x) {
    return {std::exp(x(0)) * x(1) * x(1) + std::log(x(2)),
            2.0 * std::exp(x(0)) * x(1) + x(2) * x(2) * x(2),
            x(0) / x(2) + 3.0 * x(1) * x(2) * x(2)};
  }
  static Eigen::Matrix3d hess(const Eigen::Vector3d& x) {
    Eigen::Matrix3d H;
    const double e = std::exp(x(0));
    H << e * x(1) * x(1), 2.0 * e * x(1), 1.0 / x(2),  //
        2.0 * e * x(1), 2.0 * e, 3.0 * x(2) * x(2),    //
        1.0 / x(2), 3.0 * x(2) * x(2), -x(0) / (x(2) * x(2)) + 6.0 * x(1) * x(2);
    return H;
  }
};

template <class F>
Eigen::VectorXd fd1(F f, double x, const vf::FiniteDiffOptions& o = {},
                    Eigen::VectorXd* err = nullptr) {
  Eigen::VectorXd p(1);
  p << x;
  return vf::finite_diff_gradient(f, p, o, err);
}

}  // namespace

BOOST_AUTO_TEST_CASE(gradient_matches_closed_form_at_ordinary_points) {
  for (const Eigen::Vector3d& x : {Eigen::Vector3d(0.3, -1.2, 2.5), Eigen::Vector3d(-2.0, 0.5, 0.1),
                                   Eigen::Vector3d(1.5, 3.0, 7.0)}) {
    BOOST_TEST_CONTEXT("x = " << x.transpose()) {
      Eigen::VectorXd err;
      const Eigen::VectorXd g = vf::finite_diff_gradient(Cubic{}, x, {}, &err);
      NGVI_CHECK_REPORT(
          vf::compare(g, Cubic::grad(x), tol::gradient_vs_fd, "FD gradient vs closed form"));
      // The error estimates are returned, non-negative, and honest here: the true error
      // is below them.
      BOOST_TEST(err.size() == 3);
      BOOST_TEST((err.array() >= 0.0).all());
      BOOST_TEST(((g - Cubic::grad(x)).cwiseAbs().array() <= err.array()).all());
    }
  }
}

BOOST_AUTO_TEST_CASE(hessian_of_ad_gradient_matches_closed_form) {
  for (const Eigen::Vector3d& x :
       {Eigen::Vector3d(0.3, -1.2, 2.5), Eigen::Vector3d(-2.0, 0.5, 0.1)}) {
    BOOST_TEST_CONTEXT("x = " << x.transpose()) {
      Eigen::MatrixXd err;
      const Eigen::MatrixXd H = vf::finite_diff_hessian(Cubic{}, x, {}, &err);
      NGVI_CHECK_REPORT(
          vf::compare(H, Cubic::hess(x), tol::hessian_vs_fd, "FD Hessian vs closed form"));
      BOOST_TEST(err.rows() == 3);
      BOOST_TEST(err.cols() == 3);
      BOOST_TEST((err.array() >= 0.0).all());
    }
  }
}

BOOST_AUTO_TEST_CASE(hvp_of_ad_gradient_matches_closed_form) {
  const Eigen::Vector3d x(0.3, -1.2, 2.5);
  for (const Eigen::Vector3d& v :
       {Eigen::Vector3d(1.0, 0.0, 0.0), Eigen::Vector3d(0.2, -3.0, 0.7),
        Eigen::Vector3d(1e-3, 1e-3, -1e-3), Eigen::Vector3d(50.0, 20.0, -10.0)}) {
    BOOST_TEST_CONTEXT("v = " << v.transpose()) {
      const Eigen::VectorXd hv = vf::finite_diff_hvp(Cubic{}, x, v);
      NGVI_CHECK_REPORT(
          vf::compare(hv, (Cubic::hess(x) * v).eval(), tol::hessian_vs_fd, "FD hvp vs H·v"));
    }
  }
  // Along v = 0 there is nothing to difference: exactly zero.
  NGVI_CHECK_REPORT(vf::compare(vf::finite_diff_hvp(Cubic{}, x, Eigen::Vector3d::Zero()),
                                Eigen::Vector3d::Zero(), tol::exact, "FD hvp along 0"));
}

BOOST_AUTO_TEST_CASE(step_search_handles_large_arguments) {
  auto log_fn = [](const auto& x) {
    using std::log;
    return log(x(0));
  };
  auto sin_fn = [](const auto& x) {
    using std::sin;
    return sin(x(0));
  };
  auto exp_fn = [](const auto& x) {
    using std::exp;
    return exp(x(0));
  };
  for (double x : {1e5, 1e10, 1e100, 1e300}) {
    BOOST_TEST_CONTEXT("log at " << x) {
      NGVI_CHECK_REPORT(vf::compare(fd1(log_fn, x)(0), 1.0 / x, tol::gradient_vs_fd, "d/dx log x"));
    }
  }
  // sin at 1e5: x + s·t rounds to the spacing of doubles near 1e5 (1.5e-11); the search must
  // not pick a step so small that this rounding dominates.
  for (double x : {1e5, -1e5, 12345.678}) {
    BOOST_TEST_CONTEXT("sin at " << x) {
      NGVI_CHECK_REPORT(
          vf::compare(fd1(sin_fn, x)(0), std::cos(x), tol::gradient_vs_fd, "d/dx sin x"));
    }
  }
  // exp at 700: a step scaled to |x| would be far too wide for a function that varies on
  // the scale 1; the search shrinks it.
  NGVI_CHECK_REPORT(vf::compare(fd1(exp_fn, 700.0)(0), std::exp(700.0), tol::gradient_vs_fd,
                                "d/dx exp x at 700"));
}

BOOST_AUTO_TEST_CASE(step_search_retreats_into_the_domain) {
  auto log_fn = [](const auto& x) {
    using std::log;
    return log(x(0));
  };
  auto sqrt_fn = [](const auto& x) {
    using std::sqrt;
    return sqrt(x(0));
  };
  auto acosh_fn = [](const auto& x) {
    using std::acosh;
    return acosh(x(0));
  };
  for (double x : {1e-150, 1e-10, 1e-3}) {
    BOOST_TEST_CONTEXT("log at " << x) {
      NGVI_CHECK_REPORT(vf::compare(fd1(log_fn, x)(0), 1.0 / x, tol::gradient_vs_fd, "d/dx log x"));
      Eigen::VectorXd p(1);
      p << x;
      NGVI_CHECK_REPORT(vf::compare(vf::finite_diff_hessian(log_fn, p)(0, 0), -1.0 / (x * x),
                                    tol::hessian_vs_fd, "d²/dx² log x"));
    }
  }
  NGVI_CHECK_REPORT(
      vf::compare(fd1(sqrt_fn, 1e-12)(0), 0.5e6, tol::gradient_vs_fd, "d/dx sqrt x at 1e-12"));
  NGVI_CHECK_REPORT(vf::compare(fd1(acosh_fn, 1.001)(0), 1.0 / std::sqrt(0.001 * 2.001),
                                tol::gradient_vs_fd, "d/dx acosh x at 1.001"));
  // With the scale fixed at 1 (Boost's own step), the stencil of log at 1e-3 leaves the
  // domain: the result is NaN (flagged as infinitely uncertain), never a silent wrong number.
  vf::FiniteDiffOptions fixed;
  fixed.scale = Eigen::VectorXd::Ones(1);
  Eigen::VectorXd err;
  const double bad = fd1(log_fn, 1e-3, fixed, &err)(0);
  BOOST_TEST(std::isnan(bad));
  BOOST_TEST(std::isinf(err(0)));
}

BOOST_AUTO_TEST_CASE(step_search_is_not_fooled_by_a_stencil_straddling_a_pole) {
  // lgamma(x) = log|Γ(x)| ≈ −log|x| − γx near 0: the even singularity cancels in central
  // differences, so a wide stencil across the pole "converges" to −γ. The right answer is
  // digamma(x) ≈ −1/x, which only stencils narrower than |x| see.
  auto lgamma_fn = [](const auto& x) {
    using std::lgamma;
    return lgamma(x(0));
  };
  for (double x : {1e-30, 1e-8, -1e-8, 1e-4}) {
    BOOST_TEST_CONTEXT("lgamma at " << x) {
      NGVI_CHECK_REPORT(vf::compare(fd1(lgamma_fn, x)(0), boost::math::digamma(x),
                                    tol::gradient_vs_fd, "d/dx lgamma x"));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_order_is_accurate_to_its_own_error_estimate) {
  // Boost's orders 1, 2, 4, 6, 8 with the step search: each result is within its returned
  // error estimate of the exact derivative, and the high orders are within gradient_vs_fd.
  const Eigen::Vector3d x(0.3, -1.2, 2.5);
  for (int order : {1, 2, 4, 6, 8}) {
    BOOST_TEST_CONTEXT("order " << order) {
      vf::FiniteDiffOptions o;
      o.order = order;
      Eigen::VectorXd err;
      const Eigen::VectorXd g = vf::finite_diff_gradient(Cubic{}, x, o, &err);
      const Eigen::VectorXd exact = Cubic::grad(x);
      BOOST_TEST(
          ((g - exact).cwiseAbs().array() <= err.array()).all(),
          "errors " << (g - exact).cwiseAbs().transpose() << " vs estimates " << err.transpose());
      if (order >= 6)
        NGVI_CHECK_REPORT(vf::compare(g, exact, tol::gradient_vs_fd, "high-order FD"));
      // Order 1 really is worse than order 6: the estimate is not a constant.
      if (order == 1) BOOST_TEST(err.maxCoeff() > 1e-9);
    }
  }
}

BOOST_AUTO_TEST_CASE(fixed_scale_uses_exactly_the_documented_stencil) {
  // With opts.scale = s the stencil spans x ± fd_stencil_radius(order)·s, no further.
  for (int order : {1, 2, 4, 6, 8}) {
    BOOST_TEST_CONTEXT("order " << order) {
      const double x0 = 2.0, s = 0.5;
      double lo = x0, hi = x0;
      auto probe = [&](const auto& x) {
        const double v = ngvi::ad::value_of(x(0));
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        return x(0) * x(0);
      };
      vf::FiniteDiffOptions o;
      o.order = order;
      o.scale = Eigen::VectorXd::Constant(1, s);
      Eigen::VectorXd p(1);
      p << x0;
      const double d = vf::finite_diff_gradient(probe, p, o)(0);
      const double r = vf::fd_stencil_radius(order) * s;
      // x0 + s·t is rounded to the spacing of doubles near 2 (4.4e-16).
      const double slack = 4.0 * std::numeric_limits<double>::epsilon() * x0;
      BOOST_TEST(hi - x0 <= r + slack);
      BOOST_TEST(x0 - lo <= r + slack);
      BOOST_TEST(hi - x0 >= r - slack);  // the radius is tight, not just an upper bound
      // d/dx x² = 4 at 2, to the accuracy of the order (order 1 is first-order accurate only).
      BOOST_TEST(std::abs(d - 4.0) <= (order == 1 ? 1e-6 : 1e-9));
    }
  }
}

BOOST_AUTO_TEST_CASE(domain_errors_on_the_ad_path_count_as_failed_trials) {
  // finite_diff_hessian differentiates the AD gradient; in checked builds a stencil point
  // outside the domain throws ngvi::ad::domain_error, in release builds it is NaN. Either
  // way the search must retreat into the domain and give the right answer.
  auto f = [](const auto& x) {
    using std::log;
    using std::sqrt;
    return log(x(0)) + sqrt(x(1));
  };
  const Eigen::Vector2d x(1e-3, 2e-4);
  const Eigen::MatrixXd H = vf::finite_diff_hessian(f, x);
  Eigen::Matrix2d exact;
  exact << -1.0 / (x(0) * x(0)), 0.0, 0.0, -0.25 / (x(1) * std::sqrt(x(1)));
  NGVI_CHECK_REPORT(vf::compare(H, exact, tol::hessian_vs_fd, "FD Hessian near the boundary"));
}

BOOST_AUTO_TEST_CASE(empty_input_gives_empty_results) {
  auto f = [](const auto& x) { return x.sum() + 1.0; };
  const Eigen::VectorXd x(0);
  BOOST_TEST(vf::finite_diff_gradient(f, x).size() == 0);
  BOOST_TEST(vf::finite_diff_hessian(f, x).size() == 0);
  BOOST_TEST(vf::finite_diff_hvp(f, x, x).size() == 0);
}

BOOST_AUTO_TEST_CASE(bad_arguments_throw_with_a_message_naming_them) {
  const Eigen::Vector3d x(0.3, -1.2, 2.5);
  vf::FiniteDiffOptions o;
  o.order = 3;
  BOOST_CHECK_EXCEPTION(vf::finite_diff_gradient(Cubic{}, x, o), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()).find(
                                     "order must be 1, 2, 4, 6 or 8, got 3") != std::string::npos;
                        });
  BOOST_CHECK_THROW(vf::fd_stencil_radius(5), std::invalid_argument);
  vf::FiniteDiffOptions wrong_scale;
  wrong_scale.scale = Eigen::VectorXd::Ones(2);
  BOOST_CHECK_EXCEPTION(vf::finite_diff_gradient(Cubic{}, x, wrong_scale), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return std::string(e.what()).find(
                                     "opts.scale has 2 entries, expected 3") != std::string::npos;
                        });
  BOOST_CHECK_THROW(vf::finite_diff_hessian(Cubic{}, x, wrong_scale), std::invalid_argument);
  BOOST_CHECK_THROW(vf::finite_diff_hvp(Cubic{}, x, x, wrong_scale), std::invalid_argument);
  BOOST_CHECK_EXCEPTION(vf::finite_diff_hvp(Cubic{}, x, Eigen::Vector2d(1.0, 2.0)),
                        std::invalid_argument, [](const std::invalid_argument& e) {
                          return std::string(e.what()).find("v has 2 entries, expected 3") !=
                                 std::string::npos;
                        });
}

BOOST_AUTO_TEST_SUITE_END()
