// Tests of autodiff/functional/value_and_gradient.hpp: value and gradient of functions of 1
// to 10^5 variables against closed forms (a 10^5-variable chain whose gradient is computed by
// hand, backwards), against finite differences through check_gradient, and against the
// value of the same generic function evaluated on double; functions that ignore some inputs
// or are constant; Eigen expressions of Var inside the function; and calls nested inside an
// outer recording.
#include <cmath>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/tape_scope.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/check.hpp>
#include <autodiff/verify/test_problems.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(value_and_gradient_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::Var;

using ngvi::ad::verify::problems::Rosenbrock;

// A chain: y_0 = x_0, y_i = sin(y_{i−1}) + x_i·c_i, f = y_{n−1}, with c_i = 1 + i mod 3.
// ∂f/∂x_i = c_i Π_{j>i} cos(y_{j−1}), accumulated backwards in double by hand.
struct Chain {
  template <class X>
  auto operator()(const X& x) const {
    using std::sin;
    using S = std::decay_t<decltype(x(0))>;
    S y = x(0);
    for (Eigen::Index i = 1; i < x.size(); ++i) y = sin(y) + x(i) * static_cast<double>(1 + i % 3);
    return y;
  }
  static Eigen::VectorXd grad(const Eigen::VectorXd& x) {
    const Eigen::Index n = x.size();
    std::vector<double> y(static_cast<std::size_t>(n));
    y[0] = x(0);
    for (Eigen::Index i = 1; i < n; ++i)
      y[static_cast<std::size_t>(i)] =
          std::sin(y[static_cast<std::size_t>(i - 1)]) + x(i) * static_cast<double>(1 + i % 3);
    Eigen::VectorXd g(n);
    double dfdy = 1.0;  // ∂f/∂y_i, walking i downwards
    for (Eigen::Index i = n - 1; i >= 1; --i) {
      g(i) = dfdy * static_cast<double>(1 + i % 3);
      dfdy *= std::cos(y[static_cast<std::size_t>(i - 1)]);
    }
    g(0) = dfdy;
    return g;
  }
};

Eigen::VectorXd test_point(Eigen::Index n) {
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) x(i) = 0.9 * std::cos(0.7 * static_cast<double>(i) + 0.3);
  return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_variable) {
  auto f = [](const auto& x) {
    using std::exp;
    using std::sin;
    using S = std::decay_t<decltype(x(0))>;
    return S(exp(sin(x(0))) * x(0));
  };
  for (double x : {-2.0, -0.3, 0.0, 0.8, 5.0}) {
    Eigen::VectorXd g;
    const double v = ngvi::ad::value_and_gradient(f, Eigen::VectorXd::Constant(1, x), g);
    const double e = std::exp(std::sin(x));
    NGVI_CHECK_REPORT(vf::compare(v, e * x, tol::closed_form, "value"));
    NGVI_CHECK_REPORT(
        vf::compare(g(0), e * (std::cos(x) * x + 1.0), tol::closed_form, "derivative"));
  }
}

BOOST_AUTO_TEST_CASE(rosenbrock_from_2_to_1000_variables) {
  for (Eigen::Index n : {2, 3, 10, 100, 1000}) {
    BOOST_TEST_CONTEXT("n = " << n) {
      const Eigen::VectorXd x = test_point(n);
      Eigen::VectorXd g;
      const double v = ngvi::ad::value_and_gradient(Rosenbrock{}, x, g);
      NGVI_CHECK_REPORT(
          vf::compare(v, Rosenbrock{}(x), tol::ad_vs_ad, "Var value vs double value"));
      NGVI_CHECK_REPORT(
          vf::compare(g, Rosenbrock::gradient(x), tol::closed_form, "gradient vs closed form"));
      NGVI_CHECK_REPORT(vf::compare(ngvi::ad::gradient(Rosenbrock{}, x), g, tol::exact,
                                    "gradient() vs value_and_gradient"));
    }
  }
  // And against finite differences at a few sizes.
  for (Eigen::Index n : {2, 7}) NGVI_CHECK_REPORT(vf::check_gradient(Rosenbrock{}, test_point(n)));
}

BOOST_AUTO_TEST_CASE(chain_of_100000_variables) {
  constexpr Eigen::Index n = 100000;
  const Eigen::VectorXd x = test_point(n);
  Eigen::VectorXd g;
  const double v = ngvi::ad::value_and_gradient(Chain{}, x, g);
  BOOST_TEST(g.size() == n);
  NGVI_CHECK_REPORT(vf::compare(v, Chain{}(x), tol::ad_vs_ad, "value"));
  NGVI_CHECK_REPORT(
      vf::compare(g, Chain::grad(x), tol::closed_form, "gradient of the 1e5 chain vs closed form"));
  // The gradient is not trivially small everywhere: the last inputs matter at order 1.
  BOOST_TEST(g(n - 1) == 1.0);  // ∂f/∂x_{n−1} = c_{n−1} = 1 + (99999 mod 3) = 1, exactly
  BOOST_TEST(g(n - 2) == 3.0 * std::cos(Chain{}(Eigen::VectorXd(x.head(n - 1)))),
             boost::test_tools::tolerance(1e-12));  // c_{n−2} cos(y_{n−2})
  NGVI_CHECK_REPORT(vf::check_gradient(Chain{}, test_point(12)));
}

BOOST_AUTO_TEST_CASE(sum_of_squares_of_100000_variables) {
  // One Eigen reduction over 1e5 Vars: ∇ ½‖x‖² = x.
  constexpr Eigen::Index n = 100000;
  auto f = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    return S(0.5 * x.squaredNorm());
  };
  const Eigen::VectorXd x = test_point(n);
  Eigen::VectorXd g;
  const double v = ngvi::ad::value_and_gradient(f, x, g);
  NGVI_CHECK_REPORT(vf::compare(g, x, tol::closed_form, "gradient of ½‖x‖²"));
  long double sum = 0.0L;  // a reference sum that does not depend on Eigen's summation order
  for (Eigen::Index i = 0; i < n; ++i) sum += static_cast<long double>(x(i)) * x(i);
  NGVI_CHECK_REPORT(vf::compare(v, static_cast<double>(0.5L * sum), tol::closed_form, "value"));
}

BOOST_AUTO_TEST_CASE(eigen_expressions_of_vars) {
  // f = ½ xᵀAx + bᵀx with a non-symmetric A: ∇f = ½(A + Aᵀ)x + b.
  Eigen::Matrix3d A;
  A << 2.0, -1.0, 0.5, 0.3, 4.0, 1.0, -2.0, 0.0, 1.5;
  const Eigen::Vector3d b(1.0, -2.0, 0.25);
  auto f = [&](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    const auto As = A.cast<S>();
    const auto bs = b.cast<S>();
    return S(0.5 * x.dot(As * x) + bs.dot(x));
  };
  const Eigen::Vector3d x(0.4, -1.1, 2.0);
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::gradient(f, x),
                                (0.5 * (A + A.transpose()) * x + b).eval(), tol::closed_form,
                                "gradient of a quadratic form"));
}

BOOST_AUTO_TEST_CASE(unused_inputs_and_constant_functions_have_zero_gradients) {
  auto partial = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    return S(x(1) * x(1));
  };
  Eigen::VectorXd g;
  const double v = ngvi::ad::value_and_gradient(partial, Eigen::Vector3d(5.0, 3.0, -1.0), g);
  BOOST_TEST(v == 9.0);
  NGVI_CHECK_REPORT(vf::compare(g, Eigen::Vector3d(0.0, 6.0, 0.0), tol::exact, "only x1 is used"));
  auto constant = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    return S(4.5);
  };
  g.setConstant(3, 7.0);
  const double c = ngvi::ad::value_and_gradient(constant, Eigen::Vector3d(1.0, 2.0, 3.0), g);
  BOOST_TEST(c == 4.5);
  NGVI_CHECK_REPORT(vf::compare(g, Eigen::Vector3d::Zero(), tol::exact, "constant function"));
  // No inputs at all.
  auto none = [](const auto& x) {
    using S = typename std::decay_t<decltype(x)>::Scalar;
    return S(2.0);
  };
  Eigen::VectorXd g0;
  BOOST_TEST(ngvi::ad::value_and_gradient(none, Eigen::VectorXd(0), g0) == 2.0);
  BOOST_TEST(g0.size() == 0);
}

BOOST_AUTO_TEST_CASE(nested_inside_an_outer_recording) {
  ngvi::ad::TapeScope<double> outer;
  auto& t = outer.tape();
  const Var<double> a = Var<double>::independent(2.0);
  const Var<double> b = a * a;
  const std::size_t vars = t.num_vars();
  const Eigen::VectorXd g = ngvi::ad::gradient(Rosenbrock{}, test_point(5));
  NGVI_CHECK_REPORT(
      vf::compare(g, Rosenbrock::gradient(test_point(5)), tol::closed_form, "inner gradient"));
  BOOST_TEST(t.num_vars() == vars);
  const Var<double> c = b * a;
  t.zero_adjoints();
  t.adjoint(c.index()) = 1.0;
  t.reverse(outer.mark());
  BOOST_TEST(t.adjoint(a.index()) == 12.0);  // d(a³)/da at 2
}

BOOST_AUTO_TEST_SUITE_END()
