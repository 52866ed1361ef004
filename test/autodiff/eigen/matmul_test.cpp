// Tests of autodiff/eigen/matmul.hpp (and, through Hessians, dual_matmul.hpp): fused products
// with double×Var, Var×double and Var×Var operands, contiguous and scattered operands (a
// row-major block read transposed), against Eigen's scalar product on Var and finite
// differences; double×double is Eigen's product; the dual product with unit-seeded tangents has
// the bits of Eigen's GEMM; mismatched shapes throw naming both shapes.
#include <cmath>
#include <cstring>
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

BOOST_AUTO_TEST_CASE(unit_seeded_tangents_give_the_bits_of_the_dense_product) {
  // A Hessian driver seeds tangent k of its inputs with one unit entry; the dual product then
  // scales columns of A instead of running the wide GEMM A.v·[B.d_0 … B.d_K−1]. Against that
  // GEMM (Eigen's), bit for bit: entries of either sign, an empty tangent, and zeros in A whose
  // products must come out +0 as the GEMM's do.
  constexpr int K = 4;
  const Eigen::Index m = 7, inner = 5, n = 3;
  Eigen::MatrixXd Av = fixed_matrix(m, inner, 0.3), Bv = fixed_matrix(inner, n, 1.1);
  Av(2, 1) = 0.0;
  Av(4, 1) = -0.0;
  Eigen::MatrixXd Bd = Eigen::MatrixXd::Zero(inner, K * n);  // tangent k: columns k·n … k·n + n−1
  Bd(1, 0 * n + 2) = -1.5;                                   // tangent 0: B(1, 2)
  Bd(4, 1 * n + 0) = 1.0;                                    // tangent 1: B(4, 0)
  Bd(1, 3 * n + 1) = 0.25;                                   // tangent 3: B(1, 1); tangent 2 empty
  ad::detail::SplitDual<K> A, B;
  A.rows = m;
  A.cols = inner;
  A.v = Av.data();
  B.rows = inner;
  B.cols = n;
  B.v = Bv.data();
  B.d = Bd.data();
  B.has_tangent = true;
  Eigen::MatrixXd Cv(m, n), Cd(m, K * n);
  ad::detail::DualMatmulNode<K>::product(A, B, Cv.data(), Cd.data());
  const Eigen::MatrixXd dense = Av * Bd;
  BOOST_TEST(std::memcmp(Cd.data(), dense.data(),
                         sizeof(double) * static_cast<std::size_t>(Cd.size())) == 0);
  BOOST_TEST(!std::signbit(Cd(4, 3 * n + 1)));  // −0 · 0.25: +0, as the GEMM's sum gives
  BOOST_TEST(!std::signbit(Cd(2, 0 * n + 2)));  // 0 · (−1.5) likewise
  // A second entry in a tangent takes the GEMM itself. A check that the fallback is taken and
  // sound; the GEMM on both sides makes it hold by construction.
  Bd(3, 3 * n + 2) = 2.0;
  ad::detail::DualMatmulNode<K>::product(A, B, Cv.data(), Cd.data());
  const Eigen::MatrixXd dense2 = Av * Bd;
  BOOST_TEST(std::memcmp(Cd.data(), dense2.data(),
                         sizeof(double) * static_cast<std::size_t>(Cd.size())) == 0);
  NGVI_CHECK_REPORT(vf::compare(Cv, (Av * Bv).eval(), tol::exact, "values of the dual product"));
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
