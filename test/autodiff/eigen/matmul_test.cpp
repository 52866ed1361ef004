// Tests of autodiff/eigen/matmul.hpp (and, through Hessians, dual_matmul.hpp): fused products
// with double×Var, Var×double and Var×Var operands, contiguous and scattered operands (a
// row-major block read transposed), against Eigen's scalar product on Var and finite
// differences; double×double is Eigen's product; the dual product with unit-seeded tangents has
// the bits of Eigen's GEMM; mismatched shapes throw naming both shapes. affine(X, W, b) against
// the same scalar route and finite differences, and against add_rowwise(matmul(X, W), b) bit for
// bit on every route of the dual product (unit seeds, dense tangents, a matrix times a vector).
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

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
  // C's tangent k as columns k·n … k·n + n−1 of one matrix, as the dense GEMM lays them out.
  auto tangents_of = [&](const std::vector<ad::Dual<double, K>>& C) {
    Eigen::MatrixXd T(m, K * n);
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < m; ++i)
        for (int k = 0; k < K; ++k) T(i, k * n + j) = C[static_cast<std::size_t>(i + j * m)].d[k];
    return T;
  };
  Eigen::MatrixXd Cv(m, n), Cd(m, K * n);
  std::vector<ad::Dual<double, K>> C(static_cast<std::size_t>(m * n));
  ad::detail::DualMatmulNode<K>::product(A, B, nullptr, Cv.data(), Cd.data(), C.data());
  const Eigen::MatrixXd dense = Av * Bd;
  const Eigen::MatrixXd Ct = tangents_of(C);
  BOOST_TEST(std::memcmp(Ct.data(), dense.data(),
                         sizeof(double) * static_cast<std::size_t>(Ct.size())) == 0);
  BOOST_TEST(!std::signbit(Ct(4, 3 * n + 1)));  // −0 · 0.25: +0, as the GEMM's sum gives
  BOOST_TEST(!std::signbit(Ct(2, 0 * n + 2)));  // 0 · (−1.5) likewise
  // A second entry in a tangent takes the GEMM itself. A check that the fallback is taken and
  // sound; the GEMM on both sides makes it hold by construction.
  Bd(3, 3 * n + 2) = 2.0;
  ad::detail::DualMatmulNode<K>::product(A, B, nullptr, Cv.data(), Cd.data(), C.data());
  const Eigen::MatrixXd dense2 = Av * Bd;
  const Eigen::MatrixXd Ct2 = tangents_of(C);
  BOOST_TEST(std::memcmp(Ct2.data(), dense2.data(),
                         sizeof(double) * static_cast<std::size_t>(Ct2.size())) == 0);
  Eigen::MatrixXd values(m, n);
  for (Eigen::Index i = 0; i < m * n; ++i) values(i) = C[static_cast<std::size_t>(i)].v;
  NGVI_CHECK_REPORT(
      vf::compare(values, (Av * Bv).eval(), tol::exact, "values of the dual product"));
}

// θ = W (3×4, row-major: scattered in W's column-major order) | b (4) | w (4) | c (1). Two
// layers, Z = affine(X, W, b) and f = affine(tanh(Z), w, c): double × Var with a Var bias (the
// GEMM route of the dual product, unit seeds in W), then a Var matrix times a Var vector with a
// one-entry bias (the matrix-vector route). Affine selects affine or the scalar route.
template <bool Affine>
struct TwoLayers {
  Eigen::MatrixXd X = fixed_matrix(6, 3, 0.4);
  template <class V>
  auto operator()(const V& theta) const {
    using T = typename V::Scalar;
    const RowMap<T> W(theta.data(), 3, 4);
    const Mat<T> b = theta.segment(12, 4).transpose();
    const Mat<T> w = theta.segment(16, 4);
    const Mat<T> c = theta.segment(20, 1);
    Mat<T> f;
    if constexpr (Affine) {
      const Mat<T> Z = ad::affine(X, W, b);
      f = ad::affine(ad::tanh(Z), w, c);
    } else {
      Mat<T> Z(X.rows(), 4);
      for (Eigen::Index i = 0; i < X.rows(); ++i)
        for (Eigen::Index j = 0; j < 4; ++j) {
          T s = b(0, j);
          for (Eigen::Index l = 0; l < 3; ++l) s += X(i, l) * W(l, j);
          Z(i, j) = ad::tanh(s);
        }
      f.resize(X.rows(), 1);
      for (Eigen::Index i = 0; i < X.rows(); ++i) {
        T s = c(0, 0);
        for (Eigen::Index j = 0; j < 4; ++j) s += Z(i, j) * w(j, 0);
        f(i, 0) = s;
      }
    }
    return ngvi::test::readout(f);
  }
};

Eigen::VectorXd two_layer_theta() {
  Eigen::VectorXd theta(21);
  for (Eigen::Index i = 0; i < 21; ++i)
    theta(i) = 0.4 * std::sin(0.3 + 1.3 * static_cast<double>(i));
  return theta;
}

BOOST_AUTO_TEST_CASE(affine_matches_the_scalar_route_and_finite_differences) {
  ngvi::test::check_fused_against_scalar(TwoLayers<true>{}, TwoLayers<false>{}, two_layer_theta());
}

// affine(A, W, b) against add_rowwise(matmul(A, W), b), bit for bit; inputs(θ) makes (A, W, b).
template <class Inputs>
void check_affine_bits(const std::string& what, const Inputs& inputs, const Eigen::VectorXd& x) {
  auto with = [&inputs](auto layer) {
    return [&inputs, layer](const auto& th) {
      using T = typename std::decay_t<decltype(th)>::Scalar;
      const auto [A, W, b] = inputs(th);
      return ngvi::test::scalar_of_result<T>(layer(A, W, b));
    };
  };
  ngvi::test::check_same_bits(
      what, with([](const auto& A, const auto& W, const auto& b) { return ad::affine(A, W, b); }),
      with([](const auto& A, const auto& W, const auto& b) {
        return ad::add_rowwise(ad::matmul(A, W), b);
      }),
      x);
}

BOOST_AUTO_TEST_CASE(affine_has_the_bits_of_the_product_and_the_broadcast) {
  // One node against two, on every route of the dual product: unit seeds in W (GEMM route), a
  // product of two Var matrices (both with tangents: the dense route), a Var matrix times a Var
  // vector (the matrix-vector route); Eigen matrices of Var and matrix variables with the bias
  // as a transpose() view.
  const Eigen::MatrixXd X = fixed_matrix(6, 3, 0.4);
  const Eigen::VectorXd theta = two_layer_theta();
  check_affine_bits(
      "affine(X, W, b), double X",
      [&X](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return std::tuple{X, RowMap<T>(th.data(), 3, 4), th.segment(12, 4).transpose()};
      },
      theta);
  check_affine_bits(
      "affine of matrix variables, Var × Var",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return std::tuple{ad::tanh(ad::as_matrix(Eigen::Map<const Mat<T>>(th.data(), 4, 3))),
                          ad::as_matrix(Eigen::Map<const Mat<T>>(th.data() + 12, 3, 2)),
                          ad::as_matrix(th.segment(18, 2)).transpose()};
      },
      theta);
  check_affine_bits(
      "affine of a matrix variable and a vector",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return std::tuple{ad::exp(ad::as_matrix(Eigen::Map<const Mat<T>>(th.data(), 5, 3))),
                          ad::as_matrix(th.segment(15, 3)), ad::as_matrix(th.segment(18, 1))};
      },
      theta);
}

BOOST_AUTO_TEST_CASE(affine_on_doubles_is_the_product_plus_the_bias) {
  const Eigen::MatrixXd X = fixed_matrix(4, 3, 0.5), W = fixed_matrix(3, 5, 1.5);
  const Eigen::RowVectorXd b = fixed_matrix(1, 5, 2.5);
  Eigen::MatrixXd expected = X * W;
  for (Eigen::Index j = 0; j < 5; ++j)
    for (Eigen::Index i = 0; i < 4; ++i) expected(i, j) += b(j);
  const Eigen::MatrixXd C = ad::affine(X, W, b);
  NGVI_CHECK_REPORT(vf::compare(C, expected, tol::exact, "affine on doubles"));
}

BOOST_AUTO_TEST_CASE(affine_with_a_bias_of_the_wrong_length_throws_naming_the_shapes) {
  ad::TapeScope<double> scope;
  const Mat<ad::Var<double>> W = fixed_matrix(3, 4, 0.1).cast<ad::Var<double>>();
  try {
    (void)ad::affine(fixed_matrix(2, 3, 0.2), W, Eigen::RowVector3d(1.0, 2.0, 3.0));
    BOOST_FAIL("affine with a bias of length 3 for 4 columns did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.find("ngvi::ad::affine") != std::string::npos, msg);
    BOOST_TEST(msg.find("1x3 bias") != std::string::npos, msg);
    BOOST_TEST(msg.find("length 4") != std::string::npos, msg);
  }
  try {
    (void)ad::affine(fixed_matrix(2, 2, 0.2), W, Eigen::RowVector4d::Zero());
    BOOST_FAIL("affine of 2x2 by 3x4 did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.find("ngvi::ad::affine: shapes 2x2 and 3x4") != std::string::npos, msg);
  }
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
