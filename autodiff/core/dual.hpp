// Dual<T, K>: a forward-mode number carrying K directional derivatives.
//
// Used as the scalar of Tape<Dual<double, K>>: recording a function with inputs whose
// tangents are K directions v_k and sweeping the tape in dual arithmetic yields, in the
// adjoints' tangents, the K Hessian-vector products H v_k (forward-over-reverse). The
// functions here evaluate each elementary function and its derivative once on the value and
// scale the K tangents, so the cost of a Dual operation is about (K + 1) double operations.
#pragma once

#include <array>
#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <type_traits>

#include <autodiff/core/config.hpp>
#include <autodiff/core/scalar_traits.hpp>
#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/function_list.hpp>

namespace ngvi::ad {

template <class T, int K>
struct Dual {
  static_assert(K >= 1,
                "ngvi::ad::Dual<T, K>: K, the number of tangent directions, must be at least 1");
  T v;
  T d[K];

  constexpr Dual() : v(0.0), d{} {}
  // A constant: all tangents zero. Implicit so that generic code can mix in literals.
  constexpr Dual(double c) : v(c), d{} {}  // NOLINT(google-explicit-constructor)
  constexpr Dual(double c, int k, double tangent) : v(c), d{} { d[k] = tangent; }

  Dual& operator+=(const Dual& o) {
    v += o.v;
    for (int k = 0; k < K; ++k) d[k] += o.d[k];
    return *this;
  }
  Dual& operator-=(const Dual& o) {
    v -= o.v;
    for (int k = 0; k < K; ++k) d[k] -= o.d[k];
    return *this;
  }
  Dual& operator*=(const Dual& o) {
    for (int k = 0; k < K; ++k) d[k] = d[k] * o.v + v * o.d[k];
    v *= o.v;
    return *this;
  }
  Dual& operator/=(const Dual& o) {
    const T inv = 1.0 / o.v;
    v *= inv;
    for (int k = 0; k < K; ++k) d[k] = (d[k] - v * o.d[k]) * inv;
    return *this;
  }
  Dual& operator+=(double c) {
    v += c;
    return *this;
  }
  Dual& operator-=(double c) {
    v -= c;
    return *this;
  }
  Dual& operator*=(double c) {
    v *= c;
    for (int k = 0; k < K; ++k) d[k] *= c;
    return *this;
  }
  Dual& operator/=(double c) { return *this *= (1.0 / c); }
};

template <class T, int K>
inline double value_of(const Dual<T, K>& x) {
  return value_of(x.v);
}
template <class T, int K>
inline bool is_zero(const Dual<T, K>& x) {
  if (!is_zero(x.v)) return false;
  for (int k = 0; k < K; ++k)
    if (!is_zero(x.d[k])) return false;
  return true;
}

template <class T>
struct is_dual : std::false_type {};
template <class T, int K>
struct is_dual<Dual<T, K>> : std::true_type {};

// Dual<double, K>: the scalars whose matrix nodes split into double GEMMs.
template <class T>
struct is_double_dual : std::false_type {};
template <int K>
struct is_double_dual<Dual<double, K>> : std::true_type {};

namespace detail {

// The K tangents of a Dual<double, K> as one GCC vector (K a power of two; unaligned loads and
// stores). GCC 12 builds the product of two duals from K scalar multiplies and shuffles; on
// vectors it is half the time on data in L1. The operations are the scalar loop's, lane by
// lane, so the bits are the same.
template <class T, int K>
inline constexpr bool tangent_vector = std::is_same_v<T, double>&& K >= 2 && (K & (K - 1)) == 0;
template <int K>
struct TangentVector {
  typedef double type __attribute__((vector_size(8 * K), aligned(8)));
};

// a·b with the bits of a * b, for the loops of fused nodes over arrays of duals in memory (and
// plain a * b for other scalars). The operators stay scalar: in expression code a vector load
// of a dual just written lane by lane stalls on store forwarding, which made the scalar-loop
// Hessians half again as slow. Cost: K + 1 multiplies and K adds.
template <class T, int K>
inline Dual<T, K> lane_product(const Dual<T, K>& a, const Dual<T, K>& b) {
  if constexpr (tangent_vector<T, K>) {
    // memcpy in and out (no function takes or returns the vector: its ABI depends on the ISA).
    typename TangentVector<K>::type ad, bd;
    std::memcpy(&ad, a.d, sizeof ad);
    std::memcpy(&bd, b.d, sizeof bd);
    const typename TangentVector<K>::type rd = ad * b.v + a.v * bd;
    Dual<T, K> r;
    r.v = a.v * b.v;
    std::memcpy(r.d, &rd, sizeof rd);
    return r;
  } else {
    return a * b;
  }
}
template <class S>
inline S lane_product(const S& a, const S& b) {
  return a * b;
}

}  // namespace detail

// ---- arithmetic ----------------------------------------------------------------------------

template <class T, int K>
inline Dual<T, K> operator-(const Dual<T, K>& a) {
  Dual<T, K> r;
  r.v = -a.v;
  for (int k = 0; k < K; ++k) r.d[k] = -a.d[k];
  return r;
}
template <class T, int K>
inline Dual<T, K> operator+(const Dual<T, K>& a) {
  return a;
}

template <class T, int K>
inline Dual<T, K> operator+(Dual<T, K> a, const Dual<T, K>& b) {
  return a += b;
}
template <class T, int K>
inline Dual<T, K> operator-(Dual<T, K> a, const Dual<T, K>& b) {
  return a -= b;
}
template <class T, int K>
inline Dual<T, K> operator*(const Dual<T, K>& a, const Dual<T, K>& b) {
  Dual<T, K> r;
  r.v = a.v * b.v;
  for (int k = 0; k < K; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
template <class T, int K>
inline Dual<T, K> operator/(Dual<T, K> a, const Dual<T, K>& b) {
  return a /= b;
}

template <class T, int K>
inline Dual<T, K> operator+(Dual<T, K> a, double c) {
  return a += c;
}
template <class T, int K>
inline Dual<T, K> operator+(double c, Dual<T, K> a) {
  return a += c;
}
template <class T, int K>
inline Dual<T, K> operator-(Dual<T, K> a, double c) {
  return a -= c;
}
template <class T, int K>
inline Dual<T, K> operator-(double c, const Dual<T, K>& a) {
  Dual<T, K> r = -a;
  r.v += c;
  return r;
}
template <class T, int K>
inline Dual<T, K> operator*(Dual<T, K> a, double c) {
  return a *= c;
}
template <class T, int K>
inline Dual<T, K> operator*(double c, Dual<T, K> a) {
  return a *= c;
}
template <class T, int K>
inline Dual<T, K> operator/(Dual<T, K> a, double c) {
  return a /= c;
}
template <class T, int K>
inline Dual<T, K> operator/(double c, const Dual<T, K>& a) {
  Dual<T, K> r;
  r.v = c / a.v;
  const T s = -r.v / a.v;
  for (int k = 0; k < K; ++k) r.d[k] = s * a.d[k];
  return r;
}

// Comparisons look at values only, so branches in user code follow the primal computation.
#define NGVI_AD_DUAL_COMPARE(op)                                      \
  template <class T, int K>                                           \
  inline bool operator op(const Dual<T, K>& a, const Dual<T, K>& b) { \
    return value_of(a) op value_of(b);                                \
  }                                                                   \
  template <class T, int K>                                           \
  inline bool operator op(const Dual<T, K>& a, double b) {            \
    return value_of(a) op b;                                          \
  }                                                                   \
  template <class T, int K>                                           \
  inline bool operator op(double a, const Dual<T, K>& b) {            \
    return a op value_of(b);                                          \
  }
NGVI_AD_DUAL_COMPARE(==)
NGVI_AD_DUAL_COMPARE(!=)
NGVI_AD_DUAL_COMPARE(<)
NGVI_AD_DUAL_COMPARE(<=)
NGVI_AD_DUAL_COMPARE(>)
NGVI_AD_DUAL_COMPARE(>=)
#undef NGVI_AD_DUAL_COMPARE

template <class T, int K>
std::ostream& operator<<(std::ostream& os, const Dual<T, K>& x) {
  os << x.v << " [";
  for (int k = 0; k < K; ++k) os << (k ? ", " : "") << x.d[k];
  return os << "]";
}

// ---- elementary functions ------------------------------------------------------------------

namespace detail {
template <class Op, class T, int K>
inline Dual<T, K> dual_unary(const Dual<T, K>& x) {
  if constexpr (checked_mode) {
    if (!Op::in_domain(value_of(x))) throw_domain<Op>(value_of(x));
  }
  Dual<T, K> r;
  r.v = Op::f(x.v);
  const T g = Op::df(x.v, r.v);
  for (int k = 0; k < K; ++k) r.d[k] = g * x.d[k];
  return r;
}

template <class T, int K>
inline bool has_tangent(const Dual<T, K>& x) {
  for (int k = 0; k < K; ++k)
    if (!is_zero(x.d[k])) return true;
  return false;
}

template <class Op, class T, int K>
inline Dual<T, K> dual_binary(const Dual<T, K>& x, const Dual<T, K>& y) {
  if constexpr (checked_mode) {
    if (!Op::in_domain(value_of(x), value_of(y))) throw_domain<Op>(value_of(x), value_of(y));
  }
  Dual<T, K> r;
  r.v = Op::f(x.v, y.v);
  // An operand without tangents (a constant) contributes nothing, so its partial is not
  // evaluated: it may be undefined where the function is fine in the other argument
  // (∂/∂y x^y = x^y log x is NaN at x < 0), and NaN·0 would poison the tangents — e.g. the
  // second derivative of pow(x, 2.0) at x < 0, whose Pow::d1 calls pow on two Duals.
  const bool dx = has_tangent(x), dy = has_tangent(y);
  const T g1 = dx ? Op::d1(x.v, y.v, r.v) : T(0.0);
  const T g2 = dy ? Op::d2(x.v, y.v, r.v) : T(0.0);
  for (int k = 0; k < K; ++k) r.d[k] = g1 * x.d[k] + g2 * y.d[k];
  return r;
}
template <class Op, class T, int K>
inline Dual<T, K> dual_binary(const Dual<T, K>& x, double y) {
  if constexpr (checked_mode) {
    if (!Op::in_domain(value_of(x), y)) throw_domain<Op>(value_of(x), y);
  }
  Dual<T, K> r;
  r.v = Op::f(x.v, T(y));
  const T g1 = Op::d1(x.v, T(y), r.v);
  for (int k = 0; k < K; ++k) r.d[k] = g1 * x.d[k];
  return r;
}
template <class Op, class T, int K>
inline Dual<T, K> dual_binary(double x, const Dual<T, K>& y) {
  if constexpr (checked_mode) {
    if (!Op::in_domain(x, value_of(y))) throw_domain<Op>(x, value_of(y));
  }
  Dual<T, K> r;
  r.v = Op::f(T(x), y.v);
  const T g2 = Op::d2(T(x), y.v, r.v);
  for (int k = 0; k < K; ++k) r.d[k] = g2 * y.d[k];
  return r;
}
}  // namespace detail

#define NGVI_AD_DUAL_UNARY(name, Op)            \
  template <class T, int K>                     \
  inline Dual<T, K> name(const Dual<T, K>& x) { \
    return detail::dual_unary<fn::Op>(x);       \
  }
NGVI_AD_UNARY_FUNCTIONS(NGVI_AD_DUAL_UNARY)
#undef NGVI_AD_DUAL_UNARY

// The n-th polygamma of a dual number; its derivative is polygamma(n + 1).
template <class T, int K>
inline Dual<T, K> polygamma(int n, const Dual<T, K>& x) {
  Dual<T, K> r;
  using detail::polygamma;
  r.v = polygamma(n, x.v);
  const T g = polygamma(n + 1, x.v);
  for (int k = 0; k < K; ++k) r.d[k] = g * x.d[k];
  return r;
}

#define NGVI_AD_DUAL_BINARY(name, Op)                                \
  template <class T, int K>                                          \
  inline Dual<T, K> name(const Dual<T, K>& x, const Dual<T, K>& y) { \
    return detail::dual_binary<fn::Op>(x, y);                        \
  }                                                                  \
  template <class T, int K>                                          \
  inline Dual<T, K> name(const Dual<T, K>& x, double y) {            \
    return detail::dual_binary<fn::Op>(x, y);                        \
  }                                                                  \
  template <class T, int K>                                          \
  inline Dual<T, K> name(double x, const Dual<T, K>& y) {            \
    return detail::dual_binary<fn::Op>(x, y);                        \
  }
NGVI_AD_BINARY_FUNCTIONS(NGVI_AD_DUAL_BINARY)
#undef NGVI_AD_DUAL_BINARY

template <class T, int K>
inline bool isfinite(const Dual<T, K>& x) {
  return std::isfinite(value_of(x));
}
template <class T, int K>
inline bool isnan(const Dual<T, K>& x) {
  return std::isnan(value_of(x));
}
template <class T, int K>
inline bool isinf(const Dual<T, K>& x) {
  return std::isinf(value_of(x));
}

}  // namespace ngvi::ad
