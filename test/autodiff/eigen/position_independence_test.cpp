// Position independence of every fused node (autodiff/eigen/): the same function recorded on
// a fresh tape and after each of the 193 tape histories of support/position_independence.hpp
// gives identical bits — value and gradient on Tape<double>, value, gradient and Hessian-vector
// product on Tape<Dual<double, 1>>, and the Hessian on Tape<Dual<double, 8>>. The reference is
// the engine itself on a fresh tape; the comparison has no tolerance. Each case isolates one
// fused node (its inputs are a block of θ, its outputs are read out by scalar statements), in
// the operand shapes that take Eigen's different paths (GEMM, the small coefficient-based
// product, GEMV, outer product, scattered operands; affine with a GEMM and with a vector) and, for
// the log-sum-exps and log_softmax, through matrix variables too; then whole tanh networks.
#include <cmath>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>

#include <support/position_independence.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(position_independence_test)
namespace {

namespace ad = ngvi::ad;
using ngvi::test::check_position_independence;
using ngvi::test::readout;
using ngvi::test::spread;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using ColMap = Eigen::Map<const Mat<T>>;
template <class T>
using RowMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

Eigen::MatrixXd data_matrix(Eigen::Index r, Eigen::Index c, double phase) {
  return spread(r * c, -1.0, 2.0, phase).reshaped(r, c);
}

// readout's term for a node with one scalar output.
template <class T>
T readout_scalar(const T& s) {
  return s * (1.0 + 0.25 * s);
}

BOOST_AUTO_TEST_CASE(matmul_in_every_product_shape) {
  // double × Var, large enough for Eigen's blocked GEMM (7 + 9 + 5 >= 20).
  const Eigen::MatrixXd X = data_matrix(9, 7, 0.1);
  check_position_independence(
      "matmul double x Var (GEMM)",
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(Mat<T>(ad::matmul(X, ColMap<T>(th.data(), 7, 5))));
      },
      spread(35, -1.0, 2.0));
  // Var × Var, small: Eigen's coefficient-based (lazy) product.
  check_position_independence(
      "matmul Var x Var (coefficient-based)",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::matmul(ColMap<T>(th.data(), 3, 4), ColMap<T>(th.data() + 12, 4, 2))));
      },
      spread(20, -1.0, 2.0));
  // Var × double with a scattered (row-major) Var operand.
  const Eigen::MatrixXd Y = data_matrix(6, 3, 0.2);
  check_position_independence(
      "matmul scattered Var x double",
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(Mat<T>(ad::matmul(RowMap<T>(th.data(), 4, 6), Y)));
      },
      spread(24, -1.0, 2.0));
  // Matrix × vector (GEMV) and vector × row vector (outer product), both Var.
  check_position_independence(
      "matmul Var matrix x Var vector (GEMV)",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::matmul(ColMap<T>(th.data(), 11, 5), ColMap<T>(th.data() + 55, 5, 1))));
      },
      spread(60, -1.0, 2.0));
  check_position_independence(
      "matmul Var column x Var row (outer product)",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::matmul(ColMap<T>(th.data(), 11, 1), ColMap<T>(th.data() + 11, 1, 6))));
      },
      spread(17, -1.0, 2.0));
  // affine: the GEMM with a bias, and a matrix times a vector with a bias.
  check_position_independence(
      "affine double x Var + Var bias (GEMM)",
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::affine(X, ColMap<T>(th.data(), 7, 5), ColMap<T>(th.data() + 35, 1, 5))));
      },
      spread(40, -1.0, 2.0));
  check_position_independence(
      "affine Var matrix x Var vector + Var bias",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::affine(ColMap<T>(th.data(), 11, 5), ColMap<T>(th.data() + 55, 5, 1),
                              ColMap<T>(th.data() + 60, 1, 1))));
      },
      spread(61, -1.0, 2.0));
}

BOOST_AUTO_TEST_CASE(elementwise_functions) {
  // Arguments in (0.05, 1.95): inside every function's domain, across tanh's series/closed-form
  // switch at 0.125.
  const Eigen::VectorXd x = spread(29, 0.05, 1.9);
#define NGVI_CHECK_ELEMENTWISE(fn)                                   \
  check_position_independence(                                       \
      "elementwise " #fn,                                            \
      [](const auto& th) {                                           \
        using T = typename std::decay_t<decltype(th)>::Scalar;       \
        return readout(Mat<T>(ad::fn(ColMap<T>(th.data(), 29, 1)))); \
      },                                                             \
      x)
  NGVI_CHECK_ELEMENTWISE(exp);
  NGVI_CHECK_ELEMENTWISE(expm1);
  NGVI_CHECK_ELEMENTWISE(log);
  NGVI_CHECK_ELEMENTWISE(log1p);
  NGVI_CHECK_ELEMENTWISE(sqrt);
  NGVI_CHECK_ELEMENTWISE(square);
  NGVI_CHECK_ELEMENTWISE(abs);
  NGVI_CHECK_ELEMENTWISE(sin);
  NGVI_CHECK_ELEMENTWISE(cos);
  NGVI_CHECK_ELEMENTWISE(tanh);
  NGVI_CHECK_ELEMENTWISE(logistic);
  NGVI_CHECK_ELEMENTWISE(log1p_exp);
  NGVI_CHECK_ELEMENTWISE(softplus);
  NGVI_CHECK_ELEMENTWISE(lgamma);
  NGVI_CHECK_ELEMENTWISE(digamma);
  NGVI_CHECK_ELEMENTWISE(erf);
#undef NGVI_CHECK_ELEMENTWISE
}

BOOST_AUTO_TEST_CASE(binary_elementwise_and_broadcasts) {
  const Eigen::VectorXd x = spread(42, -1.0, 2.0);
  check_position_independence(
      "cwise_sum",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::cwise_sum(ColMap<T>(th.data(), 3, 7), ColMap<T>(th.data() + 21, 3, 7))));
      },
      x);
  check_position_independence(
      "cwise_difference",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(Mat<T>(
            ad::cwise_difference(ColMap<T>(th.data(), 3, 7), ColMap<T>(th.data() + 21, 3, 7))));
      },
      x);
  check_position_independence(
      "cwise_product",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::cwise_product(ColMap<T>(th.data(), 3, 7), ColMap<T>(th.data() + 21, 3, 7))));
      },
      x);
  check_position_independence(
      "add_rowwise",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::add_rowwise(ColMap<T>(th.data(), 7, 5), ColMap<T>(th.data() + 35, 5, 1))));
      },
      spread(40, -1.0, 2.0));
  check_position_independence(
      "add_colwise",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            Mat<T>(ad::add_colwise(ColMap<T>(th.data(), 7, 5), ColMap<T>(th.data() + 35, 7, 1))));
      },
      spread(42, -1.0, 2.0));
}

BOOST_AUTO_TEST_CASE(reductions_and_log_softmax) {
  const Eigen::VectorXd x = spread(37, -1.0, 2.0);
  check_position_independence(
      "sum",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout_scalar(T(ad::sum(ColMap<T>(th.data(), 37, 1))));
      },
      x);
  check_position_independence(
      "squared_norm",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout_scalar(T(ad::squared_norm(ColMap<T>(th.data(), 37, 1))));
      },
      x);
  check_position_independence(
      "dot",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout_scalar(
            T(ad::dot(ColMap<T>(th.data(), 18, 1), ColMap<T>(th.data() + 19, 18, 1))));
      },
      x);
  check_position_independence(
      "log_sum_exp",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout_scalar(T(ad::log_sum_exp(ColMap<T>(th.data(), 37, 1))));
      },
      x);
  check_position_independence(
      "log_softmax",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(Mat<T>(ad::log_softmax(ColMap<T>(th.data(), 37, 1))));
      },
      x);
}

BOOST_AUTO_TEST_CASE(log_sum_exps_and_log_softmax_of_matrix_variables) {
  // The handle overloads read the operand where it sits in the arena; rowwise_log_sum_exp in
  // each of its operand forms, a 9×4 matrix (the transpose view: its values transposed into
  // the arena, its indices scattered).
  const Eigen::VectorXd x = spread(36, -1.0, 2.0);
  check_position_independence(
      "log_sum_exp of a matrix variable",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout_scalar(T(ad::log_sum_exp(ad::as_matrix(ColMap<T>(th.data(), 6, 6)))));
      },
      x);
  check_position_independence(
      "log_softmax of a matrix variable",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(ad::log_softmax(ad::as_matrix(ColMap<T>(th.data(), 6, 6))));
      },
      x);
  check_position_independence(
      "rowwise_log_sum_exp of an Eigen matrix of Var",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(ad::rowwise_log_sum_exp(ColMap<T>(th.data(), 9, 4)));
      },
      x);
  check_position_independence(
      "rowwise_log_sum_exp of a matrix variable",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(ad::rowwise_log_sum_exp(ad::as_matrix(ColMap<T>(th.data(), 9, 4))));
      },
      x);
  check_position_independence(
      "rowwise_log_sum_exp of a transpose view",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(
            ad::rowwise_log_sum_exp(ad::as_matrix(ColMap<T>(th.data(), 4, 9)).transpose()));
      },
      x);
}

// The user guide's network (docs/user-guide.md): θ = [W1 (H×D, row-major) | b1 | w2 | b2],
// loss ½‖y − f‖².
struct TanhMlp {
  Eigen::Index D, H;
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  TanhMlp(Eigen::Index n, Eigen::Index d, Eigen::Index h)
      : D(d), H(h), X(data_matrix(n, d, 0.4)), y(spread(n, -1.0, 2.0, 0.7)) {}
  Eigen::Index num_params() const { return H * D + 2 * H + 1; }
  template <class V>
  auto operator()(const V& th) const {
    using T = typename V::Scalar;
    const RowMap<T> W1(th.data(), H, D);
    const Mat<T> A =
        ad::add_rowwise(ad::matmul(X, W1.transpose()), th.segment(H * D, H).transpose());
    const Mat<T> Z = ad::tanh(A);
    const Mat<T> f = ad::matmul(Z, th.segment(H * D + H, H));
    const Vec<T> b2 = Vec<T>::Constant(f.rows(), th(H * D + 2 * H));
    return T(0.5 * ad::squared_norm(ad::cwise_difference(y, ad::cwise_sum(f, b2))));
  }
};

BOOST_AUTO_TEST_CASE(tanh_mlp_13_50_1) {
  const TanhMlp mlp(24, 13, 50);
  check_position_independence("13-50-1 tanh MLP", mlp, spread(mlp.num_params(), -0.5, 1.0), false);
}

BOOST_AUTO_TEST_CASE(tanh_mlp_hessian) {
  const TanhMlp mlp(12, 13, 3);
  check_position_independence("13-3-1 tanh MLP with Hessian", mlp,
                              spread(mlp.num_params(), -0.5, 1.0));
}

}  // namespace
BOOST_AUTO_TEST_SUITE_END()
