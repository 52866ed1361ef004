// Tests of autodiff/eigen/reductions.hpp: sum, squared_norm, dot (Var·Var, double·Var,
// Var·double) and log_sum_exp of a vector, against scalar-expression routes, finite
// differences and closed forms (log_sum_exp stays finite where exp overflows); log_sum_exp of a
// matrix variable and rowwise_log_sum_exp against the Eigen-matrix and per-row routes (identical
// bits), finite differences, and the softmax closed forms (∇ lse = s, ∇² lse = diag(s) − s sᵀ)
// evaluated in long double, also at arguments near ±1000; empty arguments.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(reductions_test)
namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::test::readout;

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using ColMap = Eigen::Map<const Mat<T>>;

Eigen::VectorXd point(Eigen::Index n) {
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) x(i) = std::sin(1.1 * static_cast<double>(i) + 0.4);
  return x;
}

// The softmax of x, log Σ exp(x) and the softmax's Jacobian diag(s) − s sᵀ (the Hessian of the
// log-sum-exp), in long double from the double x: the reference at x ≈ 1000.
struct Softmax {
  double lse = 0.0;
  Eigen::VectorXd s;
  Eigen::MatrixXd jacobian;
};
Softmax long_double_softmax(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  const long double m = x.maxCoeff();
  long double z = 0.0L;
  for (Eigen::Index i = 0; i < n; ++i) z += std::exp(static_cast<long double>(x(i)) - m);
  Softmax r;
  r.lse = static_cast<double>(m + std::log(z));
  r.s.resize(n);
  r.jacobian.resize(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const long double si = std::exp(static_cast<long double>(x(i)) - m) / z;
    r.s(i) = static_cast<double>(si);
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double sj = std::exp(static_cast<long double>(x(j)) - m) / z;
      r.jacobian(i, j) = static_cast<double>((i == j ? si : 0.0L) - si * sj);
    }
  }
  return r;
}

std::string message_of(const auto& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

BOOST_AUTO_TEST_CASE(sum_squared_norm_dot_match_scalar_route) {
  const Eigen::VectorXd c = point(5) + Eigen::VectorXd::Constant(5, 2.0);
  auto fused = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    const Vec<T> a = x.head(5), b = x.tail(5);
    return T(ad::sum(a) * ad::squared_norm(b) + ad::dot(a, b) * ad::dot(c, a) + ad::dot(b, c));
  };
  auto scalar = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    T s = 0.0, q = 0.0, ab = 0.0, ca = 0.0, bc = 0.0;
    for (Eigen::Index i = 0; i < 5; ++i) {
      s += x(i);
      q += x(i + 5) * x(i + 5);
      ab += x(i) * x(i + 5);
      ca += c(i) * x(i);
      bc += x(i + 5) * c(i);
    }
    return T(s * q + ab * ca + bc);
  };
  ngvi::test::check_fused_against_scalar(fused, scalar, point(10));
}

BOOST_AUTO_TEST_CASE(log_sum_exp_matches_scalar_route_and_closed_form) {
  auto fused = [](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    return T(ad::log_sum_exp(x));
  };
  auto scalar = [](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    using std::exp;
    using std::log;
    T z = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) z += exp(x(i));
    return T(log(z));
  };
  ngvi::test::check_fused_against_scalar(fused, scalar, point(6));
  // Stable where exp overflows: log(e^1000 + e^1000) = 1000 + log 2, gradient (½, ½).
  const Eigen::Vector2d big(1000.0, 1000.0);
  Eigen::VectorXd g;
  const double v = ad::value_and_gradient(fused, big, g);
  NGVI_CHECK_REPORT(
      vf::compare(v, 1000.0 + std::log(2.0), tol::closed_form, "log_sum_exp(1000, 1000)"));
  NGVI_CHECK_REPORT(vf::compare(g, Eigen::Vector2d(0.5, 0.5), tol::closed_form, "its gradient"));
}

BOOST_AUTO_TEST_CASE(reductions_of_constants_are_constants) {
  ad::TapeScope<double> scope;
  const Vec<ad::Var<double>> a = point(4).cast<ad::Var<double>>();
  BOOST_TEST(!ad::sum(a).is_active());
  BOOST_TEST(!ad::dot(a, point(4)).is_active());
  NGVI_CHECK_REPORT(vf::compare(ad::squared_norm(a).value(), point(4).squaredNorm(), tol::ad_vs_ad,
                                "squared_norm value"));
}

BOOST_AUTO_TEST_CASE(log_sum_exp_of_a_matrix_variable_gives_the_bits_of_the_eigen_route) {
  // The handle's values are read in place and the weights pushed from the operand; an Eigen
  // matrix of Var is copied first. Same arithmetic, so the same bits — the transpose view too,
  // whose coefficient order is that of the transposed Eigen matrix.
  ngvi::test::check_handle_gives_eigen_bits(
      "log_sum_exp", [](const auto& X) { return ad::log_sum_exp(X); }, 3, 4, point(12));
}

BOOST_AUTO_TEST_CASE(dot_of_a_matrix_variable_and_a_constant_gives_the_bits_of_the_statement) {
  // With a constant side dot records a fused node; an Eigen matrix of Var gets dot's single
  // statement. The node forms each coefficient's product as the statement's reverse step does,
  // so value, gradient and Hessian have the same bits — whichever side is constant.
  const Eigen::MatrixXd c = Eigen::Map<const Eigen::MatrixXd>(point(12).data(), 3, 4) +
                            Eigen::MatrixXd::Constant(3, 4, 0.5);
  const Eigen::MatrixXd ct = c.transpose();
  ngvi::test::check_handle_gives_eigen_bits(
      "dot with a constant on the right",
      [&](const auto& X) { return ad::dot(X, X.rows() == 3 ? c : ct); }, 3, 4, point(12));
  ngvi::test::check_handle_gives_eigen_bits(
      "dot with a constant on the left",
      [&](const auto& X) { return ad::dot(X.rows() == 3 ? c : ct, X); }, 3, 4, point(12));
}

BOOST_AUTO_TEST_CASE(log_sum_exp_of_a_matrix_variable_matches_closed_form_and_finite_differences) {
  auto f = [](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    return T(ad::log_sum_exp(ad::as_matrix(ColMap<T>(th.data(), 3, 4))));
  };
  NGVI_CHECK_REPORT(vf::check_gradient(f, point(12)));
  NGVI_CHECK_REPORT(vf::check_hessian(f, point(12)));
  // Near 0 and near 1000 (where exp overflows; the weights are formed from the shifted
  // exponentials, so they keep every digit there — exp(x − lse) would lose 2.5): value,
  // gradient s and Hessian diag(s) − s sᵀ against long double.
  for (const double offset : {0.0, 1000.0}) {
    const Eigen::VectorXd x = point(12) + Eigen::VectorXd::Constant(12, offset);
    const Softmax ref = long_double_softmax(x);
    Eigen::VectorXd g;
    const double v = ad::value_and_gradient(f, x, g);
    const std::string at = " at offset " + std::to_string(offset);
    NGVI_CHECK_REPORT(vf::compare(v, ref.lse, tol::extended_precision, "value" + at));
    NGVI_CHECK_REPORT(vf::compare(g, ref.s, tol::extended_precision, "gradient" + at));
    NGVI_CHECK_REPORT(vf::compare(ad::hessian(f, x), ref.jacobian, tol::extended_precision,
                                  "Hessian (Tape<Dual>)" + at));
  }
}

BOOST_AUTO_TEST_CASE(rowwise_log_sum_exp_gives_the_bits_of_log_sum_exp_of_each_row) {
  // A 5×3 Eigen matrix of Var against log_sum_exp of its rows one by one (one statement each);
  // the matrix variable and the transpose view against the Eigen matrix.
  auto per_row = [](const auto& X) {
    using T = typename std::decay_t<decltype(X)>::Scalar;
    Vec<T> y(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i) y(i) = ad::log_sum_exp(X.row(i));
    return readout(y);
  };
  const Eigen::VectorXd x = point(15);
  ngvi::test::check_same_bits(
      "rowwise_log_sum_exp of an Eigen matrix of Var",
      [](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return readout(ad::rowwise_log_sum_exp(ColMap<T>(th.data(), 5, 3)));
      },
      [&](const auto& th) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return per_row(ColMap<T>(th.data(), 5, 3));
      },
      x);
  ngvi::test::check_handle_gives_eigen_bits(
      "rowwise_log_sum_exp", [](const auto& X) { return ad::rowwise_log_sum_exp(X); }, 5, 3, x);
  // On double: a plain column, against log_sum_exp of each row.
  const Eigen::MatrixXd X = x.reshaped(5, 3);
  const Eigen::VectorXd lse = ad::rowwise_log_sum_exp(X);
  BOOST_TEST(lse.size() == 5);
  for (Eigen::Index i = 0; i < 5; ++i)
    NGVI_CHECK_REPORT(vf::compare(lse(i), long_double_softmax(X.row(i).transpose()).lse,
                                  tol::extended_precision,
                                  "row " + std::to_string(i) + " on double"));
}

BOOST_AUTO_TEST_CASE(batched_softmax_categorical_matches_closed_form_at_large_logits) {
  // Σ_i (lse(F_i,:) − F(i, c_i)) for a 4×3 matrix of logits whose rows sit near 0, 1000, −1000
  // and 700 (each row has its own shift): gradient softmax − one-hot and the block-diagonal
  // Hessian diag(s_i) − s_i s_iᵀ, against long double; and finite differences near 0.
  const Eigen::Index B = 4, K = 3;
  const int classes[B] = {2, 0, 1, 2};
  auto nll = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    const auto F = ad::as_matrix(ColMap<T>(th.data(), B, K));
    T total = ad::sum(ad::rowwise_log_sum_exp(F));
    for (Eigen::Index i = 0; i < B; ++i) total -= F(i, classes[i]);
    return total;
  };
  Eigen::MatrixXd F = point(B * K).reshaped(B, K);
  NGVI_CHECK_REPORT(vf::check_gradient(nll, F.reshaped()));
  NGVI_CHECK_REPORT(vf::check_hessian(nll, F.reshaped()));
  F.row(1).array() += 1000.0;
  F.row(2).array() -= 1000.0;
  F.row(3).array() += 700.0;
  const Eigen::VectorXd x = F.reshaped();
  double value_ref = 0.0;
  Eigen::MatrixXd grad_ref(B, K);
  Eigen::MatrixXd hess_ref = Eigen::MatrixXd::Zero(B * K, B * K);
  for (Eigen::Index i = 0; i < B; ++i) {
    const Softmax ref = long_double_softmax(F.row(i).transpose());
    value_ref += ref.lse - F(i, classes[i]);
    for (Eigen::Index j = 0; j < K; ++j) {
      grad_ref(i, j) = ref.s(j) - (j == classes[i] ? 1.0 : 0.0);
      for (Eigen::Index l = 0; l < K; ++l) hess_ref(i + j * B, i + l * B) = ref.jacobian(j, l);
    }
  }
  Eigen::VectorXd g;
  const double v = ad::value_and_gradient(nll, x, g);
  // The value sums lse_i − F(i, c_i) ≈ 1 from terms near ±1000: each rounds to an ulp of 1000.
  NGVI_CHECK_REPORT(vf::compare(v, value_ref, tol::closed_form, "value"));
  NGVI_CHECK_REPORT(vf::compare(g, grad_ref.reshaped(), tol::extended_precision, "gradient"));
  NGVI_CHECK_REPORT(
      vf::compare(ad::hessian(nll, x), hess_ref, tol::extended_precision, "Hessian (Tape<Dual>)"));
}

BOOST_AUTO_TEST_CASE(rowwise_log_sum_exp_of_a_row_at_minus_infinity_is_a_constant_row) {
  // Row 1 is all −∞: its log-sum-exp is −∞ and passes no adjoint back, though the readout depends
  // on it (log_sum_exp of the row alone is a constant); the other rows are unaffected.
  ad::Tape<double> tape;
  ad::TapeScope<double> scope(tape);
  Eigen::MatrixXd X = point(9).reshaped(3, 3);
  X.row(1).setConstant(-std::numeric_limits<double>::infinity());
  const auto M = ad::MatrixVar<double>::variables(X);
  const auto y = ad::rowwise_log_sum_exp(M.to_eigen());
  BOOST_TEST(y.value()(1) == -std::numeric_limits<double>::infinity());
  const ad::Var<double> f = y(0) + 2.0 * y(2) + 3.0 * y(1);
  tape.zero_adjoints();
  tape.adjoint(f.index()) = 1.0;
  tape.reverse();
  const Eigen::MatrixXd adj = M.adjoint(tape);
  NGVI_CHECK_REPORT(vf::compare(adj.row(1).transpose(), Eigen::VectorXd::Zero(3), tol::exact,
                                "row 1's adjoints"));
  NGVI_CHECK_REPORT(vf::compare(adj.row(0).transpose(), long_double_softmax(X.row(0).transpose()).s,
                                tol::extended_precision, "row 0's adjoints"));
  NGVI_CHECK_REPORT(vf::compare(adj.row(2).transpose(),
                                2.0 * long_double_softmax(X.row(2).transpose()).s,
                                tol::extended_precision, "row 2's adjoints"));
}

BOOST_AUTO_TEST_CASE(empty_arguments_throw_naming_the_function) {
  ad::TapeScope<double> scope;
  const ad::MatrixVar<double> empty;
  BOOST_TEST(message_of([&] { (void)ad::log_sum_exp(empty); }) ==
             "ngvi::ad::log_sum_exp: empty argument");
  BOOST_TEST(message_of([&] { (void)ad::log_sum_exp(empty.transpose()); }) ==
             "ngvi::ad::log_sum_exp: empty argument");
  BOOST_TEST(message_of([&] { (void)ad::rowwise_log_sum_exp(Eigen::MatrixXd(0, 3)); }) ==
             "ngvi::ad::rowwise_log_sum_exp: empty argument (a 0x3 matrix); expected at least one "
             "row and one column");
  BOOST_TEST(message_of([&] { (void)ad::rowwise_log_sum_exp(Mat<ad::Var<double>>(2, 0)); }) ==
             "ngvi::ad::rowwise_log_sum_exp: empty argument (a 2x0 matrix); expected at least one "
             "row and one column");
  BOOST_TEST(message_of([&] { (void)ad::rowwise_log_sum_exp(empty); }) ==
             "ngvi::ad::rowwise_log_sum_exp: empty argument (a 0x0 matrix); expected at least one "
             "row and one column");
}

BOOST_AUTO_TEST_SUITE_END()
