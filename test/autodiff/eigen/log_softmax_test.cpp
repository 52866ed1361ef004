// Tests of autodiff/eigen/log_softmax.hpp: against x − log_sum_exp(x) written with scalar
// expressions, finite differences, and the identity Σ exp(log_softmax(x)) = 1, also where
// exp(x) overflows; log_softmax of a matrix variable (and its transpose view) against the same
// node on an Eigen matrix of Var (identical bits), finite differences, and the closed forms
// ∇ y_0 = e_0 − s, ∇² y_0 = −(diag(s) − s sᵀ) in long double near 0 and near 1000; empty
// arguments.
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(log_softmax_test)
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
  for (Eigen::Index i = 0; i < n; ++i) x(i) = std::cos(0.9 * static_cast<double>(i) + 0.2);
  return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(matches_scalar_route_and_finite_differences) {
  const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(5, 0.5, 2.5);
  auto fused = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    const Vec<T> y = ad::log_softmax(x);
    T s = 0.0;
    for (Eigen::Index i = 0; i < y.size(); ++i) s += w(i) * y(i) + y(i) * y(i);
    return s;
  };
  auto scalar = [&](const auto& x) {
    using T = typename std::decay_t<decltype(x)>::Scalar;
    using std::exp;
    using std::log;
    T z = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) z += exp(x(i));
    const T lse = log(z);
    T s = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const T y = x(i) - lse;
      s += w(i) * y + y * y;
    }
    return s;
  };
  Eigen::VectorXd x(5);
  x << 0.3, -1.2, 2.0, 0.0, 0.7;
  ngvi::test::check_fused_against_scalar(fused, scalar, x);
}

BOOST_AUTO_TEST_CASE(probabilities_sum_to_one_without_overflow) {
  const Eigen::Vector3d x(800.0, 799.0, -5.0);
  const Eigen::VectorXd y = ad::log_softmax(x);
  NGVI_CHECK_REPORT(vf::compare(y.array().exp().sum(), 1.0, tol::closed_form, "Σ softmax"));
  NGVI_CHECK_REPORT(
      vf::compare(y(0) - y(1), 1.0, tol::closed_form, "log-ratio of the two largest"));
}

BOOST_AUTO_TEST_CASE(a_matrix_variable_gives_the_bits_of_the_eigen_route) {
  // One node either way: the handle's values are read in place, an Eigen matrix of Var is copied
  // into the output array first; the transpose view is the operand of the transposed Eigen matrix.
  ngvi::test::check_handle_gives_eigen_bits(
      "log_softmax", [](const auto& X) { return ad::log_softmax(X); }, 3, 4, point(12));
}

BOOST_AUTO_TEST_CASE(a_matrix_variable_matches_closed_form_and_finite_differences) {
  auto f = [](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    return readout(ad::log_softmax(ad::as_matrix(ColMap<T>(th.data(), 2, 3))));
  };
  NGVI_CHECK_REPORT(vf::check_gradient(f, point(6)));
  NGVI_CHECK_REPORT(vf::check_hessian(f, point(6)));
  // y_0 = x_0 − lse(x): ∇ y_0 = e_0 − s and ∇² y_0 = −(diag(s) − s sᵀ), against long double near
  // 0 and near 1000 (where the weights formed as exp(y) would lose 2.5 digits).
  auto y0 = [](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    return T(ad::log_softmax(ad::as_matrix(ColMap<T>(th.data(), 2, 3)))(0));
  };
  for (const double offset : {0.0, 1000.0}) {
    const Eigen::VectorXd x = point(6) + Eigen::VectorXd::Constant(6, offset);
    const long double m = x.maxCoeff();
    long double z = 0.0L;
    for (Eigen::Index i = 0; i < 6; ++i) z += std::exp(static_cast<long double>(x(i)) - m);
    Eigen::VectorXd s(6);
    for (Eigen::Index i = 0; i < 6; ++i)
      s(i) = static_cast<double>(std::exp(static_cast<long double>(x(i)) - m) / z);
    const double value_ref =
        static_cast<double>((static_cast<long double>(x(0)) - m) - std::log(z));
    Eigen::VectorXd grad_ref = -s;
    grad_ref(0) += 1.0;
    Eigen::MatrixXd hess_ref = s * s.transpose();
    hess_ref.diagonal() -= s;
    Eigen::VectorXd g;
    const double v = ad::value_and_gradient(y0, x, g);
    const std::string at = " at offset " + std::to_string(offset);
    NGVI_CHECK_REPORT(vf::compare(v, value_ref, tol::extended_precision, "y_0" + at));
    NGVI_CHECK_REPORT(vf::compare(g, grad_ref, tol::extended_precision, "gradient" + at));
    NGVI_CHECK_REPORT(vf::compare(ad::hessian(y0, x), hess_ref, tol::extended_precision,
                                  "Hessian (Tape<Dual>)" + at));
  }
}

BOOST_AUTO_TEST_CASE(an_empty_matrix_variable_throws_naming_the_function) {
  ad::TapeScope<double> scope;
  const ad::MatrixVar<double> empty;
  std::string message = "no exception";
  try {
    (void)ad::log_softmax(empty);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  BOOST_TEST(message == "ngvi::ad::log_softmax: empty argument");
}

BOOST_AUTO_TEST_SUITE_END()
