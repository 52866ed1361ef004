// MatrixVar (autodiff/eigen/matrix_var.hpp, matrix_var_operators.hpp): models written with the
// handle against the same models written with Eigen's scalar operations on Var (an independent
// route through the engine) and finite differences (check_fused_against_scalar), against the
// same fused nodes driven through Eigen matrices of Var (identical bits: the handle changes how
// operands reach a node, not what the node computes), and recorded after every tape history of
// support/position_independence.hpp (identical bits). Then the conversions (gather, transpose,
// constants, independent variables) against closed forms, and the shape errors.
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>

#include <support/position_independence.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(matrix_var_test)
namespace {

namespace ad = ngvi::ad;
using ngvi::test::spread;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using ColMap = Eigen::Map<const Mat<T>>;

// A 3-4-1 tanh MLP on 7 examples; θ = [W1ᵀ (3×4, column-major) | b1 | w2 | b2], 21 entries.
struct Data {
  Eigen::MatrixXd X = spread(21, -1.0, 2.0, 0.2).reshaped(7, 3);
  Eigen::VectorXd y = spread(7, -0.5, 1.0, 0.4);
};
constexpr Eigen::Index D = 3, H = 4;

// Written with the handle, as docs/user-guide.md shows: ½‖tanh(X W1ᵀ + 1 b1ᵀ) w2 + b2 − y‖².
template <class T>
T mlp_handle(const Vec<T>& th, const Data& d) {
  const auto Wt = ad::as_matrix(ColMap<T>(th.data(), D, H));
  const auto b1 = ad::as_matrix(th.segment(D * H, H));
  const auto w2 = ad::as_matrix(th.segment(D * H + H, H));
  const auto b2 = ad::as_matrix(th.segment(D * H + 2 * H, 1));
  const auto Z = ad::tanh((d.X * Wt).rowwise() + b1.transpose());
  const auto r = (Z * w2).rowwise() + b2.transpose() - d.y;
  return T(0.5 * ad::squared_norm(r));
}

// The same nodes through Eigen matrices of Var.
template <class T>
T mlp_eigen(const Vec<T>& th, const Data& d) {
  const ColMap<T> Wt(th.data(), D, H);
  const auto Z = ad::tanh(ad::add_rowwise(ad::matmul(d.X, Wt), th.segment(D * H, H).transpose()));
  const auto r = ad::cwise_difference(
      ad::add_rowwise(ad::matmul(Z, th.segment(D * H + H, H)), th.segment(D * H + 2 * H, 1)), d.y);
  return T(0.5 * ad::squared_norm(r));
}

// Eigen's scalar operations on Var: one statement per coefficient.
template <class T>
T mlp_scalar(const Vec<T>& th, const Data& d) {
  const Mat<T> Wt = ColMap<T>(th.data(), D, H);
  Mat<T> A = d.X.cast<T>() * Wt;
  A.rowwise() += th.segment(D * H, H).transpose();
  const Mat<T> Z = A.unaryExpr([](const T& v) {
    using std::tanh;
    return T(tanh(v));
  });
  const Vec<T> r =
      (Z * th.segment(D * H + H, H)).array() + th(D * H + 2 * H) - d.y.cast<T>().array();
  return T(0.5 * r.squaredNorm());
}

const Eigen::VectorXd theta = spread(D * H + 2 * H + 1, -0.8, 1.6, 0.1);

BOOST_AUTO_TEST_CASE(an_mlp_with_the_handle_matches_the_scalar_route_and_finite_differences) {
  const Data d;
  ngvi::test::check_fused_against_scalar([&](const auto& th) { return mlp_handle(th, d); },
                                         [&](const auto& th) { return mlp_scalar(th, d); }, theta);
}

BOOST_AUTO_TEST_CASE(the_handle_gives_the_bits_of_the_same_nodes_on_eigen_matrices) {
  const Data d;
  Eigen::VectorXd g_handle, g_eigen;
  const double v_handle =
      ad::value_and_gradient([&](const auto& th) { return mlp_handle(th, d); }, theta, g_handle);
  const double v_eigen =
      ad::value_and_gradient([&](const auto& th) { return mlp_eigen(th, d); }, theta, g_eigen);
  BOOST_TEST(v_handle == v_eigen);
  BOOST_TEST((g_handle == g_eigen));
  const Eigen::MatrixXd h_handle =
      ad::hessian([&](const auto& th) { return mlp_handle(th, d); }, theta);
  const Eigen::MatrixXd h_eigen =
      ad::hessian([&](const auto& th) { return mlp_eigen(th, d); }, theta);
  BOOST_TEST((h_handle == h_eigen));
  // And on double the generic model is plain Eigen code with the same value to rounding.
  BOOST_TEST(mlp_handle(Eigen::VectorXd(theta), d) == v_handle,
             boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(the_handle_mlp_is_independent_of_tape_position) {
  const Data d;
  ngvi::test::check_position_independence(
      "MatrixVar MLP", [&](const auto& th) { return mlp_handle(th, d); }, theta);
}

BOOST_AUTO_TEST_CASE(gather_transpose_scale_and_elementwise_nodes_match_finite_differences) {
  // W (3×4) taken from θ in row-major order: its column-major indices are not consecutive, so
  // the handle is made by a gather node; Wᵀ as a product operand is read through the view, and
  // as an elementwise operand it is one transpose node.
  const Eigen::MatrixXd B = spread(12, -1.0, 2.0, 0.3).reshaped(4, 3);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(3);
  auto f = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    using RowMap =
        Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
    const auto W = ad::as_matrix(RowMap(th.data(), 3, 4));
    const auto v = ad::as_matrix(th.segment(12, 3));
    if constexpr (ad::is_var_v<T>) {
      const ad::MatrixVar<ad::tape_scalar_t<T>> Wt = W.transpose();
      const auto P = W.transpose() * v;          // 4×1 through the view
      const auto E = ad::exp(0.5 * Wt) - B;      // transpose node, scale, exp, difference
      const auto Q = ad::cwise_product(E, -Wt);  // unary minus
      return T(ad::sum(Q) + ad::dot(P, P) + ad::squared_norm((ones * v.transpose()).colwise() + v));
    } else {
      const Eigen::MatrixXd P = W.transpose() * v;
      const Eigen::MatrixXd E = (0.5 * W.transpose()).array().exp().matrix() - B;
      const Eigen::MatrixXd Q = E.cwiseProduct(-W.transpose());
      Eigen::MatrixXd S = ones * v.transpose();
      S.colwise() += v;
      return Q.sum() + P.squaredNorm() + S.squaredNorm();
    }
  };
  const Eigen::VectorXd x = spread(15, -0.9, 1.8, 0.5);
  namespace vf = ngvi::ad::verify;
  NGVI_CHECK_REPORT(vf::check_gradient(f, x));
  NGVI_CHECK_REPORT(vf::check_hessian(f, x));
}

BOOST_AUTO_TEST_CASE(independent_variables_constants_and_adjoints) {
  ad::Tape<double> tape;
  ad::TapeScope<double> scope(tape);
  const Eigen::MatrixXd v = spread(6, -1.0, 2.0).reshaped(2, 3);
  const auto M = ad::MatrixVar<double>::variables(v);
  BOOST_TEST(M.is_active());
  BOOST_TEST(M.rows() == 2);
  BOOST_TEST(M.cols() == 3);
  const auto C = ad::MatrixVar<double>(Eigen::MatrixXd::Constant(2, 3, 2.0));
  BOOST_TEST(!C.is_active());
  // f = Σ (2 M)_ij², so ∂f/∂M = 8 M.
  const ad::Var<double> f = ad::squared_norm(ad::cwise_product(C, M));
  BOOST_TEST(f.value() == 4.0 * v.squaredNorm(), boost::test_tools::tolerance(1e-15));
  tape.zero_adjoints();
  tape.adjoint(f.index()) = 1.0;
  tape.reverse();
  const Eigen::MatrixXd expected = 8.0 * v;
  BOOST_TEST(M.adjoint(tape).isApprox(expected, 1e-15));
  BOOST_TEST(C.adjoint(tape).isZero());
  // to_eigen gives the same variables back: coefficient (1, 2) is variable first + 5.
  const ad::VarMatrix<double> E = M.to_eigen();
  BOOST_TEST(E(1, 2).index() == M.first_index() + 5);
  BOOST_TEST(E(1, 2).value() == v(1, 2));
  // A handle of consecutive Vars records nothing: same first index, no new variable.
  const std::size_t vars = tape.num_vars();
  const ad::MatrixVar<double> again(E);
  BOOST_TEST(again.first_index() == M.first_index());
  BOOST_TEST(tape.num_vars() == vars);
}

BOOST_AUTO_TEST_CASE(column_blocks_are_the_same_variables_without_a_record) {
  ad::Tape<double> tape;
  ad::TapeScope<double> scope(tape);
  const Eigen::MatrixXd v = spread(12, -1.5, 2.0).reshaped(3, 4);
  const auto M = ad::MatrixVar<double>::variables(v);
  const std::size_t vars = tape.num_vars(), statements = tape.num_statements();
  const ad::MatrixVar<double> mid = M.middleCols(1, 2), last = M.col(3);
  BOOST_TEST(tape.num_vars() == vars);
  BOOST_TEST(tape.num_statements() == statements);
  BOOST_TEST(mid.rows() == 3);
  BOOST_TEST(mid.cols() == 2);
  BOOST_TEST(mid.first_index() == M.first_index() + 3);
  BOOST_TEST(last.first_index() == M.first_index() + 9);
  BOOST_TEST((Eigen::MatrixXd(mid.value()) == v.middleCols(1, 2)));
  BOOST_TEST((Eigen::MatrixXd(M.rightCols(2).value()) == v.rightCols(2)));
  BOOST_TEST((Eigen::MatrixXd(M.leftCols(1).value()) == v.leftCols(1)));
  // f = Σ mid² + 3 Σ last: ∂f/∂M is 2v on columns 1, 2, 3 on column 3 and 0 on column 0.
  const ad::Var<double> f = ad::squared_norm(mid) + 3.0 * ad::sum(last);
  tape.zero_adjoints();
  tape.adjoint(f.index()) = 1.0;
  tape.reverse();
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(3, 4);
  expected.middleCols(1, 2) = 2.0 * v.middleCols(1, 2);
  expected.col(3).setConstant(3.0);
  BOOST_TEST((M.adjoint(tape) == expected));
  const auto C = ad::MatrixVar<double>(Eigen::MatrixXd::Ones(2, 3));
  BOOST_TEST(!C.col(1).is_active());
  BOOST_CHECK_THROW((void)M.middleCols(3, 2), std::out_of_range);
  BOOST_CHECK_THROW((void)M.col(-1), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(segments_of_a_vector_are_the_same_variables_without_a_record) {
  ad::Tape<double> tape;
  ad::TapeScope<double> scope(tape);
  const Eigen::VectorXd v = spread(6, -1.5, 2.0);
  const auto x = ad::MatrixVar<double>::variables(v);
  const auto row = ad::MatrixVar<double>::variables(Eigen::MatrixXd(v.transpose()));
  const std::size_t vars = tape.num_vars(), statements = tape.num_statements();
  const ad::MatrixVar<double> a = x.head(4), b = x.tail(4), mid = x.segment(2, 3);
  const ad::MatrixVar<double> r = row.segment(1, 2);
  BOOST_TEST(tape.num_vars() == vars);
  BOOST_TEST(tape.num_statements() == statements);
  BOOST_TEST((a.rows() == 4 && a.cols() == 1 && r.rows() == 1 && r.cols() == 2));
  BOOST_TEST(b.first_index() == x.first_index() + 2);
  BOOST_TEST(r.first_index() == row.first_index() + 1);
  BOOST_TEST((Eigen::VectorXd(b.value()) == v.tail(4)));
  BOOST_TEST((Eigen::VectorXd(mid.value()) == v.segment(2, 3)));
  BOOST_TEST((Eigen::RowVectorXd(r.value()) == v.segment(1, 2).transpose()));
  // f = Σ a∘b + 3 Σ mid: ∂f/∂x_i = x_{i+2} [i < 4] + x_{i−2} [i >= 2] + 3 [2 <= i < 5].
  const ad::Var<double> f = ad::sum(ad::cwise_product(a, b)) + 3.0 * ad::sum(mid);
  tape.zero_adjoints();
  tape.adjoint(f.index()) = 1.0;
  tape.reverse();
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(6);
  expected.head(4) += v.tail(4);
  expected.tail(4) += v.head(4);
  expected.segment(2, 3).array() += 3.0;
  BOOST_TEST((Eigen::VectorXd(x.adjoint(tape)) == expected));
  BOOST_CHECK_THROW((void)x.segment(3, 4), std::out_of_range);
  BOOST_CHECK_THROW((void)x.tail(7), std::out_of_range);
  const auto M = ad::MatrixVar<double>::variables(Eigen::MatrixXd::Ones(2, 3));
  try {
    (void)M.head(2);
    BOOST_ERROR("head of a 2x3 matrix variable did not throw");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()) ==
               "ngvi::ad::MatrixVar::segment: a 2x3 matrix variable is not a vector (one row or "
               "one column)");
  }
}

BOOST_AUTO_TEST_CASE(shape_errors_name_the_function_and_both_shapes) {
  ad::Tape<double> tape;
  ad::TapeScope<double> scope(tape);
  const auto A = ad::MatrixVar<double>::variables(Eigen::MatrixXd::Ones(3, 2));
  const auto B = ad::MatrixVar<double>::variables(Eigen::MatrixXd::Ones(3, 4));
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  BOOST_TEST(message([&] { (void)(A * B); }) ==
             "ngvi::ad::matmul: shapes 3x2 and 3x4 do not multiply");
  BOOST_TEST(message([&] { (void)(A - B); }) ==
             "ngvi::ad::cwise_difference: shapes 3x2 and 3x4 differ");
  BOOST_TEST(message([&] { (void)(B.rowwise() + A); }) ==
             "ngvi::ad::add_rowwise: a 3x2 matrix added to a 3x4 matrix; expected a vector of "
             "length 4");
}

}  // namespace
BOOST_AUTO_TEST_SUITE_END()
