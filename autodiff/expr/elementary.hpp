// The elementary functions: value, derivative and domain of each, written once.
//
// Every function is a small struct with
//   f(x)          the value,
//   df(x, fx)     the derivative, allowed to reuse the value fx,
//   in_domain(x)  false exactly where the C++ standard function reports a domain error,
// all generic in the scalar. Var nodes use f and df on the tape scalar; Dual<T, K> uses them
// on its value. Because df is itself written in generic arithmetic, evaluating it on a Dual
// gives the second derivative, which is what forward-over-reverse needs. Binary functions
// give both partials. Special functions come from Boost.Math with a policy that returns NaN
// or infinity (like the standard library) instead of throwing. The functions are named in
// function_list.hpp; the end of this file generates their overloads on plain numbers
// (ad::exp(2.0)) from that list.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include <autodiff/core/config.hpp>
#include <autodiff/core/scalar_traits.hpp>
#include <autodiff/expr/function_list.hpp>

namespace ngvi::ad {

namespace detail {
using math_policy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::pole_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;

inline bool is_nonpositive_integer(double x) { return x <= 0.0 && std::floor(x) == x; }

inline constexpr double two_over_sqrt_pi = 1.1283791670955125738961589031215452;
inline constexpr double ln2 = 0.6931471805599453094172321214581766;
inline constexpr double ln10 = 2.3025850929940456840179914546843642;
}  // namespace detail

namespace detail {
// ---- double versions of the functions the standard library lacks ----------------------------
// The fn:: structs below call these through a block-scope `using detail::name;`, so that a
// double argument finds them and a Dual argument finds its overload by argument-dependent
// lookup; the public ad::name(double) overloads are generated from the list at the end.

inline double square(double x) { return x * x; }
// 1 / (1 + exp(-x)), without overflow for large |x|.
inline double logistic(double x) {
  if (x >= 0.0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}
// log(1 + exp(x)) (softplus), without overflow or loss of precision for large |x|.
inline double log1p_exp(double x) {
  if (x > 0.0) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}
// The three below take exactly a double, as templates: a non-template function's body would
// instantiate Boost.Math's digamma, trigamma and polygamma (and the long double tables their
// static initialisers compute) in every translation unit that includes the engine, used or not;
// as templates they are compiled only where a program calls them.
template <std::same_as<double> D>
D digamma(D x) {
  if (is_nonpositive_integer(x)) return std::numeric_limits<double>::quiet_NaN();
  return boost::math::digamma(x, math_policy());
}
template <std::same_as<double> D>
D trigamma(D x) {
  if (is_nonpositive_integer(x)) return std::numeric_limits<double>::quiet_NaN();
  return boost::math::trigamma(x, math_policy());
}
// The n-th derivative of digamma.
template <std::same_as<double> D>
D polygamma(int n, D x) {
  if (is_nonpositive_integer(x)) return std::numeric_limits<double>::quiet_NaN();
  if (n == 0) return digamma(x);
  return boost::math::polygamma(n, x, math_policy());
}
}  // namespace detail

namespace fn {

// ---- unary functions ----------------------------------------------------------------------

struct Exp {
  static constexpr const char* name = "exp";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::exp;
    return exp(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return fx;
  }
};

struct Expm1 {
  static constexpr const char* name = "expm1";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::expm1;
    return expm1(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return fx + 1.0;
  }
};

struct Log {
  static constexpr const char* name = "log";
  static constexpr const char* domain = "x >= 0";
  static bool in_domain(double x) { return !(x < 0.0); }
  template <class T>
  static T f(const T& x) {
    using std::log;
    return log(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 1.0 / x;
  }
};

struct Log1p {
  static constexpr const char* name = "log1p";
  static constexpr const char* domain = "x >= -1";
  static bool in_domain(double x) { return !(x < -1.0); }
  template <class T>
  static T f(const T& x) {
    using std::log1p;
    return log1p(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 1.0 / (1.0 + x);
  }
};

struct Log2 {
  static constexpr const char* name = "log2";
  static constexpr const char* domain = "x >= 0";
  static bool in_domain(double x) { return !(x < 0.0); }
  template <class T>
  static T f(const T& x) {
    using std::log2;
    return log2(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 1.0 / (detail::ln2 * x);
  }
};

struct Log10 {
  static constexpr const char* name = "log10";
  static constexpr const char* domain = "x >= 0";
  static bool in_domain(double x) { return !(x < 0.0); }
  template <class T>
  static T f(const T& x) {
    using std::log10;
    return log10(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 1.0 / (detail::ln10 * x);
  }
};

struct Sqrt {
  static constexpr const char* name = "sqrt";
  static constexpr const char* domain = "x >= 0";
  static bool in_domain(double x) { return !(x < 0.0); }
  template <class T>
  static T f(const T& x) {
    using std::sqrt;
    return sqrt(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return 0.5 / fx;
  }
};

struct Cbrt {
  static constexpr const char* name = "cbrt";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::cbrt;
    return cbrt(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return 1.0 / (3.0 * fx * fx);
  }
};

struct Square {
  static constexpr const char* name = "square";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    return x * x;
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 2.0 * x;
  }
};

// The derivative at 0 is taken as 0 (the subgradient of least norm), as in Stan and Adept.
struct Abs {
  static constexpr const char* name = "abs";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::abs;
    return value_of(x) < 0.0 ? T(-x) : x;
  }
  template <class T>
  static T df(const T& x, const T&) {
    const double v = value_of(x);
    return T(v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0));
  }
};

struct Sin {
  static constexpr const char* name = "sin";
  static constexpr const char* domain = "finite x";
  static bool in_domain(double x) { return !std::isinf(x); }
  template <class T>
  static T f(const T& x) {
    using std::sin;
    return sin(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::cos;
    return cos(x);
  }
};

struct Cos {
  static constexpr const char* name = "cos";
  static constexpr const char* domain = "finite x";
  static bool in_domain(double x) { return !std::isinf(x); }
  template <class T>
  static T f(const T& x) {
    using std::cos;
    return cos(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::sin;
    return -sin(x);
  }
};

struct Tan {
  static constexpr const char* name = "tan";
  static constexpr const char* domain = "finite x";
  static bool in_domain(double x) { return !std::isinf(x); }
  template <class T>
  static T f(const T& x) {
    using std::tan;
    return tan(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return 1.0 + fx * fx;
  }
};

struct Asin {
  static constexpr const char* name = "asin";
  static constexpr const char* domain = "-1 <= x <= 1";
  static bool in_domain(double x) { return !(std::abs(x) > 1.0); }
  template <class T>
  static T f(const T& x) {
    using std::asin;
    return asin(x);
  }
  // (1 − x)(1 + x) instead of 1 − x·x: exact to rounding up to |x| = 1, where 1 − x·x loses
  // log10(1/(1 − |x|)) digits.
  template <class T>
  static T df(const T& x, const T&) {
    using std::sqrt;
    return 1.0 / sqrt((1.0 - x) * (1.0 + x));
  }
};

struct Acos {
  static constexpr const char* name = "acos";
  static constexpr const char* domain = "-1 <= x <= 1";
  static bool in_domain(double x) { return !(std::abs(x) > 1.0); }
  template <class T>
  static T f(const T& x) {
    using std::acos;
    return acos(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::sqrt;
    return -1.0 / sqrt((1.0 - x) * (1.0 + x));
  }
};

struct Atan {
  static constexpr const char* name = "atan";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::atan;
    return atan(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 1.0 / (1.0 + x * x);
  }
};

struct Sinh {
  static constexpr const char* name = "sinh";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::sinh;
    return sinh(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::cosh;
    return cosh(x);
  }
};

struct Cosh {
  static constexpr const char* name = "cosh";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::cosh;
    return cosh(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::sinh;
    return sinh(x);
  }
};

struct Tanh {
  static constexpr const char* name = "tanh";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::tanh;
    return tanh(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return 1.0 - fx * fx;
  }
};

struct Asinh {
  static constexpr const char* name = "asinh";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::asinh;
    return asinh(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::sqrt;
    return 1.0 / sqrt(x * x + 1.0);
  }
};

struct Acosh {
  static constexpr const char* name = "acosh";
  static constexpr const char* domain = "x >= 1";
  static bool in_domain(double x) { return !(x < 1.0); }
  template <class T>
  static T f(const T& x) {
    using std::acosh;
    return acosh(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::sqrt;
    return 1.0 / (sqrt(x - 1.0) * sqrt(x + 1.0));
  }
};

struct Atanh {
  static constexpr const char* name = "atanh";
  static constexpr const char* domain = "-1 <= x <= 1";
  static bool in_domain(double x) { return !(std::abs(x) > 1.0); }
  template <class T>
  static T f(const T& x) {
    using std::atanh;
    return atanh(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    return 1.0 / ((1.0 - x) * (1.0 + x));
  }
};

struct Erf {
  static constexpr const char* name = "erf";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::erf;
    return erf(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::exp;
    return detail::two_over_sqrt_pi * exp(-(x * x));
  }
};

struct Erfc {
  static constexpr const char* name = "erfc";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::erfc;
    return erfc(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using std::exp;
    return -detail::two_over_sqrt_pi * exp(-(x * x));
  }
};

struct Lgamma {
  static constexpr const char* name = "lgamma";
  static constexpr const char* domain = "all real x (poles at non-positive integers)";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using std::lgamma;
    return lgamma(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using detail::digamma;
    return digamma(x);
  }
};

struct Tgamma {
  static constexpr const char* name = "tgamma";
  static constexpr const char* domain = "x not a non-positive integer";
  static bool in_domain(double x) { return !detail::is_nonpositive_integer(x); }
  template <class T>
  static T f(const T& x) {
    using std::tgamma;
    return tgamma(x);
  }
  template <class T>
  static T df(const T& x, const T& fx) {
    using detail::digamma;
    return fx * digamma(x);
  }
};

struct Digamma {
  static constexpr const char* name = "digamma";
  static constexpr const char* domain = "x not a non-positive integer";
  static bool in_domain(double x) { return !detail::is_nonpositive_integer(x); }
  template <class T>
  static T f(const T& x) {
    using detail::digamma;
    return digamma(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using detail::trigamma;
    return trigamma(x);
  }
};

struct Trigamma {
  static constexpr const char* name = "trigamma";
  static constexpr const char* domain = "x not a non-positive integer";
  static bool in_domain(double x) { return !detail::is_nonpositive_integer(x); }
  template <class T>
  static T f(const T& x) {
    using detail::trigamma;
    return trigamma(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using detail::polygamma;
    return polygamma(2, x);
  }
};

struct Logistic {
  static constexpr const char* name = "logistic";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using detail::logistic;
    return logistic(x);
  }
  template <class T>
  static T df(const T&, const T& fx) {
    return fx * (1.0 - fx);
  }
};

struct Log1pExp {
  static constexpr const char* name = "log1p_exp";
  static constexpr const char* domain = "all real x";
  static bool in_domain(double) { return true; }
  template <class T>
  static T f(const T& x) {
    using detail::log1p_exp;
    return log1p_exp(x);
  }
  template <class T>
  static T df(const T& x, const T&) {
    using detail::logistic;
    return logistic(x);
  }
};

// ---- binary functions: f(x, y) and the partials d1 (first argument), d2 (second)
// -----------------------------------

struct Pow {
  static constexpr const char* name = "pow";
  static constexpr const char* domain = "x >= 0, or x < 0 with integer y";
  static bool in_domain(double x, double y) {
    return !(x < 0.0 && std::isfinite(y) && std::floor(y) != y);
  }
  template <class T>
  static T f(const T& x, const T& y) {
    using std::pow;
    return pow(x, y);
  }
  // Only (0, 0) is special (0·0^-1 would be NaN): for x != 0, y·x^(y−1) is already 0 at
  // y == 0, and its tangent x^(y−1)(1 + y log x) is the cross derivative 1/x there.
  template <class T>
  static T d1(const T& x, const T& y, const T&) {
    using std::pow;
    if (value_of(y) == 0.0 && value_of(x) == 0.0) return T(0.0);
    return y * pow(x, y - 1.0);
  }
  // At x == 0 the limit of x^y log x is 0 for y > 0.
  template <class T>
  static T d2(const T& x, const T&, const T& fx) {
    using std::log;
    if (value_of(x) == 0.0) return T(0.0);
    return fx * log(x);
  }
};

struct Atan2 {
  static constexpr const char* name = "atan2";
  static constexpr const char* domain = "all real y, x";
  static bool in_domain(double, double) { return true; }
  template <class T>
  static T f(const T& y, const T& x) {
    using std::atan2;
    return atan2(y, x);
  }
  template <class T>
  static T d1(const T& y, const T& x, const T&) {
    return x / (x * x + y * y);
  }
  template <class T>
  static T d2(const T& y, const T& x, const T&) {
    return -y / (x * x + y * y);
  }
};

struct Hypot {
  static constexpr const char* name = "hypot";
  static constexpr const char* domain = "all real x, y";
  static bool in_domain(double, double) { return true; }
  template <class T>
  static T f(const T& x, const T& y) {
    using std::hypot;
    return hypot(x, y);
  }
  template <class T>
  static T d1(const T& x, const T&, const T& fx) {
    return value_of(fx) == 0.0 ? T(0.0) : T(x / fx);
  }
  template <class T>
  static T d2(const T&, const T& y, const T& fx) {
    return value_of(fx) == 0.0 ? T(0.0) : T(y / fx);
  }
};

// fmin/fmax follow the standard's NaN rule (a NaN argument loses); on a tie the first
// argument is the one selected, so exactly one partial is 1. Both select one argument, and
// differ only in their name and their pick_first(x, y); Selection holds the rest once.
template <class Op>
struct Selection {
  static constexpr const char* domain = "all real x, y";
  static bool in_domain(double, double) { return true; }
  template <class T>
  static T f(const T& x, const T& y) {
    return Op::pick_first(value_of(x), value_of(y)) ? x : y;
  }
  template <class T>
  static T d1(const T& x, const T& y, const T&) {
    return T(Op::pick_first(value_of(x), value_of(y)) ? 1.0 : 0.0);
  }
  template <class T>
  static T d2(const T& x, const T& y, const T&) {
    return T(Op::pick_first(value_of(x), value_of(y)) ? 0.0 : 1.0);
  }
};

struct Fmin : Selection<Fmin> {
  static constexpr const char* name = "fmin";
  static bool pick_first(double x, double y) { return std::isnan(y) || (!std::isnan(x) && x <= y); }
};

struct Fmax : Selection<Fmax> {
  static constexpr const char* name = "fmax";
  static bool pick_first(double x, double y) { return std::isnan(y) || (!std::isnan(x) && x >= y); }
};

}  // namespace fn

namespace detail {
inline std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
// Checked mode's error for an argument outside a function's domain.
template <class Op>
[[noreturn]] void throw_domain(double x) {
  throw domain_error(std::string("ngvi::ad::") + Op::name + ": argument x = " + format_number(x) +
                     " is outside the domain (" + Op::domain + ")");
}
template <class Op>
[[noreturn]] void throw_domain(double x, double y) {
  throw domain_error(std::string("ngvi::ad::") + Op::name + ": arguments (" + format_number(x) +
                     ", " + format_number(y) + ") are outside the domain (" + Op::domain + ")");
}
}  // namespace detail
// ---- the functions on plain numbers ----------------------------------------------------------
// ad::exp(2.0), ad::digamma(x), ad::pow(x, 3) on double (and on integers and float, converted
// to double), so that generic code writes ad::name(x) on every scalar; Var expressions and
// Dual<T, K> have their overloads in functions.hpp and dual.hpp. On plain numbers the functions
// behave as <cmath>: a domain error gives NaN, also in checked mode (a finite-difference step
// search may evaluate a model just outside its domain on purpose).
//
// They are templates so that they never compete with <cmath>: where both std::exp(double) and
// ad::exp are visible (`using namespace std;` and `using namespace ngvi::ad;` together), the
// non-template std::exp wins the tie, and both compute the same number. long double is left
// out: the engine computes in double, and silently narrowing would lose digits.
template <class T>
concept PlainNumber = std::is_arithmetic_v<T> && !std::is_same_v<std::remove_cv_t<T>, long double>;

#define NGVI_AD_PLAIN_UNARY(name, Op)         \
  template <PlainNumber T>                    \
  inline double name(T x) {                   \
    return fn::Op::f(static_cast<double>(x)); \
  }
NGVI_AD_UNARY_FUNCTIONS(NGVI_AD_PLAIN_UNARY)
#undef NGVI_AD_PLAIN_UNARY

#define NGVI_AD_PLAIN_BINARY(name, Op)                                \
  template <PlainNumber X, PlainNumber Y>                             \
  inline double name(X x, Y y) {                                      \
    return fn::Op::f(static_cast<double>(x), static_cast<double>(y)); \
  }
NGVI_AD_BINARY_FUNCTIONS(NGVI_AD_PLAIN_BINARY)
#undef NGVI_AD_PLAIN_BINARY

// The n-th derivative of digamma (n >= 0); NaN at the poles.
template <PlainNumber T>
inline double polygamma(int n, T x) {
  return detail::polygamma(n, static_cast<double>(x));
}

template <PlainNumber T>
inline bool isfinite(T x) {
  return std::isfinite(static_cast<double>(x));
}
template <PlainNumber T>
inline bool isnan(T x) {
  return std::isnan(static_cast<double>(x));
}
template <PlainNumber T>
inline bool isinf(T x) {
  return std::isinf(static_cast<double>(x));
}

}  // namespace ngvi::ad
