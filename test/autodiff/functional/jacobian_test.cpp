// Tests of autodiff/functional/jacobian.hpp: the m×n Jacobian of a vector function against a
// closed form, against the gradients of each output taken separately (AD vs AD: row i of the
// Jacobian is ∇f_i), and against finite differences of each output; the value output;
// outputs that are constant or copy an input; more outputs than inputs.
#include <cmath>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/jacobian.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/finite_diff.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(jacobian_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

// f: R³ → R², f = (x0 x1 sin x2, x0² + e^{x1} x2).
struct Small {
  template <class X>
  auto operator()(const X& x) const {
    using std::exp;
    using std::sin;
    using S = std::decay_t<decltype(x(0))>;
    Eigen::Matrix<S, Eigen::Dynamic, 1> y(2);
    y(0) = x(0) * x(1) * sin(x(2));
    y(1) = x(0) * x(0) + exp(x(1)) * x(2);
    return y;
  }
};

// f: R⁵ → R⁴ with outputs mixing all inputs; output i as a scalar function for gradient().
struct Wide {
  template <class X>
  auto operator()(const X& x) const {
    using std::cos;
    using std::log1p;
    using std::tanh;
    using S = std::decay_t<decltype(x(0))>;
    Eigen::Matrix<S, Eigen::Dynamic, 1> y(4);
    y(0) = tanh(x(0) + 2.0 * x(1)) * x(4);
    y(1) = log1p(x(2) * x(2)) + x(3) / (1.0 + x(0) * x(0));
    y(2) = cos(x(1) * x(3)) - x(2) * x(4);
    y(3) = x(0) * x(1) * x(2) * x(3) * x(4);
    return y;
  }
};

template <class F>
struct Component {
  F f;
  Eigen::Index i;
  template <class X>
  auto operator()(const X& x) const {
    return f(x)(i);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(matches_the_closed_form_and_returns_the_value) {
  const Eigen::Vector3d x(1.5, -0.4, 0.9);
  Eigen::VectorXd value;
  const Eigen::MatrixXd J = ngvi::ad::jacobian(Small{}, x, &value);
  Eigen::Matrix<double, 2, 3> exact;
  exact << x(1) * std::sin(x(2)), x(0) * std::sin(x(2)), x(0) * x(1) * std::cos(x(2)),  //
      2.0 * x(0), std::exp(x(1)) * x(2), std::exp(x(1));
  BOOST_TEST(J.rows() == 2);
  BOOST_TEST(J.cols() == 3);
  NGVI_CHECK_REPORT(vf::compare(J, exact, tol::closed_form, "Jacobian vs closed form"));
  NGVI_CHECK_REPORT(vf::compare(value, Small{}(x), tol::ad_vs_ad, "value vs double evaluation"));
}

BOOST_AUTO_TEST_CASE(rows_are_the_gradients_of_the_outputs) {
  const Eigen::VectorXd points[] = {Eigen::VectorXd::LinSpaced(5, -1.0, 1.0),
                                    Eigen::VectorXd::LinSpaced(5, 0.3, 2.2)};
  for (const Eigen::VectorXd& x : points) {
    BOOST_TEST_CONTEXT("x = " << x.transpose()) {
      const Eigen::MatrixXd J = ngvi::ad::jacobian(Wide{}, x);
      BOOST_TEST(J.rows() == 4);
      BOOST_TEST(J.cols() == 5);
      for (Eigen::Index i = 0; i < 4; ++i) {
        BOOST_TEST_CONTEXT("output " << i) {
          const Component<Wide> fi{Wide{}, i};
          const Eigen::VectorXd gi = ngvi::ad::gradient(fi, x);
          NGVI_CHECK_REPORT(
              vf::compare(J.row(i).transpose(), gi, tol::ad_vs_ad, "Jacobian row vs gradient()"));
          NGVI_CHECK_REPORT(vf::compare(J.row(i).transpose(), vf::finite_diff_gradient(fi, x),
                                        tol::gradient_vs_fd, "Jacobian row vs finite differences"));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(constant_and_copied_outputs) {
  auto f = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    Eigen::Matrix<S, Eigen::Dynamic, 1> y(4);
    y(0) = S(3.0);  // constant: a zero row
    y(1) = x(1);    // a copy of an input: a unit row
    y(2) = x(0) * x(2);
    y(3) = x(1);  // the same input again
    return y;
  };
  const Eigen::Vector3d x(2.0, -1.0, 0.5);
  Eigen::VectorXd value;
  const Eigen::MatrixXd J = ngvi::ad::jacobian(f, x, &value);
  Eigen::Matrix<double, 4, 3> exact;
  exact << 0, 0, 0,  //
      0, 1, 0,       //
      0.5, 0, 2.0,   //
      0, 1, 0;
  NGVI_CHECK_REPORT(vf::compare(J, exact, tol::exact, "Jacobian with constant and copied outputs"));
  NGVI_CHECK_REPORT(
      vf::compare(value, Eigen::Vector4d(3.0, -1.0, 1.0, -1.0), tol::exact, "values"));
}

BOOST_AUTO_TEST_CASE(more_outputs_than_inputs) {
  // f: R → R⁶, f_k = x^k: J = (k x^{k−1})_k.
  auto f = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    Eigen::Matrix<S, Eigen::Dynamic, 1> y(6);
    S p = 1.0;
    for (int k = 0; k < 6; ++k) {
      y(k) = p;
      p = p * x(0);
    }
    return y;
  };
  const double x = 1.7;
  const Eigen::MatrixXd J = ngvi::ad::jacobian(f, Eigen::VectorXd::Constant(1, x));
  Eigen::VectorXd exact(6);
  for (int k = 0; k < 6; ++k) exact(k) = k == 0 ? 0.0 : k * std::pow(x, k - 1);
  NGVI_CHECK_REPORT(vf::compare(J.col(0), exact, tol::closed_form, "derivatives of the powers"));
}

BOOST_AUTO_TEST_SUITE_END()
