// Tests of autodiff/expr/elementary.hpp (through the expression nodes of functions.hpp): the
// value, first and second derivative of every elementary function on Var, at >= 20 points
// each, including edge values (0, tiny and huge |x|, points near domain boundaries and poles,
// negative arguments of the gamma family).
//
// Every point is checked against two independent references:
//   (a) finite differences through the verify helpers: the AD gradient vs Boost.Math's
//       central differences of the double function, and the AD second derivative (from
//       hessian() and hvp()) vs finite differences of the AD gradient;
//   (b) Boost.Math's forward-mode autodiff (make_fvar<double, 2>) as an oracle for the first
//       and second derivative. Where Boost's autodiff lacks a function (expm1, log1p, log2,
//       log10, cbrt, square, trigamma, hypot, fmin, fmax, logistic, log1p_exp) the oracle is
//       built from functions it has (e.g. log1p(x) as log(1 + x), trigamma as the derivative of
//       Boost's digamma with make_fvar<double, 3>) or replaced by a closed form, as noted per
//       function; where Boost's formula is ill-conditioned (1 − x² near |x| = 1 for
//       asin/acos/atanh/acosh, e^{2x} overflow in its tanh) a closed form written with the
//       well-conditioned factorisation is used there instead.
// Binary functions are checked as Var∘Var (2-D gradient and Hessian, plus the symmetry of
// the raw forward-over-reverse columns), Var∘double and double∘Var.
//
// To keep this file quick to compile, each function contributes only tiny non-template
// function pointers (on double, Var<double>, Var<Dual<double, 1>> and the oracle); the
// drivers are instantiated once for one generic lambda that dispatches through them.
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <boost/math/differentiation/autodiff.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(elementary_test)
namespace {

namespace bmd = boost::math::differentiation;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::Var;
using D1 = ngvi::ad::Dual<double, 1>;
using Fv = bmd::autodiff_fvar<double, 2>;
using Fv2 = bmd::autodiff_fvar<double, 2, 2>;

// The overload sets the function bodies below are written against: <cmath> for double,
// ngvi::ad for Var (found by argument-dependent lookup) and for the double helpers the
// standard library lacks (square, logistic, log1p_exp, digamma, trigamma).
using namespace ngvi::ad;  // NOLINT(google-build-using-namespace)
using std::abs, std::acos, std::acosh, std::asin, std::asinh, std::atan, std::atan2, std::atanh;
using std::cbrt, std::cos, std::cosh, std::erf, std::erfc, std::exp, std::expm1, std::fmax;
using std::fmin, std::hypot, std::lgamma, std::log, std::log10, std::log1p, std::log2, std::pow;
using std::sin, std::sinh, std::sqrt, std::tan, std::tanh, std::tgamma;

constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double pi = std::numbers::pi;

// Value, first and second derivative.
using Derivs = std::array<double, 3>;
// Value and the partials f_x, f_y, f_xx, f_xy, f_yy.
using Derivs2 = std::array<double, 6>;

// ---- unary functions ---------------------------------------------------------------------------

struct Unary {
  const char* name;
  double (*on_double)(double);
  Var<double> (*on_var)(const Var<double>&);
  Var<D1> (*on_var_dual)(const Var<D1>&);
  Derivs (*oracle)(double);      // Boost.Math autodiff; nullptr if none
  bool (*oracle_valid)(double);  // where the oracle is well-conditioned; nullptr: everywhere
  Derivs (*closed)(double);      // closed form; nullptr if none
  bool (*smooth_at)(double);     // false at kinks, where FD is meaningless; nullptr: everywhere
  std::vector<double> points;
};

double apply(const Unary& c, double x) { return c.on_double(x); }
Var<double> apply(const Unary& c, const Var<double>& x) { return c.on_var(x); }
Var<D1> apply(const Unary& c, const Var<D1>& x) { return c.on_var_dual(x); }

#define NGVI_UNARY(EXPR)                                         \
  +[](double x) -> double { return EXPR; },                      \
      +[](const Var<double>& x) -> Var<double> { return EXPR; }, \
      +[](const Var<D1>& x) -> Var<D1> { return EXPR; }

// Boost.Math autodiff of an expression in x (an fvar<double, 2>).
#define NGVI_ORACLE(EXPR)                                                               \
  +[](double x0) -> Derivs {                                                            \
    const Fv x = bmd::make_fvar<double, 2>(x0);                                         \
    const Fv y = EXPR;                                                                  \
    return {static_cast<double>(y.derivative(0)), static_cast<double>(y.derivative(1)), \
            static_cast<double>(y.derivative(2))};                                      \
  }

#define NGVI_CLOSED(V, D1_, D2_) +[](double x) -> Derivs { return {(V), (D1_), (D2_)}; }

bool away_from_one(double x) { return std::abs(x) <= 0.99; }

// σ(x) and σ(-x) are both accurate, so σ' = σ(x)σ(−x) keeps full relative accuracy even
// where σ(x) rounds to 1.
double sigma(double x) { return ngvi::ad::logistic(x); }

// The shared check of a 1-D function g (generic: double, Var<double>, Var<D1>) at x.
// `refs` are the derivative references valid at x, each with the tolerance that applies.
struct Ref {
  const char* kind;
  Derivs d;
  vf::Tolerance tol;
};

// Finite differences can only judge a derivative they resolve: at a point within 1e-10 of a
// boundary at |x| ≈ 1 (acosh at 1 + 1e-10, atanh at 1 − 1e-10) the stencil must fit in
// 1e-10 while x itself is only resolved to 2.2e-16, so no FD can be accurate to better than
// ~1e-5 there. Such points are recognised from the FD's own error estimate (Boost's
// estimate plus the rounding of the stencil points): if it exceeds a quarter of the allowed
// difference, the FD comparison is skipped for that point and only the oracle / closed form
// judge it. run_unary/run_binary require that FD judged at least 3/4 of the points.
bool fd_can_judge(const Eigen::VectorXd& fd, const Eigen::VectorXd& fd_error,
                  const vf::Tolerance& t) {
  for (Eigen::Index i = 0; i < fd.size(); ++i)
    if (!(fd_error(i) <= 0.25 * t.allowed(fd(i)))) return false;
  return true;
}

struct FdTally {
  int judged = 0;
  int total = 0;
};

template <class G>
void check_1d(const G& g, double x, double value_on_double, const std::vector<Ref>& refs,
              bool smooth, FdTally& tally) {
  Eigen::VectorXd xv(1);
  xv << x;
  // Values: the Var recording and the dual recording must reproduce the double computation.
  double value_var = qnan, value_dual = qnan;
  Eigen::VectorXd grad_ad;
  value_var = ngvi::ad::value_and_gradient(g, xv, grad_ad);
  Eigen::VectorXd grad_dual;
  const Eigen::MatrixXd hess_ad = ngvi::ad::hessian<1>(g, xv, &value_dual, &grad_dual);
  NGVI_CHECK_REPORT(
      vf::compare(value_var, value_on_double, tol::ad_vs_ad, "value on Var vs double"));
  NGVI_CHECK_REPORT(
      vf::compare(value_dual, value_on_double, tol::ad_vs_ad, "value on Var<Dual> vs double"));
  NGVI_CHECK_REPORT(
      vf::compare(grad_dual, grad_ad, tol::ad_vs_ad, "gradient from the dual sweep vs gradient()"));
  // hvp along a non-unit direction is v times the second derivative.
  Eigen::VectorXd v(1);
  v << -0.75;
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hvp(g, xv, v), (hess_ad * v).eval(), tol::ad_vs_ad,
                                "hvp vs hessian·v"));
  // (a) finite differences.
  if (smooth) {
    ++tally.total;
    Eigen::VectorXd g_err;
    Eigen::MatrixXd h_err;
    const Eigen::VectorXd g_fd = vf::finite_diff_gradient(g, xv, {}, &g_err);
    const Eigen::MatrixXd h_fd = vf::finite_diff_hessian(g, xv, {}, &h_err);
    const bool judge = fd_can_judge(g_fd, g_err, tol::gradient_vs_fd) &&
                       fd_can_judge(h_fd.reshaped(), h_err.reshaped(), tol::hessian_vs_fd);
    if (judge) {
      ++tally.judged;
      NGVI_CHECK_REPORT(vf::compare(grad_ad, g_fd, tol::gradient_vs_fd,
                                    "AD first derivative vs finite differences"));
      NGVI_CHECK_REPORT(
          vf::compare(hess_ad, h_fd, tol::hessian_vs_fd,
                      "AD second derivative vs finite differences of the AD gradient"));
    } else {
      BOOST_TEST_MESSAGE("finite differences cannot resolve this point (error estimates "
                         << g_err(0) << ", " << h_err(0, 0) << "); judged by the references only");
    }
  }
  // (b) independent references.
  for (const Ref& r : refs) {
    BOOST_TEST_CONTEXT("reference: " << r.kind) {
      NGVI_CHECK_REPORT(vf::compare(value_on_double, r.d[0], r.tol, "value"));
      NGVI_CHECK_REPORT(vf::compare(grad_ad(0), r.d[1], r.tol, "first derivative"));
      NGVI_CHECK_REPORT(vf::compare(hess_ad(0, 0), r.d[2], r.tol, "second derivative"));
    }
  }
}

void run_unary(const Unary& c) {
  // Each function is checked at >= 20 points, as the issue asks; the list is the test.
  BOOST_TEST(c.points.size() >= 20u);
  auto g = [&c](const auto& x) { return apply(c, x(0)); };
  FdTally tally;
  for (double x : c.points) {
    BOOST_TEST_CONTEXT(c.name << "(x) at x = " << vf::detail::fmt_g(x, 17)) {
      std::vector<Ref> refs;
      if (c.oracle && (!c.oracle_valid || c.oracle_valid(x)))
        refs.push_back({"Boost.Math autodiff", c.oracle(x), tol::independent_ad});
      if (c.closed) refs.push_back({"closed form", c.closed(x), tol::closed_form});
      BOOST_TEST(!refs.empty());
      check_1d(g, x, c.on_double(x), refs, !c.smooth_at || c.smooth_at(x), tally);
    }
  }
  BOOST_TEST(4 * tally.judged >= 3 * tally.total, c.name << ": finite differences judged only "
                                                         << tally.judged << " of " << tally.total
                                                         << " points");
}

// ---- binary functions --------------------------------------------------------------------------

struct Binary {
  const char* name;
  double (*on_double)(double, double);
  Var<double> (*vv)(const Var<double>&, const Var<double>&);
  Var<double> (*vc)(const Var<double>&, double);
  Var<double> (*cv)(double, const Var<double>&);
  Var<D1> (*vv_d)(const Var<D1>&, const Var<D1>&);
  Var<D1> (*vc_d)(const Var<D1>&, double);
  Var<D1> (*cv_d)(double, const Var<D1>&);
  Derivs2 (*oracle)(double, double);  // nullptr if none
  // One-variable oracles for Var∘double (derivatives in x) and double∘Var (in y), where the
  // two-variable one is undefined (pow at x < 0); nullptr: use the two-variable oracle.
  Derivs (*oracle_vc)(double, double);
  Derivs (*oracle_cv)(double, double);
  bool (*oracle_valid)(double, double);  // where the oracles are defined; nullptr: everywhere
  Derivs2 (*closed)(double, double);     // nullptr if none
  bool (*smooth_at)(double, double);     // nullptr: everywhere
  // Points for Var∘Var, Var∘double (x a Var, y the constant) and double∘Var.
  std::vector<std::array<double, 2>> vv_points, vc_points, cv_points;
};

#define NGVI_BINARY(EXPR)                                                              \
  +[](double x, double y) -> double { return EXPR; },                                  \
      +[](const Var<double>& x, const Var<double>& y) -> Var<double> { return EXPR; }, \
      +[](const Var<double>& x, double y) -> Var<double> { return EXPR; },             \
      +[](double x, const Var<double>& y) -> Var<double> { return EXPR; },             \
      +[](const Var<D1>& x, const Var<D1>& y) -> Var<D1> { return EXPR; },             \
      +[](const Var<D1>& x, double y) -> Var<D1> { return EXPR; },                     \
      +[](double x, const Var<D1>& y) -> Var<D1> { return EXPR; }

#define NGVI_ORACLE2(EXPR)                                                                     \
  +[](double x0, double y0) -> Derivs2 {                                                       \
    const auto xy = bmd::make_ftuple<double, 2, 2>(x0, y0);                                    \
    const Fv2 x = std::get<0>(xy);                                                             \
    const Fv2 y = std::get<1>(xy);                                                             \
    const Fv2 z = EXPR;                                                                        \
    return {static_cast<double>(z.derivative(0, 0)), static_cast<double>(z.derivative(1, 0)),  \
            static_cast<double>(z.derivative(0, 1)), static_cast<double>(z.derivative(2, 0)),  \
            static_cast<double>(z.derivative(1, 1)), static_cast<double>(z.derivative(0, 2))}; \
  }

#define NGVI_ORACLE_VC(EXPR)                                                            \
  +[](double x0, double y) -> Derivs {                                                  \
    const Fv x = bmd::make_fvar<double, 2>(x0);                                         \
    const Fv z = EXPR;                                                                  \
    return {static_cast<double>(z.derivative(0)), static_cast<double>(z.derivative(1)), \
            static_cast<double>(z.derivative(2))};                                      \
  }
#define NGVI_ORACLE_CV(EXPR)                                                            \
  +[](double x, double y0) -> Derivs {                                                  \
    const Fv y = bmd::make_fvar<double, 2>(y0);                                         \
    const Fv z = EXPR;                                                                  \
    return {static_cast<double>(z.derivative(0)), static_cast<double>(z.derivative(1)), \
            static_cast<double>(z.derivative(2))};                                      \
  }

double apply_vv(const Binary& c, double x, double y) { return c.on_double(x, y); }
Var<double> apply_vv(const Binary& c, const Var<double>& x, const Var<double>& y) {
  return c.vv(x, y);
}
Var<D1> apply_vv(const Binary& c, const Var<D1>& x, const Var<D1>& y) { return c.vv_d(x, y); }
double apply_vc(const Binary& c, double x, double y) { return c.on_double(x, y); }
Var<double> apply_vc(const Binary& c, const Var<double>& x, double y) { return c.vc(x, y); }
Var<D1> apply_vc(const Binary& c, const Var<D1>& x, double y) { return c.vc_d(x, y); }
double apply_cv(const Binary& c, double x, double y) { return c.on_double(x, y); }
Var<double> apply_cv(const Binary& c, double x, const Var<double>& y) { return c.cv(x, y); }
Var<D1> apply_cv(const Binary& c, double x, const Var<D1>& y) { return c.cv_d(x, y); }

std::vector<std::pair<const char*, std::pair<Derivs2, vf::Tolerance>>> binary_refs(
    const Binary& c, double x, double y, bool with_oracle = true) {
  std::vector<std::pair<const char*, std::pair<Derivs2, vf::Tolerance>>> refs;
  if (c.oracle && with_oracle && (!c.oracle_valid || c.oracle_valid(x, y)))
    refs.push_back({"Boost.Math autodiff", {c.oracle(x, y), tol::independent_ad}});
  if (c.closed) refs.push_back({"closed form", {c.closed(x, y), tol::closed_form}});
  return refs;
}

void run_binary(const Binary& c) {
  BOOST_TEST(c.vv_points.size() >= 20u);
  BOOST_TEST(c.vc_points.size() >= 20u);
  BOOST_TEST(c.cv_points.size() >= 20u);

  // Var∘Var: 2-D gradient and Hessian.
  auto g2 = [&c](const auto& v) { return apply_vv(c, v(0), v(1)); };
  FdTally tally;
  for (const auto& [x, y] : c.vv_points) {
    BOOST_TEST_CONTEXT(c.name << "(Var x, Var y) at (" << vf::detail::fmt_g(x, 17) << ", "
                              << vf::detail::fmt_g(y, 17) << ")") {
      Eigen::VectorXd p(2);
      p << x, y;
      Eigen::VectorXd grad_ad;
      const double value = ngvi::ad::value_and_gradient(g2, p, grad_ad);
      double value_dual = qnan;
      const Eigen::MatrixXd H = ngvi::ad::hessian<1>(g2, p, &value_dual);
      NGVI_CHECK_REPORT(
          vf::compare(value, c.on_double(x, y), tol::ad_vs_ad, "value on Var vs double"));
      NGVI_CHECK_REPORT(vf::compare(value_dual, c.on_double(x, y), tol::ad_vs_ad,
                                    "value on Var<Dual> vs double"));
      // The driver symmetrises; the raw columns hvp(e_j) must already be symmetric.
      Eigen::MatrixXd raw(2, 2);
      raw.col(0) = ngvi::ad::hvp(g2, p, Eigen::Vector2d(1.0, 0.0));
      raw.col(1) = ngvi::ad::hvp(g2, p, Eigen::Vector2d(0.0, 1.0));
      NGVI_CHECK_REPORT(vf::compare(raw(0, 1), raw(1, 0), tol::ad_vs_ad,
                                    "cross partial from the x column vs the y column"));
      const bool smooth = !c.smooth_at || c.smooth_at(x, y);
      if (smooth) {
        ++tally.total;
        Eigen::VectorXd g_err;
        Eigen::MatrixXd h_err;
        const Eigen::VectorXd g_fd = vf::finite_diff_gradient(g2, p, {}, &g_err);
        const Eigen::MatrixXd h_fd = vf::finite_diff_hessian(g2, p, {}, &h_err);
        if (fd_can_judge(g_fd, g_err, tol::gradient_vs_fd) &&
            fd_can_judge(h_fd.reshaped(), h_err.reshaped(), tol::hessian_vs_fd)) {
          ++tally.judged;
          NGVI_CHECK_REPORT(
              vf::compare(grad_ad, g_fd, tol::gradient_vs_fd, "AD gradient vs finite differences"));
          NGVI_CHECK_REPORT(vf::compare(H, h_fd, tol::hessian_vs_fd,
                                        "AD Hessian vs finite differences of the AD gradient"));
        } else {
          BOOST_TEST_MESSAGE(
              "finite differences cannot resolve this point; judged by the references only");
        }
      }
      for (const auto& [kind, ref] : binary_refs(c, x, y)) {
        BOOST_TEST_CONTEXT("reference: " << kind) {
          const Derivs2& d = ref.first;
          NGVI_CHECK_REPORT(vf::compare(value, d[0], ref.second, "value"));
          NGVI_CHECK_REPORT(
              vf::compare(grad_ad, Eigen::Vector2d(d[1], d[2]), ref.second, "gradient"));
          Eigen::Matrix2d Href;
          Href << d[3], d[4], d[4], d[5];
          NGVI_CHECK_REPORT(vf::compare(H, Href, ref.second, "Hessian"));
          NGVI_CHECK_REPORT(vf::compare(raw, Href, ref.second, "unsymmetrised Hessian columns"));
        }
      }
    }
  }

  // Var∘double and double∘Var: 1-D checks against the matching partials.
  for (const auto& [x, y] : c.vc_points) {
    BOOST_TEST_CONTEXT(c.name << "(Var x, double y) at (" << vf::detail::fmt_g(x, 17) << ", "
                              << vf::detail::fmt_g(y, 17) << ")") {
      auto g = [&c, y = y](const auto& v) { return apply_vc(c, v(0), y); };
      std::vector<Ref> refs;
      if (c.oracle_vc && (!c.oracle_valid || c.oracle_valid(x, y)))
        refs.push_back({"Boost.Math autodiff", c.oracle_vc(x, y), tol::independent_ad});
      for (const auto& [kind, ref] : binary_refs(c, x, y, c.oracle_vc == nullptr))
        refs.push_back({kind, {ref.first[0], ref.first[1], ref.first[3]}, ref.second});
      check_1d(g, x, c.on_double(x, y), refs, !c.smooth_at || c.smooth_at(x, y), tally);
    }
  }
  for (const auto& [x, y] : c.cv_points) {
    BOOST_TEST_CONTEXT(c.name << "(double x, Var y) at (" << vf::detail::fmt_g(x, 17) << ", "
                              << vf::detail::fmt_g(y, 17) << ")") {
      auto g = [&c, x = x](const auto& v) { return apply_cv(c, x, v(0)); };
      std::vector<Ref> refs;
      if (c.oracle_cv && (!c.oracle_valid || c.oracle_valid(x, y)))
        refs.push_back({"Boost.Math autodiff", c.oracle_cv(x, y), tol::independent_ad});
      for (const auto& [kind, ref] : binary_refs(c, x, y, c.oracle_cv == nullptr))
        refs.push_back({kind, {ref.first[0], ref.first[2], ref.first[5]}, ref.second});
      check_1d(g, y, c.on_double(x, y), refs, !c.smooth_at || c.smooth_at(x, y), tally);
    }
  }
  BOOST_TEST(4 * tally.judged >= 3 * tally.total, c.name << ": finite differences judged only "
                                                         << tally.judged << " of " << tally.total
                                                         << " points");
}

// Points shared by several functions.
const std::vector<double> whole_line = {0.0,   1e-300, -1e-300, 1e-8, -1e-8, 0.5,   -0.5,
                                        1.0,   -1.0,   2.75,    -3.5, 10.0,  -10.0, 42.0,
                                        -42.0, 1e3,    -1e3,    1e5,  -1e5,  0.1,   -0.3};
const std::vector<double> positive_line = {1e-150,
                                           1e-100,
                                           1e-10,
                                           1e-5,
                                           1e-3,
                                           0.1,
                                           0.5,
                                           0.999,
                                           1.0 - 1e-10,
                                           1.0,
                                           1.0 + 1e-10,
                                           2.0,
                                           2.718281828459045,
                                           10.0,
                                           100.0,
                                           1e5,
                                           1e10,
                                           1e100,
                                           1e300,
                                           3.3};
const std::vector<double> unit_interval = {
    0.0,  1e-300, -1e-300, 1e-8,     -1e-8,     0.1,         -0.1,         0.5, -0.5, 0.9,
    -0.9, 0.99,   -0.99,   0.999999, -0.999999, 1.0 - 1e-10, -1.0 + 1e-10, 0.3, -0.7, 0.75};
// Gamma family: positive arguments from tiny to large, negative ones away from the poles.
const std::vector<double> gamma_line = {
    1e-30, 1e-8, 0.1,  0.5,   1.0,   1.4616321449683622, 2.0,    3.7,  10.0, 100.0, 1e5, -0.5,
    -1.5,  -2.5, -3.3, -10.7, -1e-8, -0.999999,          -100.5, 25.25};

// ---- the unary cases ---------------------------------------------------------------------------

const Unary exp_case{"exp",
                     NGVI_UNARY(exp(x)),
                     NGVI_ORACLE(exp(x)),
                     nullptr,
                     nullptr,
                     nullptr,
                     {0.0,  1e-300, -1e-300, 1e-8,  -1e-8, 0.5,    -0.5,  1.0,    -1.0,  2.3, -3.7,
                      10.0, -10.0,  50.0,    -50.0, 300.0, -300.0, 700.0, -700.0, 705.0, 0.25}};
// expm1: Boost has no expm1 for fvar; exp(x) − 1 has the same derivatives (its value loses
// relative accuracy near 0, but only below the absolute tolerance). Closed form (expm1, eˣ, eˣ).
const Unary expm1_case{
    "expm1",
    NGVI_UNARY(expm1(x)),
    NGVI_ORACLE(exp(x) - 1.0),
    nullptr,
    NGVI_CLOSED(std::expm1(x), std::exp(x), std::exp(x)),
    nullptr,
    {0.0, 1e-300, -1e-300, 1e-10, -1e-10, 1e-5,  -1e-5, 0.1,    -0.1,  0.5,   -0.5,
     1.0, -1.0,   5.0,     -5.0,  20.0,   -20.0, 100.0, -100.0, 700.0, -700.0}};
const Unary log_case{"log",   NGVI_UNARY(log(x)), NGVI_ORACLE(log(x)), nullptr, nullptr,
                     nullptr, positive_line};
// log1p: oracle log(1 + x) in fvar (Boost has no log1p for fvar). Its derivatives 1/(1+x)
// and −1/(1+x)² are exact up to the rounding of 1 + x.
const Unary log1p_case{"log1p",
                       NGVI_UNARY(log1p(x)),
                       NGVI_ORACLE(log(1.0 + x)),
                       nullptr,
                       NGVI_CLOSED(std::log1p(x), 1.0 / (1.0 + x), -1.0 / ((1.0 + x) * (1.0 + x))),
                       nullptr,
                       {-1.0 + 1e-10, -0.999, -0.9, -0.5, -0.3, -1e-10, 0.0, 1e-300, 1e-10, 1e-5,
                        0.1,          0.5,    1.0,  2.0,  7.7,  10.0,   1e3, 1e10,   1e100, 1e300}};
// log2, log10: oracle log(x)/ln b in fvar.
const Unary log2_case{
    "log2",  NGVI_UNARY(log2(x)), NGVI_ORACLE(log(x) / std::numbers::ln2), nullptr, nullptr,
    nullptr, positive_line};
const Unary log10_case{
    "log10", NGVI_UNARY(log10(x)), NGVI_ORACLE(log(x) / std::numbers::ln10), nullptr, nullptr,
    nullptr, positive_line};
const Unary sqrt_case{"sqrt",
                      NGVI_UNARY(sqrt(x)),
                      NGVI_ORACLE(sqrt(x)),
                      nullptr,
                      nullptr,
                      nullptr,
                      {1e-200, 1e-100, 1e-12, 1e-6, 0.01,  0.25, 0.5, 0.7,  1.0,   2.0,
                       3.0,    4.0,    10.0,  42.0, 100.0, 1e4,  1e8, 1e12, 1e100, 1e300}};
// cbrt: Boost has no cbrt for fvar; closed form with c = cbrt(x): c' = 1/(3c²),
// c'' = −2/(9c⁵) (valid for negative x too, where pow(x, 1/3) would not be).
const Unary cbrt_case{"cbrt",
                      NGVI_UNARY(cbrt(x)),
                      nullptr,
                      nullptr,
                      +[](double x) -> Derivs {
                        const double c = std::cbrt(x);
                        return {c, 1.0 / (3.0 * c * c), -2.0 / (9.0 * c * c * c * c * c)};
                      },
                      nullptr,
                      {1e-100, -1e-100, 1e-9,  -1e-9, 1e-3, -1e-3, 0.5,    -0.5,  1.0,    -1.0, 8.0,
                       -8.0,   27.0,    -27.0, 1e6,   -1e6, 1e100, -1e100, 1e300, -1e300, 0.3}};
// square: closed form (x², 2x, 2); Boost would compute x·x, the same arithmetic.
const Unary square_case{"square",
                        NGVI_UNARY(square(x)),
                        nullptr,
                        nullptr,
                        NGVI_CLOSED(x* x, 2.0 * x, 2.0),
                        nullptr,
                        {0.0,  1e-300, -1e-300, 1e-8,  -1e-8,  0.5,   -0.5,   1.0,  -1.0,   3.0,
                         -3.0, 1e5,    -1e5,    1e100, -1e100, 1e150, -1e150, 7.25, -0.125, 42.0}};
// abs: derivative at 0 is 0 by convention (and Boost's fabs agrees); the kink at 0 makes the
// finite-difference second derivative meaningless there.
const Unary abs_case{"abs",
                     NGVI_UNARY(abs(x)),
                     NGVI_ORACLE(abs(x)),
                     nullptr,
                     NGVI_CLOSED(std::abs(x), x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0), 0.0),
                     +[](double x) { return x != 0.0; },
                     {0.0,   1e-3, -1e-3, 0.5,   -0.5,   1.0,   -1.0,   2.5, -2.5, 10.0,
                      -10.0, 1e5,  -1e5,  1e100, -1e100, 1e300, -1e300, 0.1, -0.7, 42.0}};
const Unary fabs_case{"fabs",
                      NGVI_UNARY(fabs(x)),
                      NGVI_ORACLE(fabs(x)),
                      nullptr,
                      nullptr,
                      +[](double x) { return x != 0.0; },
                      abs_case.points};
const Unary sin_case{
    "sin",
    NGVI_UNARY(sin(x)),
    NGVI_ORACLE(sin(x)),
    nullptr,
    nullptr,
    nullptr,
    {0.0, 1e-300, -1e-300, 1e-8, -1e-8, 0.5,   -0.5,  1.0,    -1.0, pi / 2, -pi / 2,
     pi,  -pi,    3.0,     -3.0, 10.0,  -10.0, 100.0, -100.0, 1e5,  -1e5}};
const Unary cos_case{"cos",   NGVI_UNARY(cos(x)), NGVI_ORACLE(cos(x)), nullptr, nullptr,
                     nullptr, sin_case.points};
const Unary tan_case{
    "tan",
    NGVI_UNARY(tan(x)),
    NGVI_ORACLE(tan(x)),
    nullptr,
    nullptr,
    nullptr,
    {0.0,  1e-300, -1e-300,   1e-8,       -1e-8, 0.5,  -0.5, 1.0,   -1.0,  1.5,   -1.5,
     1.57, -1.57,  1.5707963, -1.5707963, 3.0,   -3.0, 10.0, -10.0, 100.0, -100.0}};
// asin, acos, atanh near ±1: Boost forms 1 − x·x, which has lost ~log10(1/(1−|x|)) digits
// there; the closed forms use (1 − x)(1 + x), exact to rounding.
const Unary asin_case{"asin",
                      NGVI_UNARY(asin(x)),
                      NGVI_ORACLE(asin(x)),
                      away_from_one,
                      +[](double x) -> Derivs {
                        const double d = 1.0 / std::sqrt((1.0 - x) * (1.0 + x));
                        return {std::asin(x), d, x * d * d * d};
                      },
                      nullptr,
                      unit_interval};
const Unary acos_case{"acos",
                      NGVI_UNARY(acos(x)),
                      NGVI_ORACLE(acos(x)),
                      away_from_one,
                      +[](double x) -> Derivs {
                        const double d = 1.0 / std::sqrt((1.0 - x) * (1.0 + x));
                        return {std::acos(x), -d, -x * d * d * d};
                      },
                      nullptr,
                      unit_interval};
const Unary atan_case{"atan",
                      NGVI_UNARY(atan(x)),
                      NGVI_ORACLE(atan(x)),
                      nullptr,
                      nullptr,
                      nullptr,
                      {0.0,  1e-300, -1e-300, 1e-8, -1e-8, 0.5, -0.5, 1.0,   -1.0,   2.0,
                       -2.0, 10.0,   -10.0,   1e3,  -1e3,  1e8, -1e8, 1e150, -1e150, 0.3}};
const Unary sinh_case{"sinh",
                      NGVI_UNARY(sinh(x)),
                      NGVI_ORACLE(sinh(x)),
                      nullptr,
                      nullptr,
                      nullptr,
                      {0.0,  1e-300, -1e-300, 1e-8, -1e-8, 0.5,   -0.5,   1.0,   -1.0,   3.0,
                       -3.0, 10.0,   -10.0,   50.0, -50.0, 300.0, -300.0, 700.0, -700.0, 0.25}};
const Unary cosh_case{"cosh",  NGVI_UNARY(cosh(x)), NGVI_ORACLE(cosh(x)), nullptr, nullptr,
                      nullptr, sinh_case.points};
// tanh: Boost's tanh is (e^{2x} − 1)/(e^{2x} + 1), which overflows for |x| > ~354; beyond
// |x| = 300 only the closed form (1 − t², −2t(1 − t²)) is used.
const Unary tanh_case{"tanh",
                      NGVI_UNARY(tanh(x)),
                      NGVI_ORACLE(tanh(x)),
                      +[](double x) { return std::abs(x) <= 300.0; },
                      +[](double x) -> Derivs {
                        const double t = std::tanh(x);
                        return {t, 1.0 - t * t, -2.0 * t * (1.0 - t * t)};
                      },
                      nullptr,
                      {0.0,  1e-300, -1e-300, 1e-8, -1e-8, 0.5,   -0.5,   1.0, -1.0, 3.0,
                       -3.0, 10.0,   -10.0,   20.0, -20.0, 300.0, -300.0, 1e3, -1e3, 0.125}};
const Unary asinh_case{"asinh",
                       NGVI_UNARY(asinh(x)),
                       NGVI_ORACLE(asinh(x)),
                       nullptr,
                       nullptr,
                       nullptr,
                       {0.0,   1e-300, -1e-300, 1e-8, -1e-8, 0.5,   -0.5,   1.0,  -1.0, 10.0,
                        -10.0, 1e3,    -1e3,    1e8,  -1e8,  1e150, -1e150, -7.5, 0.3,  42.0}};
// acosh near 1: Boost forms x·x − 1 (ill-conditioned); the closed form uses (x − 1)(x + 1).
const Unary acosh_case{
    "acosh",
    NGVI_UNARY(acosh(x)),
    NGVI_ORACLE(acosh(x)),
    +[](double x) { return x >= 1.01; },
    +[](double x) -> Derivs {
      const double d = 1.0 / std::sqrt((x - 1.0) * (x + 1.0));
      return {std::acosh(x), d, -x * d * d * d};
    },
    nullptr,
    {1.0 + 1e-10, 1.0 + 1e-6, 1.001, 1.01, 1.1, 1.5,  2.0,   3.0,   5.0,       7.0,
     10.0,        42.0,       100.0, 1e3,  1e6, 1e10, 1e100, 1e150, 1.0000001, 1.25}};
const Unary atanh_case{"atanh",
                       NGVI_UNARY(atanh(x)),
                       NGVI_ORACLE(atanh(x)),
                       away_from_one,
                       +[](double x) -> Derivs {
                         const double d = 1.0 / ((1.0 - x) * (1.0 + x));
                         return {std::atanh(x), d, 2.0 * x * d * d};
                       },
                       nullptr,
                       unit_interval};
const Unary erf_case{"erf",
                     NGVI_UNARY(erf(x)),
                     NGVI_ORACLE(erf(x)),
                     nullptr,
                     nullptr,
                     nullptr,
                     {0.0,  1e-300, -1e-300, 1e-8, -1e-8, 0.5, -0.5, 1.0,  -1.0,  2.0,
                      -2.0, 3.0,    -3.0,    5.0,  -5.0,  6.0, -6.0, 10.0, -10.0, 26.0}};
const Unary erfc_case{"erfc",  NGVI_UNARY(erfc(x)), NGVI_ORACLE(erfc(x)), nullptr, nullptr,
                      nullptr, erf_case.points};
const Unary lgamma_case{
    "lgamma", NGVI_UNARY(lgamma(x)), NGVI_ORACLE(lgamma(x)), nullptr, nullptr, nullptr, gamma_line};
const Unary tgamma_case{
    "tgamma",
    NGVI_UNARY(tgamma(x)),
    NGVI_ORACLE(tgamma(x)),
    nullptr,
    nullptr,
    nullptr,
    {1e-100, 1e-8,  0.1,   0.5,  1.0,  1.5,  2.0,  3.0,   4.5,   10.0,  20.0,
     50.0,   100.0, 170.0, -0.5, -1.5, -2.5, -3.7, -10.3, -20.5, -1e-8, -0.999999}};
const Unary digamma_case{
    "digamma", NGVI_UNARY(digamma(x)), NGVI_ORACLE(digamma(x)), nullptr, nullptr, nullptr,
    gamma_line};
// trigamma: Boost has no trigamma for fvar; it is the first derivative of Boost's digamma,
// so a third-order fvar of digamma gives trigamma and its two derivatives.
const Unary trigamma_case{"trigamma",
                          NGVI_UNARY(trigamma(x)),
                          +[](double x0) -> Derivs {
                            const auto x = bmd::make_fvar<double, 3>(x0);
                            const auto y = digamma(x);
                            return {static_cast<double>(y.derivative(1)),
                                    static_cast<double>(y.derivative(2)),
                                    static_cast<double>(y.derivative(3))};
                          },
                          nullptr,
                          nullptr,
                          nullptr,
                          gamma_line};
// logistic: oracle 1/(1 + e^{−x}) for x >= 0 and e^x/(1 + e^x) for x < 0 (no overflow);
// closed form σ' = σ(x)σ(−x), σ'' = σ(x)σ(−x)(σ(−x) − σ(x)).
const Unary logistic_case{
    "logistic",
    NGVI_UNARY(logistic(x)),
    NGVI_ORACLE(x0 >= 0 ? Fv(1.0 / (1.0 + exp(-x))) : Fv(exp(x) / (1.0 + exp(x)))),
    nullptr,
    NGVI_CLOSED(sigma(x), sigma(x) * sigma(-x), sigma(x) * sigma(-x) * (sigma(-x) - sigma(x))),
    nullptr,
    {0.0,   1e-300, -1e-300, 1e-8, -1e-8, 0.5,  -0.5,  1.0,   -1.0,   5.0,   -5.0,  10.0,
     -10.0, 20.0,   -20.0,   36.0, -36.0, 40.0, -40.0, 100.0, -100.0, 700.0, -700.0}};
// log1p_exp: oracle x + log(1 + e^{−x}) for x > 0, log(1 + e^x) otherwise; closed form
// (log1p_exp, σ(x), σ(x)σ(−x)).
const Unary log1p_exp_case{"log1p_exp",
                           NGVI_UNARY(log1p_exp(x)),
                           NGVI_ORACLE(x0 > 0 ? Fv(x + log(1.0 + exp(-x))) : Fv(log(1.0 + exp(x)))),
                           nullptr,
                           NGVI_CLOSED(ngvi::ad::log1p_exp(x), sigma(x), sigma(x) * sigma(-x)),
                           nullptr,
                           logistic_case.points};
const Unary softplus_case{
    "softplus", NGVI_UNARY(softplus(x)), log1p_exp_case.oracle, nullptr, log1p_exp_case.closed,
    nullptr,    logistic_case.points};

// ---- the binary cases --------------------------------------------------------------------------

// pow: Var^Var needs x > 0 (∂/∂y = x^y log x); Var^double also at x <= 0 with integer
// exponents; double^Var with a positive base. y = 0 exactly is included for Var^Var: the
// cross partial ∂²/∂x∂y = x^{y−1}(1 + y log x) is 1/x there.
// Closed form of x^y and its partials; log x is NaN for x < 0, where only the x-partials
// (which do not use it) are compared.
Derivs2 pow_closed(double x, double y) {
  const double p = std::pow(x, y);
  const double lx = std::log(x);
  const double px = y == 0.0 ? 0.0 : y * std::pow(x, y - 1.0);
  const double pxx = (y == 0.0 || y == 1.0) ? 0.0 : y * (y - 1.0) * std::pow(x, y - 2.0);
  return {p, px, p * lx, pxx, std::pow(x, y - 1.0) * (1.0 + y * lx), p * lx * lx};
}

const Binary pow_case{
    "pow",
    NGVI_BINARY(pow(x, y)),
    NGVI_ORACLE2(pow(x, y)),
    NGVI_ORACLE_VC(pow(x, y)),
    NGVI_ORACLE_CV(pow(x, y)),
    // Boost's pow(fvar, y) divides by x: NaN at x = 0, where only the closed form is used.
    +[](double x, double) { return x != 0.0; },
    pow_closed,
    nullptr,
    {{0.5, 2.0},  {2.0, 0.5},  {2.0, 3.0},   {2.5, 0.0},  {3.0, -1.0},  {1e-3, 0.5},
     {1e-3, 2.5}, {0.9, -2.5}, {1.0, 1.0},   {1.0, 7.3},  {10.0, 2.0},  {10.0, -3.0},
     {1e5, 0.5},  {1e5, -0.5}, {0.25, 10.0}, {7.0, 1e-8}, {1.5, 100.0}, {100.0, 0.1},
     {0.1, 0.1},  {42.0, 1.5}, {1e-100, 0.5}},
    {{0.5, 2.0}, {2.0, 0.5}, {-1.5, 2.0},  {-1.5, 3.0}, {-2.0, -1.0}, {-0.5, 4.0}, {0.0, 3.0},
     {0.0, 2.0}, {2.5, 0.0}, {3.0, -1.0},  {1e-3, 0.5}, {1e-3, 2.5},  {10.0, 2.0}, {-10.0, 2.0},
     {1e5, 0.5}, {1.0, 7.3}, {0.25, 10.0}, {-3.0, 5.0}, {7.0, 1e-8},  {42.0, 1.5}},
    {{0.5, 2.0},   {2.0, 0.5},   {2.0, 3.0},  {2.5, 0.0},   {3.0, -1.0},  {1e-3, 0.5},  {1e-3, 2.5},
     {0.9, -2.5},  {1.0, 1.0},   {10.0, 2.0}, {10.0, -3.0}, {1e5, 0.5},   {0.25, 10.0}, {7.0, 1e-8},
     {1.5, 100.0}, {100.0, 0.1}, {0.1, 0.1},  {42.0, 1.5},  {2.0, -30.0}, {2.0, 50.0}}};

const std::vector<std::array<double, 2>> plane = {
    {1.0, 1.0},   {1.0, -1.0},  {-1.0, 1.0},  {-1.0, -1.0}, {0.0, 1.0},  {1.0, 0.0},   {-2.0, 0.0},
    {3.0, 4.0},   {-3.0, 4.0},  {1e-5, 2.0},  {2.0, 1e-5},  {1e5, 1.0},  {1.0, 1e5},   {-1e5, -3.0},
    {0.5, -0.25}, {1e-3, 2e-3}, {7.0, -24.0}, {-0.1, 0.7},  {1e3, -1e3}, {-1.0, -1e-8}};

// atan2(y, x): Boost's atan2 on fvar; all quadrants, the axes (except the origin and the
// branch cut y = 0, x < 0, where atan2 jumps by 2π and FD is meaningless), and points just
// either side of the cut, where the derivatives are continuous.
const Binary atan2_case{"atan2",
                        NGVI_BINARY(atan2(x, y)),
                        NGVI_ORACLE2(atan2(x, y)),
                        NGVI_ORACLE_VC(atan2(x, y)),
                        NGVI_ORACLE_CV(atan2(x, y)),
                        nullptr,
                        nullptr,
                        nullptr,
                        plane,
                        plane,
                        plane};
// hypot: oracle sqrt(x² + y²) in fvar (Boost has no hypot for fvar).
const Binary hypot_case{"hypot",
                        NGVI_BINARY(hypot(x, y)),
                        NGVI_ORACLE2(sqrt(x* x + y * y)),
                        nullptr,
                        nullptr,
                        nullptr,
                        nullptr,
                        nullptr,
                        plane,
                        plane,
                        plane};

// fmin/fmax: Boost has no fmin/fmax for fvar; closed forms. Ties select the first argument
// (documented in elementary.hpp), where the function has a kink and FD is skipped.
Derivs2 fmin_closed(double x, double y) {
  return x <= y ? Derivs2{x, 1.0, 0.0, 0.0, 0.0, 0.0} : Derivs2{y, 0.0, 1.0, 0.0, 0.0, 0.0};
}
Derivs2 fmax_closed(double x, double y) {
  return x >= y ? Derivs2{x, 1.0, 0.0, 0.0, 0.0, 0.0} : Derivs2{y, 0.0, 1.0, 0.0, 0.0, 0.0};
}
const std::vector<std::array<double, 2>> minmax_points = {
    {1.0, 2.0},   {2.0, 1.0},   {-1.0, 1.0},  {1.0, -1.0},  {0.0, 0.0},   {3.0, 3.0},  {-5.0, -5.0},
    {1e-8, 0.0},  {0.0, 1e-8},  {1e5, -1e5},  {-1e5, 1e5},  {0.5, 0.25},  {0.25, 0.5}, {-0.1, -0.2},
    {-0.2, -0.1}, {1e300, 1.0}, {1.0, 1e300}, {42.0, 41.0}, {41.0, 42.0}, {7.0, -7.0}};
const Binary fmin_case{"fmin",        NGVI_BINARY(fmin(x, y)),
                       nullptr,       nullptr,
                       nullptr,       nullptr,
                       fmin_closed,   +[](double x, double y) { return x != y; },
                       minmax_points, minmax_points,
                       minmax_points};
const Binary fmax_case{"fmax",        NGVI_BINARY(fmax(x, y)),
                       nullptr,       nullptr,
                       nullptr,       nullptr,
                       fmax_closed,   +[](double x, double y) { return x != y; },
                       minmax_points, minmax_points,
                       minmax_points};

}  // namespace

BOOST_AUTO_TEST_CASE(exp_derivatives) { run_unary(exp_case); }
BOOST_AUTO_TEST_CASE(expm1_derivatives) { run_unary(expm1_case); }
BOOST_AUTO_TEST_CASE(log_derivatives) { run_unary(log_case); }
BOOST_AUTO_TEST_CASE(log1p_derivatives) { run_unary(log1p_case); }
BOOST_AUTO_TEST_CASE(log2_derivatives) { run_unary(log2_case); }
BOOST_AUTO_TEST_CASE(log10_derivatives) { run_unary(log10_case); }
BOOST_AUTO_TEST_CASE(sqrt_derivatives) { run_unary(sqrt_case); }
BOOST_AUTO_TEST_CASE(cbrt_derivatives) { run_unary(cbrt_case); }
BOOST_AUTO_TEST_CASE(square_derivatives) { run_unary(square_case); }
BOOST_AUTO_TEST_CASE(abs_derivatives) { run_unary(abs_case); }
BOOST_AUTO_TEST_CASE(fabs_derivatives) { run_unary(fabs_case); }
BOOST_AUTO_TEST_CASE(sin_derivatives) { run_unary(sin_case); }
BOOST_AUTO_TEST_CASE(cos_derivatives) { run_unary(cos_case); }
BOOST_AUTO_TEST_CASE(tan_derivatives) { run_unary(tan_case); }
BOOST_AUTO_TEST_CASE(asin_derivatives) { run_unary(asin_case); }
BOOST_AUTO_TEST_CASE(acos_derivatives) { run_unary(acos_case); }
BOOST_AUTO_TEST_CASE(atan_derivatives) { run_unary(atan_case); }
BOOST_AUTO_TEST_CASE(sinh_derivatives) { run_unary(sinh_case); }
BOOST_AUTO_TEST_CASE(cosh_derivatives) { run_unary(cosh_case); }
BOOST_AUTO_TEST_CASE(tanh_derivatives) { run_unary(tanh_case); }
BOOST_AUTO_TEST_CASE(asinh_derivatives) { run_unary(asinh_case); }
BOOST_AUTO_TEST_CASE(acosh_derivatives) { run_unary(acosh_case); }
BOOST_AUTO_TEST_CASE(atanh_derivatives) { run_unary(atanh_case); }
BOOST_AUTO_TEST_CASE(erf_derivatives) { run_unary(erf_case); }
BOOST_AUTO_TEST_CASE(erfc_derivatives) { run_unary(erfc_case); }
BOOST_AUTO_TEST_CASE(lgamma_derivatives) { run_unary(lgamma_case); }
BOOST_AUTO_TEST_CASE(tgamma_derivatives) { run_unary(tgamma_case); }
BOOST_AUTO_TEST_CASE(digamma_derivatives) { run_unary(digamma_case); }
BOOST_AUTO_TEST_CASE(trigamma_derivatives) { run_unary(trigamma_case); }
BOOST_AUTO_TEST_CASE(logistic_derivatives) { run_unary(logistic_case); }
BOOST_AUTO_TEST_CASE(log1p_exp_derivatives) { run_unary(log1p_exp_case); }
BOOST_AUTO_TEST_CASE(softplus_derivatives) { run_unary(softplus_case); }

BOOST_AUTO_TEST_CASE(pow_derivatives) { run_binary(pow_case); }
BOOST_AUTO_TEST_CASE(atan2_derivatives) { run_binary(atan2_case); }
BOOST_AUTO_TEST_CASE(hypot_derivatives) { run_binary(hypot_case); }
BOOST_AUTO_TEST_CASE(fmin_derivatives) { run_binary(fmin_case); }
BOOST_AUTO_TEST_CASE(fmax_derivatives) { run_binary(fmax_case); }

BOOST_AUTO_TEST_SUITE_END()
