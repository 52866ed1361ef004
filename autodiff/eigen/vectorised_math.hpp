// Values and derivatives of elementary functions over arrays of double, vectorised.
//
// Eigen 3.4 evaluates tanh, sin, cos and log1p of double arrays one scalar libm call at a
// time, which would dominate an MLP layer or a long chain. The functions here use Eigen's
// vectorised exp/log and closed forms: tanh(x) = 1 − 2/(exp(2x) + 1) away from 0 and its odd
// Taylor series near 0 (where the closed form cancels); sin and cos by reduction modulo π/2
// in three parts (Cody–Waite) and the classic minimax polynomials on [−π/4, π/4], with libm
// for |x| > 2^20 where a three-part reduction loses accuracy; log1p(e) for e in [0, 1] as
// log(u) − ((u − 1) − e)/u with u = 1 + e, which cancels the rounding of u. The errors stay
// within a few ulp (checked in test/autodiff/eigen/vectorised_math_test.cpp). Other
// functions fall back to the scalar definitions in elementary.hpp.
#pragma once

#include <algorithm>
#include <cmath>

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

// sin(x) and cos(x) together; sp or cp may be null. sp/cp may equal xp.
inline void vec_sin_cos(const double* xp, double* sp, double* cp, Eigen::Index n) {
  constexpr Eigen::Index chunk = 256;
  using Chunk = Eigen::Array<double, Eigen::Dynamic, 1, 0, chunk, 1>;
  // π/2 in three parts: the first two have trailing zero bits, so q·part is exact for |q| < 2^20.
  constexpr double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
                   pio2_3 = 2.02226624879595063154e-21, two_over_pi = 6.36619772367581382433e-01;
  for (Eigen::Index s = 0; s < n; s += chunk) {
    const Eigen::Index len = std::min(chunk, n - s);
    const Chunk x = ConstArrayMap(xp + s, len);
    const Chunk q = (x * two_over_pi).round();
    const Chunk r = ((x - q * pio2_1) - q * pio2_2) - q * pio2_3;
    const Chunk z = r * r;
    const Chunk sr =
        r + r * z * (-1.66666666666666324348e-01 + z * (8.33333333332248946124e-03 +
            z * (-1.98412698298579493134e-04 + z * (2.75573137070700676789e-06 +
            z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))));
    const Chunk cr =
        1.0 - 0.5 * z + z * z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 +
            z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07 +
            z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
    // Quadrant k = q mod 4: sin x = (sr, cr, −sr, −cr)[k], cos x = (cr, −sr, −cr, sr)[k].
    const Chunk k = q - 4.0 * (q * 0.25).floor();
    const Chunk swap_sin = (k == 1.0 || k == 3.0).select(cr, sr);
    const Chunk swap_cos = (k == 1.0 || k == 3.0).select(sr, cr);
    Chunk sv = (k >= 2.0).select(-swap_sin, swap_sin);
    Chunk cv = (k == 1.0 || k == 2.0).select(-swap_cos, swap_cos);
    if ((x.abs() > 1048576.0).any() || !x.isFinite().all()) {
      for (Eigen::Index i = 0; i < len; ++i) {
        if (!(std::abs(x[i]) <= 1048576.0)) {
          sv[i] = std::sin(x[i]);
          cv[i] = std::cos(x[i]);
        }
      }
    }
    if (sp) ArrayMap(sp + s, len) = sv;
    if (cp) ArrayMap(cp + s, len) = cv;
  }
}

// log1p_exp(x) = log(1 + e^x) and its derivative logistic(x); dp may be null.
inline void vec_log1p_exp(const double* xp, double* fp, double* dp, Eigen::Index n) {
  constexpr Eigen::Index chunk = 256;
  using Chunk = Eigen::Array<double, Eigen::Dynamic, 1, 0, chunk, 1>;
  for (Eigen::Index s = 0; s < n; s += chunk) {
    const Eigen::Index len = std::min(chunk, n - s);
    const Chunk x = ConstArrayMap(xp + s, len);
    const Chunk e = (-x.abs()).exp();  // in (0, 1]
    const Chunk u = 1.0 + e;
    const Chunk inv = 1.0 / u;
    if (dp) ArrayMap(dp + s, len) = (x >= 0.0).select(inv, e * inv);
    ArrayMap(fp + s, len) = x.max(0.0) + (u.log() - ((u - 1.0) - e) * inv);
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
    vec_log1p_exp(xp, fp, dp, n);
  } else if constexpr (std::is_same_v<Op, fn::Sin>) {
    vec_sin_cos(xp, fp, dp, n);
  } else if constexpr (std::is_same_v<Op, fn::Cos>) {
    vec_sin_cos(xp, dp, fp, n);
    d = -d;
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
      std::is_same_v<Op, fn::Square> || std::is_same_v<Op, fn::Sqrt> ||
      std::is_same_v<Op, fn::Sin> || std::is_same_v<Op, fn::Cos>;
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
    if constexpr (std::is_same_v<Op, fn::Sin> || std::is_same_v<Op, fn::Cos>) d2 = -f;
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
    vec_log1p_exp(xp, fp, nullptr, n);
  } else if constexpr (std::is_same_v<Op, fn::Sin>) {
    vec_sin_cos(xp, fp, nullptr, n);
  } else if constexpr (std::is_same_v<Op, fn::Cos>) {
    vec_sin_cos(xp, nullptr, fp, n);
  } else if constexpr (std::is_same_v<Op, fn::Square>) {
    f = x * x;
  } else if constexpr (std::is_same_v<Op, fn::Sqrt>) {
    f = x.sqrt();
  } else {
    for (Eigen::Index i = 0; i < n; ++i) f[i] = Op::f(x[i]);
  }
}

}  // namespace ngvi::ad::detail
