// The input form of the scalar drivers (autodiff/functional/concepts.hpp): a function declared
// on ad::MatrixVar gets x as one matrix variable from value_and_gradient, gradient_and_hvp and
// hessian, a generic function the Eigen vector of Var it always got. W1's chain written on the
// handle, f(x) = Σ log(1 + exp(x_i x_{i+1})) + Σ sin(x_i)² (i < n − 1), against its gradient in
// closed form, the same function written with scalar statements (an independent route) and
// finite differences; with identical bits to the same nodes reached through as_matrix of the
// vector route (the handle changes how the input reaches the nodes, not what they compute); and
// recorded after every tape history of support/position_independence.hpp.
#include <cmath>
#include <concepts>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>

#include <support/check_report.hpp>
#include <support/position_independence.hpp>

#include "../eigen/routes.hpp"

BOOST_AUTO_TEST_SUITE(driver_inputs_test)
namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::test::spread;

// The chain's nodes on any matrix form of x (a MatrixVar, or an Eigen vector of double).
template <class X>
auto chain_nodes(const X& x) {
  const Eigen::Index m = x.size() - 1;
  return ad::sum(ad::log1p_exp(ad::cwise_product(x.head(m), x.tail(m)))) +
         ad::squared_norm(ad::sin(x.head(m)));
}

// Declared on the handle (and on double, for the finite differences of check_gradient).
struct ChainOnHandle {
  template <class Real>
  ad::Var<Real> operator()(const ad::MatrixVar<Real>& x) const {
    return ad::Var<Real>(chain_nodes(x));
  }
  template <class D>
  requires std::same_as<typename D::Scalar, double>
  double operator()(const Eigen::MatrixBase<D>& x) const { return chain_nodes(Eigen::VectorXd(x)); }
};

// The same nodes, reached from the vector of Var through as_matrix (one copy of the values).
struct ChainThroughAsMatrix {
  template <class T>
  T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    return T(chain_nodes(ad::as_matrix(x)));
  }
};

// One scalar statement per term: the peers' loop.
struct ChainScalar {
  template <class T>
  T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    using std::exp;
    using std::log;
    using std::sin;
    T f = 0.0;
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const T s = sin(x(i));
      f += log(1.0 + exp(x(i) * x(i + 1))) + s * s;
    }
    return f;
  }
};

// ∂f/∂x_i = σ(x_i x_{i+1}) x_{i+1} + sin(2 x_i) [i < n − 1] + σ(x_{i−1} x_i) x_{i−1} [i > 0].
Eigen::VectorXd chain_gradient(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    const double s = 1.0 / (1.0 + std::exp(-x(i) * x(i + 1)));
    g(i) += s * x(i + 1) + std::sin(2.0 * x(i));
    g(i + 1) += s * x(i);
  }
  return g;
}

const Eigen::VectorXd x0 = spread(23, -1.3, 2.6, 0.4);

BOOST_AUTO_TEST_CASE(a_function_declared_on_the_handle_gets_the_handle) {
  using ad::detail::driver_input_t;
  static_assert(std::is_same_v<driver_input_t<ChainOnHandle, double>, ad::MatrixVar<double>>);
  static_assert(std::is_same_v<driver_input_t<ChainOnHandle, ad::Dual<double, 8>>,
                               ad::MatrixVar<ad::Dual<double, 8>>>);
  static_assert(std::is_same_v<driver_input_t<ChainScalar, double>, ad::VarVector<double>>);
  auto generic = [](const auto& x) { return x(0) * x(1); };
  static_assert(std::is_same_v<driver_input_t<decltype(generic), double>, ad::VarVector<double>>);
  // The function sees one n×1 handle of n fresh variables: nothing else on the tape before it.
  ad::Tape<double>& tape = ad::active_tape<double>();
  std::size_t vars_seen = 0;
  Eigen::Index rows = 0, cols = 0;
  auto probe = [&](const ad::MatrixVar<double>& x) {
    vars_seen = tape.num_vars();
    rows = x.rows();
    cols = x.cols();
    return ChainOnHandle{}(x);
  };
  Eigen::VectorXd g;
  const double f = ad::value_and_gradient(probe, x0, g);
  BOOST_TEST(vars_seen == static_cast<std::size_t>(x0.size()));
  BOOST_TEST((rows == x0.size() && cols == 1));
  BOOST_TEST(f == ChainScalar{}(x0), boost::test_tools::tolerance(1e-14));
  NGVI_CHECK_REPORT(vf::compare(g, chain_gradient(x0), tol::ad_vs_ad,
                                "gradient on the handle vs the closed form"));
}

BOOST_AUTO_TEST_CASE(the_handle_route_matches_the_scalar_route_and_finite_differences) {
  ngvi::test::check_fused_against_scalar(ChainOnHandle{}, ChainScalar{}, x0);
}

BOOST_AUTO_TEST_CASE(the_handle_route_gives_the_bits_of_as_matrix_on_the_vector_route) {
  ngvi::test::check_same_bits("input handle vs as_matrix(vector of Var)", ChainOnHandle{},
                              ChainThroughAsMatrix{}, x0);
  Eigen::VectorXd v(x0.size()), g_handle, hv_handle, g_vector, hv_vector;
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = 0.7 - 0.2 * static_cast<double>(i % 4);
  const double y_handle = ad::gradient_and_hvp(ChainOnHandle{}, x0, v, g_handle, hv_handle);
  const double y_vector = ad::gradient_and_hvp(ChainThroughAsMatrix{}, x0, v, g_vector, hv_vector);
  NGVI_CHECK_BITWISE(y_handle, y_vector, "gradient_and_hvp: value");
  NGVI_CHECK_BITWISE(g_handle, g_vector, "gradient_and_hvp: gradient");
  NGVI_CHECK_BITWISE(hv_handle, hv_vector, "gradient_and_hvp: Hessian-vector product");
  // hessian<3>: a partial last block (23 = 7·3 + 2), the same bits on both routes.
  double value_handle = 0, value_vector = 0;
  Eigen::VectorXd grad_handle, grad_vector;
  const Eigen::MatrixXd H_handle = ad::hessian<3>(ChainOnHandle{}, x0, &value_handle, &grad_handle);
  const Eigen::MatrixXd H_vector =
      ad::hessian<3>(ChainThroughAsMatrix{}, x0, &value_vector, &grad_vector);
  NGVI_CHECK_BITWISE(value_handle, value_vector, "hessian<3>: value");
  NGVI_CHECK_BITWISE(grad_handle, grad_vector, "hessian<3>: gradient");
  NGVI_CHECK_BITWISE(H_handle, H_vector, "hessian<3>: Hessian");
  NGVI_CHECK_REPORT(vf::compare(grad_handle, chain_gradient(x0), tol::ad_vs_ad,
                                "hessian<3>'s gradient on the handle vs the closed form"));
}

BOOST_AUTO_TEST_CASE(a_template_lambda_on_the_handle_as_the_user_guide_writes_it) {
  auto chain = []<class Real>(const ad::MatrixVar<Real>& x) {
    const Eigen::Index m = x.size() - 1;
    const auto a = x.head(m), b = x.tail(m);
    return ad::Var<Real>(ad::sum(ad::log1p_exp(ad::cwise_product(a, b))) +
                         ad::squared_norm(ad::sin(a)));
  };
  ngvi::test::check_same_bits("the user guide's lambda vs ChainOnHandle", chain, ChainOnHandle{},
                              x0);
  Eigen::VectorXd g;
  ad::value_and_gradient(chain, x0, g);
  NGVI_CHECK_REPORT(vf::compare(g, chain_gradient(x0), tol::ad_vs_ad,
                                "the user guide's lambda vs the closed form"));
}

BOOST_AUTO_TEST_CASE(the_handle_route_is_independent_of_tape_position) {
  ngvi::test::check_position_independence("W1 chain on an input handle", ChainOnHandle{}, x0);
}

BOOST_AUTO_TEST_CASE(wrong_tangents_are_named_on_the_handle_route_too) {
  Eigen::VectorXd g, hv;
  try {
    ad::gradient_and_hvp(ChainOnHandle{}, x0, Eigen::VectorXd::Ones(4), g, hv);
    BOOST_ERROR("a direction of the wrong size did not throw");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()) ==
               "ngvi::ad::hvp: direction v has 4 entries, expected 23 (the size of x)");
  }
  ad::Recording<ad::Dual<double, 2>> rec;
  BOOST_CHECK_THROW((void)rec.input_vector(x0, Eigen::MatrixXd::Ones(23, 3)),
                    std::invalid_argument);
}

}  // namespace
BOOST_AUTO_TEST_SUITE_END()
