// Tests of autodiff/expr/function_list.hpp: every function of the list is callable as ad::name
// on double, on Dual<double, 2> and on Var<double> (and on whole matrices), with
//   double        the value against <cmath> / Boost.Math / a closed form (an independent table
//                 below, which must name exactly the functions of the list),
//   Dual          the value as on double, the tangents the derivative from fn::Op::df (d1, d2)
//                 times the seeded directions,
//   Var           value and gradient against the Dual route,
//   matrices      the fused elementwise node's gradient and Hessian against the scalar route,
// and generic code keeps compiling where std:: and ad:: overloads meet (using-declarations,
// using-directives, Eigen arrays).
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(function_list_test)

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using D2 = ad::Dual<double, 2>;

// ---- the independent references: one entry per name of the list ------------------------------

struct UnaryReference {
  double (*f)(double);
  std::vector<double> points;  // inside the domain, away from kinks
};

const std::map<std::string, UnaryReference>& unary_references() {
  static const std::vector<double> any{-1.3, -0.2, 0.4, 2.1};
  static const std::vector<double> positive{0.3, 1.0, 2.7, 11.0};
  static const std::vector<double> unit{-0.7, -0.1, 0.35, 0.8};
  static const std::map<std::string, UnaryReference> table{
      {"exp", {[](double x) { return std::exp(x); }, any}},
      {"expm1", {[](double x) { return std::expm1(x); }, any}},
      {"log", {[](double x) { return std::log(x); }, positive}},
      {"log1p", {[](double x) { return std::log1p(x); }, {-0.6, 0.2, 3.0}}},
      {"log2", {[](double x) { return std::log2(x); }, positive}},
      {"log10", {[](double x) { return std::log10(x); }, positive}},
      {"sqrt", {[](double x) { return std::sqrt(x); }, positive}},
      {"cbrt", {[](double x) { return std::cbrt(x); }, {-2.0, 0.3, 5.0}}},
      {"square", {[](double x) { return x * x; }, any}},
      {"abs", {[](double x) { return std::abs(x); }, any}},
      {"fabs", {[](double x) { return std::fabs(x); }, any}},
      {"sin", {[](double x) { return std::sin(x); }, any}},
      {"cos", {[](double x) { return std::cos(x); }, any}},
      {"tan", {[](double x) { return std::tan(x); }, any}},
      {"asin", {[](double x) { return std::asin(x); }, unit}},
      {"acos", {[](double x) { return std::acos(x); }, unit}},
      {"atan", {[](double x) { return std::atan(x); }, any}},
      {"sinh", {[](double x) { return std::sinh(x); }, any}},
      {"cosh", {[](double x) { return std::cosh(x); }, any}},
      {"tanh", {[](double x) { return std::tanh(x); }, any}},
      {"asinh", {[](double x) { return std::asinh(x); }, any}},
      {"acosh", {[](double x) { return std::acosh(x); }, {1.2, 2.0, 7.5}}},
      {"atanh", {[](double x) { return std::atanh(x); }, unit}},
      {"erf", {[](double x) { return std::erf(x); }, any}},
      {"erfc", {[](double x) { return std::erfc(x); }, any}},
      {"lgamma", {[](double x) { return std::lgamma(x); }, {-1.5, 0.3, 2.5, 9.0}}},
      {"tgamma", {[](double x) { return std::tgamma(x); }, {-1.5, 0.3, 2.5, 6.0}}},
      {"digamma", {[](double x) { return boost::math::digamma(x); }, {-1.5, 0.3, 2.5, 9.0}}},
      {"trigamma", {[](double x) { return boost::math::trigamma(x); }, {-1.5, 0.3, 2.5, 9.0}}},
      {"logistic", {[](double x) { return 1.0 / (1.0 + std::exp(-x)); }, any}},
      {"log1p_exp", {[](double x) { return std::log1p(std::exp(x)); }, any}},
      {"softplus", {[](double x) { return std::log1p(std::exp(x)); }, any}},
  };
  return table;
}

struct BinaryReference {
  double (*f)(double, double);
  std::vector<std::pair<double, double>> points;
};

const std::map<std::string, BinaryReference>& binary_references() {
  static const std::vector<std::pair<double, double>> any{{0.7, -1.2}, {-0.4, 0.9}, {2.5, 1.5}};
  static const std::map<std::string, BinaryReference> table{
      {"pow",
       {[](double x, double y) { return std::pow(x, y); }, {{0.7, -1.2}, {2.5, 1.5}, {1.3, 3.0}}}},
      {"atan2", {[](double y, double x) { return std::atan2(y, x); }, any}},
      {"hypot", {[](double x, double y) { return std::hypot(x, y); }, any}},
      {"fmin", {[](double x, double y) { return std::fmin(x, y); }, any}},
      {"fmax", {[](double x, double y) { return std::fmax(x, y); }, any}},
  };
  return table;
}

// ---- one function on every scalar -------------------------------------------------------------

// `call` is [](const auto& x) { return ad::name(x); }: the same generic code on every scalar.
template <class Op, class Call>
void run_unary(const std::string& name, Call call, std::set<std::string>& seen) {
  seen.insert(name);
  const auto it = unary_references().find(name);
  BOOST_TEST_REQUIRE((it != unary_references().end()),
                     name << ": no reference in the test's table");
  for (const double x : it->second.points) {
    const std::string at = name + " at " + std::to_string(x);
    // double
    const double fx = call(x);
    NGVI_CHECK_REPORT(
        vf::compare(fx, it->second.f(x), tol::closed_form, at + ": double vs reference"));
    // Dual: tangents (1, −0.5) scaled by the derivative formula
    const D2 xd(x, 0, 1.0);
    D2 xs = xd;
    xs.d[1] = -0.5;
    const D2 fd = call(xs);
    const double dfx = Op::df(x, fx);
    NGVI_CHECK_REPORT(vf::compare(fd.v, fx, tol::exact, at + ": Dual value vs double"));
    NGVI_CHECK_REPORT(vf::compare(fd.d[0], dfx, tol::exact, at + ": Dual tangent 0 vs fn::df"));
    NGVI_CHECK_REPORT(
        vf::compare(fd.d[1], -0.5 * dfx, tol::exact, at + ": Dual tangent 1 vs fn::df"));
    // Var: value and gradient vs the Dual route
    Eigen::VectorXd g;
    const double v = ad::value_and_gradient(
        [&](const auto& th) {
          using T = typename std::decay_t<decltype(th)>::Scalar;
          return T(call(th(0)));
        },
        Eigen::VectorXd::Constant(1, x), g);
    NGVI_CHECK_REPORT(vf::compare(v, fd.v, tol::ad_vs_ad, at + ": Var value vs Dual"));
    NGVI_CHECK_REPORT(vf::compare(g(0), fd.d[0], tol::ad_vs_ad, at + ": Var gradient vs Dual"));
  }
}

template <class Op, class Call>
void run_binary(const std::string& name, Call call, std::set<std::string>& seen) {
  seen.insert(name);
  const auto it = binary_references().find(name);
  BOOST_TEST_REQUIRE((it != binary_references().end()),
                     name << ": no reference in the test's table");
  for (const auto& [x, y] : it->second.points) {
    const std::string at = name + " at (" + std::to_string(x) + ", " + std::to_string(y) + ")";
    const double fxy = call(x, y);
    NGVI_CHECK_REPORT(
        vf::compare(fxy, it->second.f(x, y), tol::closed_form, at + ": double vs reference"));
    // Mixed plain arguments: an integer and a float convert to double.
    NGVI_CHECK_REPORT(vf::compare(call(x, 2), call(x, 2.0), tol::exact, at + ": (double, int)"));
    NGVI_CHECK_REPORT(
        vf::compare(call(2.0f, y), call(2.0, y), tol::exact, at + ": (float, double)"));
    const double d1 = Op::d1(x, y, fxy), d2 = Op::d2(x, y, fxy);
    const D2 fd = call(D2(x, 0, 1.0), D2(y, 1, 1.0));
    NGVI_CHECK_REPORT(vf::compare(fd.v, fxy, tol::exact, at + ": Dual value vs double"));
    NGVI_CHECK_REPORT(vf::compare(fd.d[0], d1, tol::exact, at + ": Dual tangent in x vs fn::d1"));
    NGVI_CHECK_REPORT(vf::compare(fd.d[1], d2, tol::exact, at + ": Dual tangent in y vs fn::d2"));
    // Dual beside a plain number, both ways round
    NGVI_CHECK_REPORT(
        vf::compare(call(D2(x, 0, 1.0), y).d[0], d1, tol::exact, at + ": (Dual, double)"));
    NGVI_CHECK_REPORT(
        vf::compare(call(x, D2(y, 1, 1.0)).d[1], d2, tol::exact, at + ": (double, Dual)"));
    Eigen::VectorXd g;
    const double v = ad::value_and_gradient(
        [&](const auto& th) {
          using T = typename std::decay_t<decltype(th)>::Scalar;
          return T(call(th(0), th(1)));
        },
        Eigen::Vector2d(x, y), g);
    NGVI_CHECK_REPORT(vf::compare(v, fd.v, tol::ad_vs_ad, at + ": Var value vs Dual"));
    NGVI_CHECK_REPORT(
        vf::compare(g(0), fd.d[0], tol::ad_vs_ad, at + ": Var gradient in x vs Dual"));
    NGVI_CHECK_REPORT(
        vf::compare(g(1), fd.d[1], tol::ad_vs_ad, at + ": Var gradient in y vs Dual"));
  }
}

BOOST_AUTO_TEST_CASE(every_unary_function_on_every_scalar) {
  std::set<std::string> seen;
#define NGVI_TEST_UNARY(name, Op) \
  run_unary<ad::fn::Op>(          \
      #name, [](const auto& x) { return ad::name(x); }, seen);
  NGVI_AD_UNARY_FUNCTIONS(NGVI_TEST_UNARY)
#undef NGVI_TEST_UNARY
  // Both ways: every name of the list has a reference, and every reference is in the list.
  BOOST_TEST(seen.size() == unary_references().size());
}

BOOST_AUTO_TEST_CASE(every_binary_function_on_every_scalar) {
  std::set<std::string> seen;
#define NGVI_TEST_BINARY(name, Op) \
  run_binary<ad::fn::Op>(          \
      #name, [](const auto& x, const auto& y) { return ad::name(x, y); }, seen);
  NGVI_AD_BINARY_FUNCTIONS(NGVI_TEST_BINARY)
#undef NGVI_TEST_BINARY
  BOOST_TEST(seen.size() == binary_references().size());
}

// The fused elementwise node of every unary function: gradient (Var<double>) and Hessian
// (Var<Dual>, which for the functions without a vectorised kernel goes through Dual
// arithmetic) of Σ_i c_i f(x_i) against the same sum written with the scalar functions.
template <class Call>
void run_matrix(const std::string& name, Call call) {
  const std::vector<double>& p = unary_references().at(name).points;
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(p.data(), Eigen::Index(p.size()));
  const auto fused = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    const Eigen::Matrix<T, Eigen::Dynamic, 1> fx = call(th);
    T s = 0.0;
    for (Eigen::Index i = 0; i < fx.size(); ++i) s += (1.0 + 0.5 * double(i)) * fx(i);
    return s;
  };
  const auto scalar = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    T s = 0.0;
    for (Eigen::Index i = 0; i < th.size(); ++i) s += (1.0 + 0.5 * double(i)) * T(call(th(i)));
    return s;
  };
  NGVI_CHECK_REPORT(vf::compare(ad::gradient(fused, x), ad::gradient(scalar, x), tol::ad_vs_ad,
                                name + ": fused gradient vs scalar route"));
  NGVI_CHECK_REPORT(vf::compare(ad::hessian(fused, x), ad::hessian(scalar, x), tol::ad_vs_ad,
                                name + ": fused Hessian vs scalar route"));
  const Eigen::VectorXd on_double = call(x);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    NGVI_CHECK_REPORT(vf::compare(on_double(i), double(call(x(i))), tol::vectorised_kernel,
                                  name + ": matrix of double vs ad::" + name + "(double)"));
}

BOOST_AUTO_TEST_CASE(every_unary_function_on_matrices) {
#define NGVI_TEST_MATRIX(name, Op) run_matrix(#name, [](const auto& x) { return ad::name(x); });
  NGVI_AD_UNARY_FUNCTIONS(NGVI_TEST_MATRIX)
#undef NGVI_TEST_MATRIX
}

// Generic code that predates the plain overloads keeps compiling and computing the same
// numbers: a using-declaration of std::exp, both namespaces as using-directives (where the
// non-template std:: function wins the tie for double), Eigen's own array functions.
BOOST_AUTO_TEST_CASE(std_and_eigen_overloads_still_resolve) {
  const auto generic = [](const auto& x) {
    using std::exp;
    using std::log;
    return exp(x) + log(1.0 + x * x);
  };
  const double x = 0.7;
  const double ref = std::exp(x) + std::log(1.0 + x * x);
  NGVI_CHECK_REPORT(vf::compare(generic(x), ref, tol::exact, "using std::exp on double"));
  NGVI_CHECK_REPORT(
      vf::compare(generic(D2(x, 0, 1.0)).v, ref, tol::exact, "using std::exp on Dual"));
  {
    using namespace std;       // NOLINT(google-build-using-namespace)
    using namespace ngvi::ad;  // NOLINT(google-build-using-namespace)
    NGVI_CHECK_REPORT(vf::compare(exp(x), std::exp(x), tol::exact, "both namespaces: exp(double)"));
    NGVI_CHECK_REPORT(vf::compare(exp(1), std::exp(1.0), tol::exact, "both namespaces: exp(int)"));
    NGVI_CHECK_REPORT(
        vf::compare(pow(x, 3), std::pow(x, 3.0), tol::exact, "both namespaces: pow(double, int)"));
    NGVI_CHECK_REPORT(
        vf::compare(fmax(1, x), 1.0, tol::exact, "both namespaces: fmax(int, double)"));
    NGVI_CHECK_REPORT(vf::compare(abs(-x), x, tol::exact, "both namespaces: abs(double)"));
    BOOST_TEST(isfinite(x));
    BOOST_TEST(!isnan(x));
    const Eigen::ArrayXd a = Eigen::ArrayXd::Constant(3, x);
    const Eigen::ArrayXd ea = exp(a);  // Eigen::exp(ArrayBase), found by ADL
    NGVI_CHECK_REPORT(vf::compare(ea(2), std::exp(x), tol::exact, "Eigen's exp of an array"));
  }
  // ad:: names on plain numbers where <cmath> has nothing
  NGVI_CHECK_REPORT(
      vf::compare(ad::digamma(1), -0.57721566490153286061, tol::closed_form, "digamma(1) = -γ"));
  NGVI_CHECK_REPORT(vf::compare(ad::polygamma(1, 1.0), 1.6449340668482264365, tol::closed_form,
                                "polygamma(1, 1) = π²/6"));
  BOOST_TEST(ad::isnan(ad::log(-1.0)));
  BOOST_TEST(ad::isinf(ad::lgamma(0.0)));
}

BOOST_AUTO_TEST_SUITE_END()
