// Tests of autodiff/verify/{compare,report,check}.hpp: the comparison semantics every other
// test relies on (the pass rule |a − b| <= abs + rel·|b|, NaN handling, which component is
// "worst", what the message says), and that check_gradient / check_hvp / check_hessian pass
// on correct derivatives and fail — naming the right component — on functions whose AD
// evaluation is deliberately inconsistent with their double evaluation. A checker that
// cannot fail would make every test built on it vacuous, so the failing cases matter most.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/dual.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(check_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::Dual;
using ngvi::ad::Var;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The scalar a generic function is being evaluated on.
template <class X>
using scalar_of = std::decay_t<decltype(std::declval<const X&>()(0))>;
template <class S>
inline constexpr bool is_var_double = std::is_same_v<S, Var<double>>;
template <class S>
struct is_dual_var : std::false_type {};
template <int K>
struct is_dual_var<Var<Dual<double, K>>> : std::true_type {};

// f(x) = x0² x1 + sin(x0) e^{x1}: a smooth test function with all second partials nonzero.
struct Smooth {
  template <class X>
  auto operator()(const X& x) const {
    using std::exp;
    using std::sin;
    return scalar_of<X>(x(0) * x(0) * x(1) + sin(x(0)) * exp(x(1)));
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(tolerance_accepts_exactly_up_to_abs_plus_rel_times_reference) {
  const vf::Tolerance t{0.5, 0.25};  // binary fractions, so the boundary is exact
  BOOST_TEST(t.allowed(2.0) == 1.25);
  BOOST_TEST(t.allowed(-2.0) == 1.25);
  BOOST_TEST(t.accepts(3.25, 2.0));  // |diff| = 1.25: on the boundary
  BOOST_TEST(!t.accepts(3.5, 2.0));  // 1.5 > 1.25
  BOOST_TEST(t.accepts(0.25, 0.0));  // only abs applies at a zero reference
  BOOST_TEST(!t.accepts(0.5, 0.0));
  BOOST_TEST(!t.accepts(qnan, qnan));  // NaN never agrees, not even with NaN
  BOOST_TEST(!t.accepts(1.0, qnan));
  BOOST_TEST(t.accepts(inf, inf));  // equal values always agree
  BOOST_TEST(!t.accepts(inf, -inf));
  BOOST_TEST(!t.accepts(inf, 1e300));
  const vf::Tolerance s = t.scaled(4.0);
  BOOST_TEST(s.rel == 2.0);
  BOOST_TEST(s.abs == 1.0);
  // exact: equality of values only (-0 == +0).
  BOOST_TEST(tol::exact.accepts(-0.0, 0.0));
  BOOST_TEST(!tol::exact.accepts(1.0, std::nextafter(1.0, 2.0)));
}

BOOST_AUTO_TEST_CASE(named_tolerances_are_ordered_as_documented) {
  // AD-vs-AD is the tightest, then the independent AD oracle, then closed forms... and the FD
  // comparisons are the loosest; exact is zero. A reordering would be a reviewed decision.
  BOOST_TEST(tol::exact.rel == 0.0);
  BOOST_TEST(tol::exact.abs == 0.0);
  BOOST_TEST(tol::ad_vs_ad.rel < tol::closed_form.rel);
  BOOST_TEST(tol::closed_form.rel < tol::independent_ad.rel);
  BOOST_TEST(tol::independent_ad.rel < tol::gradient_vs_fd.rel);
  BOOST_TEST(tol::gradient_vs_fd.rel < tol::hessian_vs_fd.rel);
  BOOST_TEST(tol::gradient_vs_fd.abs < tol::hessian_vs_fd.abs);
}

BOOST_AUTO_TEST_CASE(compare_reports_errors_and_the_worst_component_by_share_of_allowance) {
  const vf::Tolerance t{1e-3, 0.0};
  Eigen::Vector3d ref(1000.0, 1.0, -4.0);
  Eigen::Vector3d got(1000.5, 1.0015, -4.0);
  // Component 0 has the largest raw difference (0.5, allowed 1.0) but component 1 uses 1.5×
  // its allowance (0.0015 vs 0.001): it is the worst, and it fails the comparison.
  const vf::CheckReport r = vf::compare(got, ref, t, "vector");
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.worst_row == 1);
  BOOST_TEST(r.worst_col == 0);
  BOOST_TEST(r.computed_at_worst == 1.0015);
  BOOST_TEST(r.reference_at_worst == 1.0);
  BOOST_TEST(r.max_abs_err == 0.5);
  BOOST_TEST(r.max_rel_err == std::abs(1.0015 - 1.0), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.worst_ratio == 1.5, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(r.rows == 3);
  BOOST_TEST(r.cols == 1);
  BOOST_TEST(r.what == "vector");
  const std::string s = r.to_string();
  BOOST_TEST(contains(s, "[FAILED] vector"), s);
  BOOST_TEST(contains(s, "[1]"), s);  // a vector index, not (1, 0)
  BOOST_TEST(contains(s, "computed 1.0015"), s);
  BOOST_TEST(contains(s, "vs reference 1,"), s);

  // Within tolerance everywhere: passes, and still names a worst component.
  got(1) = 1.0008;
  const vf::CheckReport ok = vf::compare(got, ref, t, "vector");
  BOOST_TEST(ok.passed);
  BOOST_TEST(ok.worst_row == 1);  // 0.8 of its allowance vs 0.5 for component 0
  BOOST_TEST(contains(ok.to_string(), "[passed]"), ok.to_string());
}

BOOST_AUTO_TEST_CASE(compare_of_matrices_names_row_and_column) {
  Eigen::Matrix<double, 2, 3> ref, got;
  ref << 1, 2, 3, 4, 5, 6;
  got = ref;
  got(1, 2) = 6.5;
  const vf::CheckReport r = vf::compare(got, ref, tol::closed_form, "matrix");
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.worst_row == 1);
  BOOST_TEST(r.worst_col == 2);
  BOOST_TEST(contains(r.to_string(), "(1, 2)"), r.to_string());
  BOOST_TEST(contains(r.to_string(), "computed 6.5 vs reference 6,"), r.to_string());
  // Expressions work too (transpose of a matrix vs itself transposed is exact).
  NGVI_CHECK_REPORT(vf::compare(ref.transpose(), ref.transpose().eval(), tol::exact, "transpose"));
}

BOOST_AUTO_TEST_CASE(compare_treats_nan_as_failure_and_equal_infinities_as_agreement) {
  const vf::CheckReport both_nan = vf::compare(
      Eigen::Vector2d(1.0, qnan), Eigen::Vector2d(1.0, qnan), tol::gradient_vs_fd, "nan");
  BOOST_TEST(!both_nan.passed);
  BOOST_TEST(both_nan.worst_row == 1);
  BOOST_TEST(std::isinf(both_nan.worst_ratio));
  const vf::CheckReport infs =
      vf::compare(Eigen::Vector2d(inf, -inf), Eigen::Vector2d(inf, -inf), tol::exact, "infinities");
  BOOST_TEST(infs.passed);
  BOOST_TEST(infs.max_abs_err == 0.0);
  BOOST_TEST(!vf::compare(inf, 1.0, tol::gradient_vs_fd, "inf vs finite").passed);
  BOOST_TEST(!vf::compare(1.0, inf, tol::gradient_vs_fd, "finite vs inf").passed);
  BOOST_TEST(!vf::compare(inf, -inf, tol::gradient_vs_fd, "opposite infinities").passed);
  // A difference under an exact tolerance is infinitely over its allowance.
  const vf::CheckReport e = vf::compare(1.0, 1.0 + 1e-15, tol::exact, "exact");
  BOOST_TEST(!e.passed);
  BOOST_TEST(std::isinf(e.worst_ratio));
  BOOST_TEST(std::isinf(vf::compare(1.0, 0.0, tol::closed_form, "zero reference").max_rel_err));
}

BOOST_AUTO_TEST_CASE(compare_fails_on_shape_mismatch_with_both_shapes_in_the_message) {
  const vf::CheckReport r =
      vf::compare(Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(4), tol::exact, "sizes");
  BOOST_TEST(!r.passed);
  BOOST_TEST(contains(r.to_string(), "computed is 3x1, reference is 4x1"), r.to_string());
  // Empty vs empty compares nothing and passes, and says so.
  const vf::CheckReport empty =
      vf::compare(Eigen::VectorXd(), Eigen::VectorXd(), tol::exact, "empty");
  BOOST_TEST(empty.passed);
  BOOST_TEST(contains(empty.to_string(), "nothing compared"), empty.to_string());
}

BOOST_AUTO_TEST_CASE(combine_passes_only_if_both_parts_pass_and_keeps_the_worse_part) {
  const vf::CheckReport good = vf::compare(1.0, 1.0, tol::closed_form, "good");
  const vf::CheckReport bad = vf::compare(2.0, 1.0, tol::closed_form, "bad");
  const vf::CheckReport third = vf::compare(3.0, 3.0, tol::closed_form, "third");
  const vf::CheckReport c = vf::combine(vf::combine(good, bad), third);
  BOOST_TEST(!c.passed);
  BOOST_TEST(c.computed_at_worst == 2.0);
  BOOST_TEST(c.reference_at_worst == 1.0);
  BOOST_TEST(c.max_abs_err == 1.0);
  BOOST_TEST(c.parts.size() == 3u);  // flattened
  BOOST_TEST(c.what == "good & bad & third");
  const std::string s = c.to_string();
  BOOST_TEST(contains(s, "[FAILED] good & bad & third:"), s);
  BOOST_TEST(contains(s, "\n  [passed] good"), s);
  BOOST_TEST(contains(s, "\n  [FAILED] bad"), s);
  BOOST_TEST(vf::combine(good, third).passed);
}

BOOST_AUTO_TEST_CASE(checks_pass_for_correct_derivatives) {
  Eigen::Vector2d x(0.7, -0.4);
  const vf::CheckReport g = vf::check_gradient(Smooth{}, x);
  NGVI_CHECK_REPORT(g);
  BOOST_TEST(g.parts.size() == 2u);  // FD comparison and the value comparison
  // The FD comparison found a real, small difference, i.e. it compared something.
  BOOST_TEST(g.parts[0].max_abs_err > 0.0);
  BOOST_TEST(g.parts[0].max_abs_err < 1e-10);
  NGVI_CHECK_REPORT(vf::check_hessian(Smooth{}, x));
  NGVI_CHECK_REPORT(vf::check_hvp(Smooth{}, x, Eigen::Vector2d(0.3, -1.1)));
}

BOOST_AUTO_TEST_CASE(check_gradient_fails_on_a_wrong_partial_and_names_it) {
  // On Var the function gains 1e-3·(x1 − value(x1)): the same value, but ∂/∂x1 is off by
  // 1e-3. The FD reference (from doubles) does not see the extra term.
  auto f = [](const auto& x) {
    using S = scalar_of<std::decay_t<decltype(x)>>;
    S y = Smooth{}(x);
    if constexpr (is_var_double<S>) y = y + 1e-3 * (x(1) - x(1).value());
    return y;
  };
  Eigen::Vector2d x(0.7, -0.4);
  const vf::CheckReport r = vf::check_gradient(f, x);
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.worst_row == 1);
  // d/dx1 (x0² x1 + sin x0 e^{x1}) = x0² + sin x0 e^{x1}.
  const double exact = 0.49 + std::sin(0.7) * std::exp(-0.4);
  BOOST_TEST(r.reference_at_worst == exact, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(r.computed_at_worst == exact + 1e-3, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(r.parts.size() == 2u);
  BOOST_TEST(!r.parts[0].passed);  // the gradient
  BOOST_TEST(r.parts[1].passed);   // the value is right
  BOOST_TEST(
      contains(r.to_string(), "[FAILED] AD gradient vs finite differences: worst component [1]"),
      r.to_string());
}

BOOST_AUTO_TEST_CASE(check_gradient_fails_on_a_wrong_value) {
  auto f = [](const auto& x) {
    using S = scalar_of<std::decay_t<decltype(x)>>;
    S y = Smooth{}(x);
    if constexpr (is_var_double<S>) y = y + 1e-6;  // right derivatives, wrong value
    return y;
  };
  const vf::CheckReport r = vf::check_gradient(f, Eigen::Vector2d(0.7, -0.4));
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.parts[0].passed);
  BOOST_TEST(!r.parts[1].passed);
}

BOOST_AUTO_TEST_CASE(check_gradient_uses_the_tolerance_it_is_given) {
  // FD is not exact, so an exact tolerance must fail where the default passes.
  Eigen::Vector2d x(0.7, -0.4);
  BOOST_TEST(vf::check_gradient(Smooth{}, x).passed);
  BOOST_TEST(!vf::check_gradient(Smooth{}, x, tol::exact).passed);
}

BOOST_AUTO_TEST_CASE(check_hessian_fails_on_a_wrong_second_derivative) {
  // Only the dual (second-order) evaluation gains c·(x0 − value(x0))²: same value and
  // gradient, but ∂²/∂x0² is off by 2c.
  auto f = [](const auto& x) {
    using S = scalar_of<std::decay_t<decltype(x)>>;
    S y = Smooth{}(x);
    if constexpr (is_dual_var<S>::value) {
      const S d = x(0) - x(0).value().v;
      y = y + 0.05 * d * d;
    }
    return y;
  };
  Eigen::Vector2d x(0.7, -0.4);
  const vf::CheckReport r = vf::check_hessian(f, x);
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.worst_row == 0);
  BOOST_TEST(r.worst_col == 0);
  BOOST_TEST(r.computed_at_worst - r.reference_at_worst == 0.1, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(!r.parts[0].passed);  // vs FD of the (correct) AD gradient
  BOOST_TEST(r.parts[1].passed);   // still symmetric
  BOOST_TEST(r.parts[2].passed);   // hessian<8> and the hvp columns agree with each other
}

BOOST_AUTO_TEST_CASE(check_hessian_detects_an_asymmetric_cross_derivative) {
  // Simulates an elementary function whose derivative formula has the wrong tangent: on the
  // dual tape the term x0·c is added, where c has value 0 but carries x1's tangent. The
  // gradient is unchanged; the column for x1 gains ∂²/∂x0∂x1 += 1, the column for x0 does not.
  // The symmetrised hessian() hides this as +0.5 on both off-diagonals; the raw columns show it.
  auto f = [](const auto& x) {
    using S = scalar_of<std::decay_t<decltype(x)>>;
    S y = Smooth{}(x);
    if constexpr (is_dual_var<S>::value) {
      auto c = x(1).value();
      c.v = 0.0;
      y = y + x(0) * c;
    }
    return y;
  };
  Eigen::Vector2d x(0.7, -0.4);
  const vf::CheckReport r = vf::check_hessian(f, x);
  BOOST_TEST(!r.passed);
  BOOST_TEST(!r.parts[1].passed, r.parts[1].to_string());  // the symmetry check
  BOOST_TEST(std::abs(r.parts[1].computed_at_worst - r.parts[1].reference_at_worst) == 1.0,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(!r.parts[0].passed);  // and the symmetrised value is off by 0.5 vs FD
  BOOST_TEST(contains(r.to_string(), "symmetry"), r.to_string());
}

BOOST_AUTO_TEST_CASE(check_hvp_fails_on_a_wrong_second_derivative) {
  auto f = [](const auto& x) {
    using S = scalar_of<std::decay_t<decltype(x)>>;
    S y = Smooth{}(x);
    if constexpr (is_dual_var<S>::value) {
      const S d = x(1) - x(1).value().v;
      y = y + 0.05 * d * d;
    }
    return y;
  };
  Eigen::Vector2d x(0.7, -0.4), v(0.0, 2.0);
  const vf::CheckReport r = vf::check_hvp(f, x, v);
  BOOST_TEST(!r.passed);
  BOOST_TEST(r.worst_row == 1);
  BOOST_TEST(r.computed_at_worst - r.reference_at_worst == 0.2, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(!r.parts[0].passed);  // vs FD of the gradient along v
  BOOST_TEST(r.parts[1].passed);   // hvp and hessian·v share the (wrong) dual evaluation
  BOOST_TEST(r.parts[2].passed);   // the first-order part is right
}

BOOST_AUTO_TEST_SUITE_END()
