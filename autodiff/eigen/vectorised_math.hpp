// Values and derivatives of elementary functions over arrays of double, vectorised.
//
// Eigen 3.4 evaluates tanh, sin and cos of double arrays one scalar libm call at a time,
// which would dominate an MLP layer. The functions here use Eigen's vectorised exp/log and
// closed forms: tanh(x) = 1 − 2/(exp(2x) + 1) away from 0 and its odd Taylor series near 0
// (where the closed form cancels); the relative error stays within a few ulp (checked in
// test/autodiff/eigen/vectorised_math_test.cpp). Other functions fall back to the scalar
// definitions in elementary.hpp.
#pragma once

#include <algorithm>

#include <Eigen/Core>

#include <autodiff/expr/elementary.hpp>

namespace ngvi::ad::detail {

using ArrayMap = Eigen::Map<Eigen::ArrayXd>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;

// Works in chunks that stay in L1 and need no heap memory.
inline void vec_tanh(ConstArrayMap x, ArrayMap out) {
  constexpr Eigen::Index chunk = 256;
  using Chunk = Eigen::Array<double, Eigen::Dynamic, 1, 0, chunk, 1>;
  for (Eigen::Index s = 0; s < x.size(); s += chunk) {
    const Eigen::Index len = std::min(chunk, x.size() - s);
    const auto xs = x.segment(s, len);
    const Chunk x2 = xs * xs;
    // Odd Taylor series of tanh to x^19; for |x| < 0.125 the truncation is below 1e-17.
    const Chunk series =
        xs * (1.0 + x2 * (-1.0 / 3 + x2 * (2.0 / 15 + x2 * (-17.0 / 315 + x2 * (62.0 / 2835 +
            x2 * (-1382.0 / 155925 + x2 * (21844.0 / 6081075 + x2 * (-929569.0 / 638512875 +
            x2 * (6404582.0 / 10854718875.0)))))))));
    const Chunk closed = 1.0 - 2.0 / ((2.0 * xs).exp() + 1.0);
    out.segment(s, len) = (xs.abs() < 0.125).select(series, closed);
  }
}

// f(x) and f'(x) for an elementary function over n doubles. fp may equal xp (in place):
// every branch reads x before it writes f.
template <class Op>
inline void eval_with_derivative(const double* xp, double* fp, double* dp, Eigen::Index n) {
  ConstArrayMap x(xp, n);
  ArrayMap f(fp, n), d(dp, n);
  if constexpr (std::is_same_v<Op, fn::Tanh>) {
    vec_tanh(x, f);
    d = 1.0 - f * f;
  } else if constexpr (std::is_same_v<Op, fn::Exp>) {
    f = x.exp();
    d = f;
  } else if constexpr (std::is_same_v<Op, fn::Log>) {
    d = 1.0 / x;
    f = x.log();
  } else if constexpr (std::is_same_v<Op, fn::Logistic>) {
    f = 1.0 / (1.0 + (-x).exp());
    d = f * (1.0 - f);
  } else if constexpr (std::is_same_v<Op, fn::Log1pExp>) {
    // log(1 + e^x) = max(x, 0) + log1p(e^{-|x|}); derivative logistic(x). In chunks, so
    // e^{-|x|} needs no heap memory.
    constexpr Eigen::Index chunk = 256;
    using Chunk = Eigen::Array<double, Eigen::Dynamic, 1, 0, chunk, 1>;
    for (Eigen::Index s = 0; s < n; s += chunk) {
      const Eigen::Index len = std::min(chunk, n - s);
      const Chunk xs = x.segment(s, len);
      const Chunk e = (-xs.abs()).exp();
      d.segment(s, len) = (xs >= 0.0).select(1.0 / (1.0 + e), e / (1.0 + e));
      f.segment(s, len) = xs.max(0.0) + e.log1p();
    }
  } else if constexpr (std::is_same_v<Op, fn::Square>) {
    d = 2.0 * x;
    f = x * x;
  } else if constexpr (std::is_same_v<Op, fn::Sqrt>) {
    f = x.sqrt();
    d = 0.5 / f;
  } else {
    for (Eigen::Index i = 0; i < n; ++i) {
      const double xi = xp[i];
      fp[i] = Op::f(xi);
      dp[i] = Op::df(xi, fp[i]);
    }
  }
}

// f, f' and f'' over n doubles, for the dual (forward-over-reverse) elementwise nodes. The
// vectorised branches use closed forms of f'' in terms of f and f'; other functions go
// through one Dual<double, 1> evaluation of f' per coefficient.
template <class Op>
inline void eval_with_two_derivatives(const double* xp, double* fp, double* d1p, double* d2p,
                                      Eigen::Index n) {
  constexpr bool vectorised =
      std::is_same_v<Op, fn::Tanh> || std::is_same_v<Op, fn::Exp> || std::is_same_v<Op, fn::Log> ||
      std::is_same_v<Op, fn::Logistic> || std::is_same_v<Op, fn::Log1pExp> ||
      std::is_same_v<Op, fn::Square> || std::is_same_v<Op, fn::Sqrt>;
  if constexpr (vectorised) {
    ConstArrayMap x(xp, n);
    ArrayMap f(fp, n), d1(d1p, n), d2(d2p, n);
    if constexpr (std::is_same_v<Op, fn::Log>) d2 = -1.0 / (x * x);
    if constexpr (std::is_same_v<Op, fn::Square>) d2.setConstant(2.0);
    eval_with_derivative<Op>(xp, fp, d1p, n);
    if constexpr (std::is_same_v<Op, fn::Tanh>) d2 = -2.0 * f * d1;
    if constexpr (std::is_same_v<Op, fn::Exp>) d2 = f;
    if constexpr (std::is_same_v<Op, fn::Logistic>) d2 = d1 * (1.0 - 2.0 * f);
    if constexpr (std::is_same_v<Op, fn::Log1pExp>) d2 = d1 * (1.0 - d1);
    if constexpr (std::is_same_v<Op, fn::Sqrt>) d2 = -d1 * d1 / f;
  } else {
    (void)xp;
    (void)fp;
    (void)d1p;
    (void)d2p;
    (void)n;
  }
}

// f(x) only.
template <class Op>
inline void eval_value(const double* xp, double* fp, Eigen::Index n) {
  ConstArrayMap x(xp, n);
  ArrayMap f(fp, n);
  if constexpr (std::is_same_v<Op, fn::Tanh>) {
    vec_tanh(x, f);
  } else if constexpr (std::is_same_v<Op, fn::Exp>) {
    f = x.exp();
  } else if constexpr (std::is_same_v<Op, fn::Log>) {
    f = x.log();
  } else if constexpr (std::is_same_v<Op, fn::Logistic>) {
    f = 1.0 / (1.0 + (-x).exp());
  } else if constexpr (std::is_same_v<Op, fn::Log1pExp>) {
    f = x.max(0.0) + (-x.abs()).exp().log1p();
  } else if constexpr (std::is_same_v<Op, fn::Square>) {
    f = x * x;
  } else if constexpr (std::is_same_v<Op, fn::Sqrt>) {
    f = x.sqrt();
  } else {
    for (Eigen::Index i = 0; i < n; ++i) f[i] = Op::f(x[i]);
  }
}

}  // namespace ngvi::ad::detail
