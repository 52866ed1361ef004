// Tests of autodiff/core/dual.hpp: Dual<double, K>, the forward-mode number whose K tangents
// carry the directions of forward-over-reverse. Arithmetic (Dual∘Dual, Dual∘double,
// double∘Dual, unary ±, compound assignment including aliasing such as a *= a), the
// elementary and binary functions, comparisons, the traits, and Dual inside Eigen, all
// against closed forms: for each operation f, the tangents must be f'(x)·ẋ (product and
// quotient rules for two operands); the vector-lane product of fused nodes against the scalar
// product rule, bit for bit.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include <Eigen/Core>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(dual_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using D3 = ngvi::ad::Dual<double, 3>;

D3 make(double v, double d0, double d1, double d2) {
  D3 r(v);
  r.d[0] = d0;
  r.d[1] = d1;
  r.d[2] = d2;
  return r;
}

Eigen::Vector4d as_vec(const D3& a) { return {a.v, a.d[0], a.d[1], a.d[2]}; }

// The expected dual: value f and tangents fprime·ẋ.
Eigen::Vector4d chain(double f, double fprime, const D3& x) {
  return {f, fprime * x.d[0], fprime * x.d[1], fprime * x.d[2]};
}
// Two operands: f, ∂f/∂a·ȧ + ∂f/∂b·ḃ.
Eigen::Vector4d chain2(double f, double fa, double fb, const D3& a, const D3& b) {
  return {f, fa * a.d[0] + fb * b.d[0], fa * a.d[1] + fb * b.d[1], fa * a.d[2] + fb * b.d[2]};
}

void expect(const D3& got, const Eigen::Vector4d& want, const std::string& what) {
  NGVI_CHECK_REPORT(vf::compare(as_vec(got), want, tol::closed_form, what));
}

const D3 a = make(1.75, 1.0, -0.5, 2.0);
const D3 b = make(-0.6, 0.25, 3.0, -1.0);

}  // namespace

BOOST_AUTO_TEST_CASE(construction) {
  const D3 z;
  expect(z, Eigen::Vector4d::Zero(), "default is zero");
  const D3 c(2.5);
  expect(c, Eigen::Vector4d(2.5, 0, 0, 0), "a constant has no tangents");
  const D3 e(2.5, 1, -4.0);
  expect(e, Eigen::Vector4d(2.5, 0, -4.0, 0), "one seeded direction");
  BOOST_TEST(ngvi::ad::value_of(e) == 2.5);
  BOOST_TEST(!ngvi::ad::is_zero(e));
  BOOST_TEST(!ngvi::ad::is_zero(D3(0.0, 2, 1.0)));  // zero value but a tangent
  BOOST_TEST(ngvi::ad::is_zero(D3(0.0)));
  BOOST_TEST(ngvi::ad::is_dual<D3>::value);
  BOOST_TEST(!ngvi::ad::is_dual<double>::value);
  std::ostringstream os;
  os << e;
  BOOST_TEST(os.str() == "2.5 [0, -4, 0]");
}

BOOST_AUTO_TEST_CASE(arithmetic_between_duals) {
  expect(a + b, chain2(a.v + b.v, 1, 1, a, b), "a + b");
  expect(a - b, chain2(a.v - b.v, 1, -1, a, b), "a - b");
  expect(a * b, chain2(a.v * b.v, b.v, a.v, a, b), "a * b");
  expect(a / b, chain2(a.v / b.v, 1 / b.v, -a.v / (b.v * b.v), a, b), "a / b");
  expect(-a, chain(-a.v, -1, a), "-a");
  expect(+a, as_vec(a), "+a");
}

// lane_product (the product on vector lanes that fused nodes use) against the product rule
// written out on scalars, bit for bit, for tangent counts on the vector path (2, 4, 8, 32) and
// off it (1, 3): the two must round alike for fused and scalar routes to agree.
template <int K>
void check_lane_product() {
  using D = ngvi::ad::Dual<double, K>;
  int mismatches = 0;
  for (int t = 0; t < 200; ++t) {
    D x, y;
    x.v = std::sin(0.37 * t + 0.1);
    y.v = 3.0 * std::cos(1.3 * t);
    for (int k = 0; k < K; ++k) {
      x.d[k] = std::sin(0.71 * t + k);
      y.d[k] = 1e3 * std::cos(0.23 * t * k + 0.5);
    }
    const D r = ngvi::ad::detail::lane_product(x, y);
    mismatches += r.v != x.v * y.v;
    for (int k = 0; k < K; ++k) {
      const double expected = x.d[k] * y.v + x.v * y.d[k];
      mismatches += std::memcmp(&r.d[k], &expected, sizeof(double)) != 0;
    }
  }
  BOOST_TEST(mismatches == 0, "K = " << K);
}

BOOST_AUTO_TEST_CASE(lane_product_has_the_bits_of_the_product_rule) {
  check_lane_product<1>();
  check_lane_product<2>();
  check_lane_product<3>();
  check_lane_product<4>();
  check_lane_product<8>();
  check_lane_product<32>();
}

BOOST_AUTO_TEST_CASE(arithmetic_with_numbers_on_either_side) {
  const double c = -2.5;
  expect(a + c, chain(a.v + c, 1, a), "a + c");
  expect(c + a, chain(c + a.v, 1, a), "c + a");
  expect(a - c, chain(a.v - c, 1, a), "a - c");
  expect(c - a, chain(c - a.v, -1, a), "c - a");
  expect(a * c, chain(a.v * c, c, a), "a * c");
  expect(c * a, chain(c * a.v, c, a), "c * a");
  expect(a / c, chain(a.v / c, 1 / c, a), "a / c");
  expect(c / a, chain(c / a.v, -c / (a.v * a.v), a), "c / a");
}

BOOST_AUTO_TEST_CASE(compound_assignment_including_aliasing) {
  D3 x = a;
  x += b;
  expect(x, chain2(a.v + b.v, 1, 1, a, b), "+= dual");
  x = a;
  x -= b;
  expect(x, chain2(a.v - b.v, 1, -1, a, b), "-= dual");
  x = a;
  x *= b;
  expect(x, chain2(a.v * b.v, b.v, a.v, a, b), "*= dual");
  x = a;
  x /= b;
  expect(x, chain2(a.v / b.v, 1 / b.v, -a.v / (b.v * b.v), a, b), "/= dual");
  x = a;
  x += 2.0;
  expect(x, chain(a.v + 2, 1, a), "+= number");
  x = a;
  x -= 2.0;
  expect(x, chain(a.v - 2, 1, a), "-= number");
  x = a;
  x *= 2.0;
  expect(x, chain(2 * a.v, 2, a), "*= number");
  x = a;
  x /= 4.0;
  expect(x, chain(a.v / 4, 0.25, a), "/= number");
  // The operand is the target itself.
  x = a;
  x *= x;
  expect(x, chain(a.v * a.v, 2 * a.v, a), "x *= x");
  x = a;
  x += x;
  expect(x, chain(2 * a.v, 2, a), "x += x");
  x = a;
  x -= x;
  expect(x, Eigen::Vector4d::Zero(), "x -= x");
  x = a;
  x /= x;
  expect(x, Eigen::Vector4d(1, 0, 0, 0), "x /= x");
}

BOOST_AUTO_TEST_CASE(unary_functions_apply_the_chain_rule) {
  using namespace ngvi::ad;                // NOLINT: the Dual overloads
  const D3 p = make(0.4, 1.0, -2.0, 0.5);  // inside every domain below
  const double x = p.v;
  expect(exp(p), chain(std::exp(x), std::exp(x), p), "exp");
  expect(expm1(p), chain(std::expm1(x), std::exp(x), p), "expm1");
  expect(log(p), chain(std::log(x), 1 / x, p), "log");
  expect(log1p(p), chain(std::log1p(x), 1 / (1 + x), p), "log1p");
  expect(log2(p), chain(std::log2(x), 1 / (x * std::log(2.0)), p), "log2");
  expect(log10(p), chain(std::log10(x), 1 / (x * std::log(10.0)), p), "log10");
  expect(sqrt(p), chain(std::sqrt(x), 0.5 / std::sqrt(x), p), "sqrt");
  expect(cbrt(p), chain(std::cbrt(x), 1 / (3 * std::cbrt(x) * std::cbrt(x)), p), "cbrt");
  expect(square(p), chain(x * x, 2 * x, p), "square");
  expect(abs(-p), chain(x, 1, p), "abs of a negative");
  expect(fabs(p), chain(x, 1, p), "fabs");
  expect(sin(p), chain(std::sin(x), std::cos(x), p), "sin");
  expect(cos(p), chain(std::cos(x), -std::sin(x), p), "cos");
  expect(tan(p), chain(std::tan(x), 1 + std::tan(x) * std::tan(x), p), "tan");
  expect(asin(p), chain(std::asin(x), 1 / std::sqrt(1 - x * x), p), "asin");
  expect(acos(p), chain(std::acos(x), -1 / std::sqrt(1 - x * x), p), "acos");
  expect(atan(p), chain(std::atan(x), 1 / (1 + x * x), p), "atan");
  expect(sinh(p), chain(std::sinh(x), std::cosh(x), p), "sinh");
  expect(cosh(p), chain(std::cosh(x), std::sinh(x), p), "cosh");
  expect(tanh(p), chain(std::tanh(x), 1 / (std::cosh(x) * std::cosh(x)), p), "tanh");
  expect(asinh(p), chain(std::asinh(x), 1 / std::sqrt(x * x + 1), p), "asinh");
  expect(acosh(p + 1.0), chain(std::acosh(x + 1), 1 / std::sqrt((x + 1) * (x + 1) - 1), p),
         "acosh");
  expect(atanh(p), chain(std::atanh(x), 1 / (1 - x * x), p), "atanh");
  const double gauss = 2 / std::sqrt(std::acos(-1.0)) * std::exp(-x * x);
  expect(erf(p), chain(std::erf(x), gauss, p), "erf");
  expect(erfc(p), chain(std::erfc(x), -gauss, p), "erfc");
  expect(lgamma(p), chain(std::lgamma(x), boost::math::polygamma(0, x), p), "lgamma");
  expect(tgamma(p), chain(std::tgamma(x), std::tgamma(x) * boost::math::polygamma(0, x), p),
         "tgamma");
  expect(digamma(p), chain(boost::math::polygamma(0, x), boost::math::polygamma(1, x), p),
         "digamma");
  expect(trigamma(p), chain(boost::math::polygamma(1, x), boost::math::polygamma(2, x), p),
         "trigamma");
  expect(polygamma(2, p), chain(boost::math::polygamma(2, x), boost::math::polygamma(3, x), p),
         "polygamma(2, .)");
  const double s = 1 / (1 + std::exp(-x));
  expect(logistic(p), chain(s, s * (1 - s), p), "logistic");
  expect(log1p_exp(p), chain(std::log1p(std::exp(x)), s, p), "log1p_exp");
  expect(softplus(p), chain(std::log1p(std::exp(x)), s, p), "softplus");
}

BOOST_AUTO_TEST_CASE(binary_functions_apply_both_partials) {
  using namespace ngvi::ad;  // NOLINT
  const D3 x = make(1.3, 1.0, 0.5, -1.0);
  const D3 y = make(0.7, -2.0, 1.0, 0.25);
  const double u = x.v, w = y.v;
  const double p = std::pow(u, w);
  expect(pow(x, y), chain2(p, w * std::pow(u, w - 1), p * std::log(u), x, y), "pow(dual, dual)");
  expect(pow(x, 3.0), chain(u * u * u, 3 * u * u, x), "pow(dual, 3)");
  expect(pow(2.0, y), chain(std::pow(2.0, w), std::pow(2.0, w) * std::log(2.0), y), "pow(2, dual)");
  // A constant exponent in Dual form at a negative base: only ∂/∂x matters, and the undefined
  // ∂/∂y (x^y log x) must not turn the tangents into NaN.
  const D3 neg = make(-1.5, 1.0, 2.0, -1.0);
  expect(pow(neg, D3(2.0)), chain(2.25, -3.0, neg), "pow(negative dual, dual constant 2)");
  expect(pow(neg, 3.0), chain(-3.375, 3 * 2.25, neg), "pow(negative dual, 3)");
  const double r2 = u * u + w * w;
  expect(atan2(x, y), chain2(std::atan2(u, w), w / r2, -u / r2, x, y), "atan2(dual, dual)");
  expect(atan2(x, 2.0), chain(std::atan2(u, 2.0), 2.0 / (u * u + 4), x), "atan2(dual, 2)");
  expect(atan2(2.0, y), chain(std::atan2(2.0, w), -2.0 / (w * w + 4), y), "atan2(2, dual)");
  const double h = std::hypot(u, w);
  expect(hypot(x, y), chain2(h, u / h, w / h, x, y), "hypot(dual, dual)");
  expect(hypot(x, 0.0), chain(u, 1.0, x), "hypot(dual, 0)");
  expect(fmin(x, y), as_vec(y), "fmin picks the smaller");
  expect(fmax(x, y), as_vec(x), "fmax picks the larger");
  expect(fmin(x, x), as_vec(x), "fmin tie");
  expect(fmin(x, 5.0), as_vec(x), "fmin(dual, number)");
  expect(fmax(x, 5.0), Eigen::Vector4d(5, 0, 0, 0), "fmax(dual, number)");
  expect(fmin(-5.0, y), Eigen::Vector4d(-5, 0, 0, 0), "fmin(number, dual)");
}

BOOST_AUTO_TEST_CASE(comparisons_and_classification_look_at_values) {
  BOOST_TEST(a > b);
  BOOST_TEST(b < a);
  BOOST_TEST(a >= a);
  BOOST_TEST(a <= a);
  BOOST_TEST(a == make(a.v, 9, 9, 9));  // tangents are ignored
  BOOST_TEST(a != b);
  BOOST_TEST(a > 1.0);
  BOOST_TEST(2.0 > a);
  BOOST_TEST(a == 1.75);
  BOOST_TEST(1.75 == a);
  BOOST_TEST(ngvi::ad::isfinite(a));
  BOOST_TEST(ngvi::ad::isnan(D3(std::numeric_limits<double>::quiet_NaN())));
  BOOST_TEST(ngvi::ad::isinf(D3(std::numeric_limits<double>::infinity())));
}

BOOST_AUTO_TEST_CASE(duals_in_eigen_expressions) {
  // A dot product of Dual vectors: tangent of Σ uᵢvᵢ is Σ (u̇ᵢvᵢ + uᵢv̇ᵢ).
  Eigen::Matrix<D3, 3, 1> u, v;
  u << a, b, D3(2.0, 2, 1.0);
  v << b, D3(4.0), a;
  const D3 dot = u.dot(v);
  Eigen::Vector4d want = Eigen::Vector4d::Zero();
  for (int i = 0; i < 3; ++i) want += chain2(u(i).v * v(i).v, v(i).v, u(i).v, u(i), v(i));
  expect(dot, want, "dot product");
  const Eigen::Matrix<double, 3, 1> vals = ngvi::ad::values_of(u);
  NGVI_CHECK_REPORT(vf::compare(vals, Eigen::Vector3d(a.v, b.v, 2.0), tol::exact, "values_of"));
}

BOOST_AUTO_TEST_CASE(domain_errors_follow_the_build_mode) {
  using namespace ngvi::ad;  // NOLINT
  const D3 m(-1.0, 0, 1.0);
  if constexpr (checked_mode) {
    BOOST_CHECK_THROW(log(m), ngvi::ad::domain_error);
    BOOST_CHECK_THROW(pow(m, 0.5), ngvi::ad::domain_error);
  } else {
    BOOST_TEST(std::isnan(log(m).v));
    BOOST_TEST(std::isnan(pow(m, 0.5).v));
  }
}

BOOST_AUTO_TEST_SUITE_END()
