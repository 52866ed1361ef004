// Tests of autodiff/eigen/matmul.hpp (and, through Hessians, dual_matmul.hpp): fused products
// with double×Var, Var×double and Var×Var operands, contiguous and scattered operands (a
// row-major block read transposed), against Eigen's scalar product on Var and finite
// differences; double×double is Eigen's product; mismatched shapes throw naming both shapes.
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(matmul_test)
namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using RowMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

Eigen::MatrixXd fixed_matrix(Eigen::Index r, Eigen::Index c, double phase) {
  Eigen::MatrixXd m(r, c);
  for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = std::sin(phase + 0.7 * static_cast<double>(i));
  return m;
}

// θ (12) = W (3×4, row-major). Uses every operand combination; Fused selects the route.
template <bool Fused>
struct Chain {
  Eigen::MatrixXd X = fixed_matrix(5, 3, 1.0);
  Eigen::MatrixXd Y = fixed_matrix(4, 2, 2.0);
  template <class V>
  auto operator()(const V& theta) const {
    using T = typename V::Scalar;
    const RowMap<T> W(theta.data(), 3, 4);
    auto product = [](const auto& a, const auto& b) {
      if constexpr (Fused) {
        return ad::matmul(a, b);
      } else {
        using S = typename Eigen::ScalarBinaryOpTraits<
            typename std::decay_t<decltype(a)>::Scalar,
            typename std::decay_t<decltype(b)>::Scalar>::ReturnType;
        // Eigen's GEMM kernels do not mix double with Var: cast both sides (one reason the
        // fused node exists).
        return Mat<S>(a.template cast<S>() * b.template cast<S>());
      }
    };
    const Mat<T> Z = product(X, W);               // double × Var (W scattered)
    const Mat<T> Z2 = product(Z, W.transpose());  // Var × Var (Wᵀ contiguous)
    const Mat<T> Z3 = product(W, Y);              // Var × double
    T s = 0.0;
    using std::sin;
    for (Eigen::Index i = 0; i < Z2.size(); ++i) s += sin(Z2(i));
    for (Eigen::Index i = 0; i < Z3.size(); ++i) s += Z3(i) * Z3(i);
    return s;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(every_operand_combination_matches_the_scalar_route_and_finite_differences) {
  Eigen::VectorXd theta(12);
  for (Eigen::Index i = 0; i < 12; ++i) theta(i) = 0.3 * std::cos(1.0 + static_cast<double>(i));
  ngvi::test::check_fused_against_scalar(Chain<true>{}, Chain<false>{}, theta);
}

BOOST_AUTO_TEST_CASE(double_operands_give_eigens_product) {
  const Eigen::MatrixXd A = fixed_matrix(4, 3, 0.5), B = fixed_matrix(3, 6, 1.5);
  const Eigen::MatrixXd C = ad::matmul(A, B);
  NGVI_CHECK_REPORT(vf::compare(C, (A * B).eval(), tol::exact, "matmul on doubles vs Eigen"));
}

BOOST_AUTO_TEST_CASE(a_product_of_constants_records_nothing) {
  ad::TapeScope<double> scope;
  const std::size_t before = scope.tape().num_statements();
  const Mat<ad::Var<double>> A = fixed_matrix(2, 2, 0.1).cast<ad::Var<double>>();
  const Mat<ad::Var<double>> C = ad::matmul(A, A);
  BOOST_TEST(scope.tape().num_statements() == before);
  BOOST_TEST(!C(0, 0).is_active());
  const Eigen::MatrixXd Ad = fixed_matrix(2, 2, 0.1);
  BOOST_TEST(C(1, 0).value() == (Ad * Ad)(1, 0));
}

BOOST_AUTO_TEST_CASE(mismatched_shapes_throw_naming_both) {
  ad::TapeScope<double> scope;
  const Mat<ad::Var<double>> A = fixed_matrix(2, 3, 0.1).cast<ad::Var<double>>();
  try {
    (void)ad::matmul(A, fixed_matrix(2, 3, 0.2));
    BOOST_FAIL("matmul of 2x3 by 2x3 did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.find("2x3 and 2x3") != std::string::npos, msg);
  }
}

BOOST_AUTO_TEST_SUITE_END()
