// Tests of autodiff/expr/operators.hpp (and the arithmetic nodes of nodes.hpp): + − × ÷ for
// Var∘Var, Var∘number and number∘Var, unary minus and plus, the compound assignments
// (including aliasing such as x *= x), and comparisons, which look at values only and record
// nothing. First derivatives come from gradient(), second derivatives from hessian() and
// hvp(), all against closed forms; squaring each operation (u²) checks that second-order
// information propagates through it, since ∇²(u²) = 2(∇u∇uᵀ + u∇²u).
#include <cmath>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/tape_scope.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/hvp.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(operators_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::Var;

// A 2-D test point and the derivatives of u(x, y) expected there.
struct Expected {
  double value;
  Eigen::Vector2d grad;
  Eigen::Matrix2d hess;
};

// Checks value, gradient, Hessian and hvp of the generic 2-D function f against `e`, and of
// f² against 2(∇u∇uᵀ + u∇²u). hessian<1> shares the Var<Dual<double, 1>> instantiation of f
// with hvp, which keeps this file quick to compile (other block sizes: hessian_test).
template <class F>
void expect_2d(const F& f, const Eigen::Vector2d& p, const Expected& e, const std::string& what) {
  BOOST_TEST_CONTEXT(what << " at (" << p(0) << ", " << p(1) << ")") {
    Eigen::VectorXd g;
    const double v = ngvi::ad::value_and_gradient(f, p, g);
    NGVI_CHECK_REPORT(vf::compare(v, e.value, tol::closed_form, "value"));
    NGVI_CHECK_REPORT(vf::compare(g, e.grad, tol::closed_form, "gradient"));
    NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hessian<1>(f, p), e.hess, tol::closed_form, "Hessian"));
    const Eigen::Vector2d dir(0.6, -1.7);
    NGVI_CHECK_REPORT(
        vf::compare(ngvi::ad::hvp(f, p, dir), (e.hess * dir).eval(), tol::closed_form, "hvp"));
    auto sq = [&f](const auto& x) {
      using S = std::decay_t<decltype(x(0))>;
      const S u = f(x);
      return S(u * u);
    };
    const Eigen::Matrix2d h2 = 2.0 * (e.grad * e.grad.transpose() + e.value * e.hess);
    NGVI_CHECK_REPORT(
        vf::compare(ngvi::ad::hessian<1>(sq, p), h2, tol::closed_form, "Hessian of u²"));
  }
}

// The same for a 1-D function of x (y unused): derivative d1 and second derivative d2.
template <class F>
void expect_1d(const F& f, double x, double value, double d1, double d2, const std::string& what) {
  Eigen::Matrix2d h = Eigen::Matrix2d::Zero();
  h(0, 0) = d2;
  expect_2d(f, Eigen::Vector2d(x, 0.25), Expected{value, Eigen::Vector2d(d1, 0.0), h}, what);
}

const Eigen::Vector2d points[] = {{1.5, -0.5}, {-2.0, 3.0}, {0.25, 4.0}, {-7.0, -0.125}};

}  // namespace

BOOST_AUTO_TEST_CASE(var_op_var) {
  for (const Eigen::Vector2d& p : points) {
    const double x = p(0), y = p(1);
    const Eigen::Matrix2d zero = Eigen::Matrix2d::Zero();
    expect_2d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) + v(1));
        },
        p, {x + y, {1.0, 1.0}, zero}, "x + y");
    expect_2d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) - v(1));
        },
        p, {x - y, {1.0, -1.0}, zero}, "x - y");
    Eigen::Matrix2d hmul;
    hmul << 0.0, 1.0, 1.0, 0.0;
    expect_2d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) * v(1));
        },
        p, {x * y, {y, x}, hmul}, "x * y");
    Eigen::Matrix2d hdiv;
    hdiv << 0.0, -1.0 / (y * y), -1.0 / (y * y), 2.0 * x / (y * y * y);
    expect_2d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) / v(1));
        },
        p, {x / y, {1.0 / y, -x / (y * y)}, hdiv}, "x / y");
  }
}

BOOST_AUTO_TEST_CASE(var_op_number_and_number_op_var) {
  for (const Eigen::Vector2d& p : points) {
    const double x = p(0);
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) + 2.5);
        },
        x, x + 2.5, 1.0, 0.0, "x + 2.5");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(2.5 + v(0));
        },
        x, 2.5 + x, 1.0, 0.0, "2.5 + x");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) - 2.5);
        },
        x, x - 2.5, 1.0, 0.0, "x - 2.5");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(2.5 - v(0));
        },
        x, 2.5 - x, -1.0, 0.0, "2.5 - x");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) * 2.5);
        },
        x, x * 2.5, 2.5, 0.0, "x * 2.5");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(2.5 * v(0));
        },
        x, 2.5 * x, 2.5, 0.0, "2.5 * x");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(v(0) / 2.5);
        },
        x, x / 2.5, 1.0 / 2.5, 0.0, "x / 2.5");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(2.5 / v(0));
        },
        x, 2.5 / x, -2.5 / (x * x), 5.0 / (x * x * x), "2.5 / x");
    // Integer constants convert like doubles.
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(3 / v(0) - v(0) * 2);
        },
        x, 3.0 / x - 2.0 * x, -3.0 / (x * x) - 2.0, 6.0 / (x * x * x), "3 / x - x * 2");
  }
}

BOOST_AUTO_TEST_CASE(unary_minus_and_plus) {
  for (const Eigen::Vector2d& p : points) {
    const double x = p(0), y = p(1);
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(-v(0));
        },
        x, -x, -1.0, 0.0, "-x");
    expect_1d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(+v(0));
        },
        x, x, 1.0, 0.0, "+x");
    // Minus in front of an expression, and nested.
    Eigen::Matrix2d h;
    h << 0.0, -1.0, -1.0, 0.0;
    expect_2d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(-(v(0) * v(1)));
        },
        p, {-x * y, {-y, -x}, h}, "-(x * y)");
    expect_2d(
        [](const auto& v) {
          using S = std::decay_t<decltype(v(0))>;
          return S(-(-(v(0) * v(1))));
        },
        p, {x * y, {y, x}, -h}, "-(-(x * y))");
  }
}

BOOST_AUTO_TEST_CASE(compound_assignment_with_vars_constants_and_expressions) {
  for (const Eigen::Vector2d& p : points) {
    const double x = p(0), y = p(1);
    // u = ((x + y) − 2)·x / y, built with compound assignments only.
    auto f = [](const auto& v) {
      using S = std::decay_t<decltype(v(0))>;
      S u = v(0);
      u += v(1);
      u -= 2.0;
      u *= v(0);
      u /= v(1);
      return u;
    };
    const double u = (x + y - 2.0) * x / y;
    // ∂u/∂x = (2x + y − 2)/y, ∂u/∂y = x/y − (x + y − 2)x/y² = x(2 − x)/y².
    Eigen::Matrix2d h;
    h << 2.0 / y, -(2.0 * x + y - 2.0) / (y * y) + 1.0 / y,  //
        -(2.0 * x + y - 2.0) / (y * y) + 1.0 / y, -2.0 * x * (2.0 - x) / (y * y * y);
    expect_2d(f, p, {u, {(2.0 * x + y - 2.0) / y, x * (2.0 - x) / (y * y)}, h},
              "compound with Vars");
    // With constants on the right and an expression on the right.
    auto g = [](const auto& v) {
      using S = std::decay_t<decltype(v(0))>;
      S u = v(0);
      u *= 3.0;
      u += v(0) * v(1);
      u /= 2;
      u -= v(1) / 4;
      return u;
    };
    Eigen::Matrix2d hg;
    hg << 0.0, 0.5, 0.5, 0.0;
    expect_2d(g, p, {(3.0 * x + x * y) / 2.0 - y / 4.0, {(3.0 + y) / 2.0, x / 2.0 - 0.25}, hg},
              "compound with constants and expressions");
  }
}

BOOST_AUTO_TEST_CASE(compound_assignment_with_aliasing) {
  for (const Eigen::Vector2d& p : points) {
    const double x = p(0);
    // u = x; u *= u (x²); u += u (2x²); u -= x (2x² − x); u /= u·u... checked step by step.
    auto f = [](const auto& v) {
      using S = std::decay_t<decltype(v(0))>;
      S u = v(0);
      u *= u;
      u += u;
      u = u * u - u;  // plain assignment with the target on both sides: 4x⁴ − 2x²
      return u;
    };
    expect_1d(f, x, 4 * std::pow(x, 4) - 2 * x * x, 16 * std::pow(x, 3) - 4 * x, 48 * x * x - 4,
              "aliasing");
    auto g = [](const auto& v) {
      using S = std::decay_t<decltype(v(0))>;
      S u = v(0) + 1.0;
      S w = u;
      w /= u;  // exactly 1, derivative 0
      w -= u;  // 1 − (x + 1) = −x
      return w;
    };
    expect_1d(g, x, -x, -1.0, 0.0, "u / u - u");
  }
}

BOOST_AUTO_TEST_CASE(comparisons_look_at_values_and_record_nothing) {
  ngvi::ad::TapeScope<double> scope;
  auto& tape = scope.tape();
  const Var<double> a = Var<double>::independent(1.5);
  const Var<double> b = Var<double>::independent(-2.0);
  const std::size_t statements = tape.num_statements();
  const std::size_t operands = tape.num_operands();
  BOOST_TEST(a > b);
  BOOST_TEST(!(a < b));
  BOOST_TEST(a >= b);
  BOOST_TEST(!(a <= b));
  BOOST_TEST(a != b);
  BOOST_TEST(!(a == b));
  BOOST_TEST(a == 1.5);
  BOOST_TEST(1.5 == a);
  BOOST_TEST(a < 2);
  BOOST_TEST(2 > a);
  BOOST_TEST(b <= -2.0);
  BOOST_TEST(-2.0 >= b);
  BOOST_TEST((a * b < a + b));  // −3 < −0.5, on unrecorded expressions
  BOOST_TEST((a * b == -3.0));
  BOOST_TEST((!(a * b != -3.0)));
  BOOST_TEST((a - b > 3));
  BOOST_TEST(tape.num_statements() == statements);
  BOOST_TEST(tape.num_operands() == operands);
}

BOOST_AUTO_TEST_CASE(branches_follow_the_primal_value) {
  // A branch on a comparison takes the derivative of the branch taken.
  auto f = [](const auto& v) {
    using S = std::decay_t<decltype(v(0))>;
    if (v(0) > 1.0) return S(v(0) * v(0));
    return S(3.0 * v(0));
  };
  expect_1d(f, 2.0, 4.0, 4.0, 2.0, "upper branch");
  expect_1d(f, 0.5, 1.5, 3.0, 0.0, "lower branch");
}

BOOST_AUTO_TEST_CASE(expression_records_one_statement_with_one_operand_per_leaf) {
  ngvi::ad::TapeScope<double> scope;
  auto& tape = scope.tape();
  const Var<double> a = Var<double>::independent(0.5);
  const Var<double> b = Var<double>::independent(-1.5);
  const Var<double> s = Var<double>::independent(2.0);
  const std::size_t st0 = tape.num_statements(), op0 = tape.num_operands();
  const Var<double> y = log(1.0 + exp(a * b)) + s * s;
  BOOST_TEST(tape.num_statements() == st0 + 1);
  // a, b and s twice: a leaf that occurs twice is pushed twice (its adjoint accumulates).
  BOOST_TEST(tape.num_operands() == op0 + 4);
  // Constant-only arithmetic records nothing and yields a constant.
  const Var<double> c = Var<double>(2.0) * 3.0 + 1.0;
  BOOST_TEST(!c.is_active());
  BOOST_TEST(c.value() == 7.0);
  BOOST_TEST(tape.num_statements() == st0 + 1);
  // The statement's partials are right: dy/da = b σ(ab), dy/db = a σ(ab), dy/ds = 2s.
  tape.zero_adjoints();
  tape.adjoint(y.index()) = 1.0;
  tape.reverse(scope.mark());
  const double sig = 1.0 / (1.0 + std::exp(0.75));
  NGVI_CHECK_REPORT(vf::compare(
      Eigen::Vector3d(tape.adjoint(a.index()), tape.adjoint(b.index()), tape.adjoint(s.index())),
      Eigen::Vector3d(-1.5 * sig, 0.5 * sig, 4.0), tol::closed_form, "partials"));
}

BOOST_AUTO_TEST_SUITE_END()
