// Tests of autodiff/eigen/elementwise.hpp: every coefficient-wise map and the binary
// coefficient-wise nodes, on Var<double> (vectorised kernels) and on Var<Dual> (through
// Hessians), against the same function applied coefficient by coefficient with scalar
// expressions, and against finite differences; shapes must agree.
#include <cmath>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(elementwise_test)
namespace {

namespace ad = ngvi::ad;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// Reshape θ (12) to 3×4, apply the map on both routes, reduce with a weighted sum.
template <class MapFused, class MapScalar>
void check_map(MapFused fused_map, MapScalar scalar_map, double shift, double scale) {
  auto weights = [](Eigen::Index i) { return 1.0 + 0.1 * static_cast<double>(i); };
  auto fused = [&](const auto& theta) {
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    const Mat<T> M = Eigen::Map<const Mat<T>>(theta.data(), 3, 4);
    const Mat<T> F = fused_map(M);
    T s = 0.0;
    for (Eigen::Index i = 0; i < F.size(); ++i) s += weights(i) * F(i) * F(i);
    return s;
  };
  auto scalar = [&](const auto& theta) {
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    T s = 0.0;
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
      const T f = scalar_map(theta(i));
      s += weights(i) * f * f;
    }
    return s;
  };
  Eigen::VectorXd theta(12);
  for (Eigen::Index i = 0; i < 12; ++i)
    theta(i) = shift + scale * std::sin(0.9 * static_cast<double>(i) + 0.3);
  ngvi::test::check_fused_against_scalar(fused, scalar, theta);
}

}  // namespace

#define NGVI_MAP_CASE(name, shift, scale)                  \
  BOOST_AUTO_TEST_CASE(name##_matches_scalar_route) {      \
    check_map([](const auto& m) { return ad::name(m); },   \
              [](const auto& x) {                          \
                using ad::name;                            \
                using std::name;                           \
                return std::decay_t<decltype(x)>(name(x)); \
              },                                           \
              shift, scale);                               \
  }

NGVI_MAP_CASE(exp, 0.0, 1.5)
NGVI_MAP_CASE(expm1, 0.0, 1.5)
NGVI_MAP_CASE(log, 2.0, 1.5)
NGVI_MAP_CASE(log1p, 1.0, 1.5)
NGVI_MAP_CASE(sqrt, 2.0, 1.5)
NGVI_MAP_CASE(sin, 0.0, 3.0)
NGVI_MAP_CASE(cos, 0.0, 3.0)
NGVI_MAP_CASE(tanh, 0.0, 3.0)
NGVI_MAP_CASE(erf, 0.0, 1.5)
NGVI_MAP_CASE(lgamma, 2.0, 1.5)

BOOST_AUTO_TEST_CASE(tanh_near_zero_uses_the_series_branch) {
  check_map([](const auto& m) { return ad::tanh(m); },
            [](const auto& x) {
              using std::tanh;
              return std::decay_t<decltype(x)>(tanh(x));
            },
            0.0, 0.1);
}

BOOST_AUTO_TEST_CASE(square_abs_logistic_softplus_digamma_match_scalar_route) {
  check_map([](const auto& m) { return ad::square(m); },
            [](const auto& x) { return std::decay_t<decltype(x)>(x * x); }, 0.0, 2.0);
  check_map([](const auto& m) { return ad::abs(m); },
            [](const auto& x) {
              using std::abs;
              return std::decay_t<decltype(x)>(abs(x));
            },
            0.1, 2.0);
  check_map([](const auto& m) { return ad::logistic(m); },
            [](const auto& x) {
              using ad::logistic;
              return std::decay_t<decltype(x)>(logistic(x));
            },
            0.0, 6.0);
  check_map([](const auto& m) { return ad::log1p_exp(m); },
            [](const auto& x) {
              using ad::log1p_exp;
              return std::decay_t<decltype(x)>(log1p_exp(x));
            },
            0.0, 8.0);
  check_map([](const auto& m) { return ad::softplus(m); },
            [](const auto& x) {
              using ad::softplus;
              return std::decay_t<decltype(x)>(softplus(x));
            },
            0.0, 8.0);
  check_map([](const auto& m) { return ad::digamma(m); },
            [](const auto& x) {
              using ad::digamma;
              return std::decay_t<decltype(x)>(digamma(x));
            },
            2.0, 1.5);
}

BOOST_AUTO_TEST_CASE(binary_nodes_match_scalar_route) {
  const Eigen::MatrixXd C = Eigen::MatrixXd::Constant(3, 2, 0.5) + Eigen::MatrixXd::Identity(3, 2);
  auto fused = [&](const auto& theta) {
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    const Mat<T> A = Eigen::Map<const Mat<T>>(theta.data(), 3, 2);
    const Mat<T> B = Eigen::Map<const Mat<T>>(theta.data() + 6, 3, 2);
    const Mat<T> P = ad::cwise_product(A, B);
    const Mat<T> S = ad::cwise_sum(P, C);
    const Mat<T> D = ad::cwise_difference(C, ad::cwise_product(S, A));
    T s = 0.0;
    for (Eigen::Index i = 0; i < D.size(); ++i) s += D(i) * D(i) * (1.0 + static_cast<double>(i));
    return s;
  };
  auto scalar = [&](const auto& theta) {
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    T s = 0.0;
    for (Eigen::Index i = 0; i < 6; ++i) {
      const T d = C(i) - (theta(i) * theta(i + 6) + C(i)) * theta(i);
      s += d * d * (1.0 + static_cast<double>(i));
    }
    return s;
  };
  Eigen::VectorXd theta(12);
  for (Eigen::Index i = 0; i < 12; ++i) theta(i) = std::cos(1.3 * static_cast<double>(i));
  ngvi::test::check_fused_against_scalar(fused, scalar, theta);
}

BOOST_AUTO_TEST_CASE(binary_nodes_reject_different_shapes) {
  ad::TapeScope<double> scope;
  const Mat<ad::Var<double>> A = Eigen::MatrixXd::Ones(2, 3).cast<ad::Var<double>>();
  BOOST_CHECK_THROW((void)ad::cwise_product(A, Eigen::MatrixXd::Ones(3, 2)), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
