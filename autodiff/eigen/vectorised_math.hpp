// Values and derivatives of elementary functions over arrays of double, vectorised.
//
// Eigen 3.4 evaluates tanh, sin, cos and log1p of double arrays one scalar libm call at a
// time, which would dominate an MLP layer or a long chain. The functions here use Eigen's
// vectorised exp/log and closed forms: tanh(x) = 1 − 2/(exp(2x) + 1) away from 0 and its odd
// Taylor series near 0 (where the closed form cancels); sin and cos by reduction modulo π/2
// in three parts (Cody–Waite) and the classic minimax polynomials on [−π/4, π/4], with libm
// for |x| > 2^20 where a three-part reduction loses accuracy; log1p(e) for e in [0, 1] as
// log(u) − ((u − 1) − e)/u with u = 1 + e, which cancels the rounding of u. The errors stay
// within a few ulp (checked in test/autodiff/eigen/vectorised_math_test.cpp). Only double
// arrays have kernels here; eval_with_derivative and eval_value run the other functions
// coefficient by coefficient through their scalar definitions in elementary.hpp, and the dual
// elementwise nodes of the functions without a kernel go through Dual arithmetic (that branch
// is in eigen/elementwise.hpp, not here).
//
// The kernels give the same bits wherever their arrays sit. Eigen splits a vectorised loop
// into a scalar prologue, a packet body and a scalar tail by the address of the destination,
// and the scalar and packet versions of exp, log or a multiply-add need not round alike; so
// every kernel copies its input, chunk by chunk, into an aligned array (Chunk), computes there
// — the split then depends on the chunk length alone — and copies the results out. The copies
// stay in L1 and cost little next to the exp or log they protect.
#pragma once

#include <algorithm>
#include <cmath>

#include <Eigen/Core>

#include <autodiff/expr/elementary.hpp>

namespace ngvi::ad::detail {

using ArrayMap = Eigen::Map<Eigen::ArrayXd>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;

// The unit of work: 256 doubles, in L1, on the stack, aligned by Eigen for its packets.
inline constexpr Eigen::Index math_chunk = 256;
using Chunk = Eigen::Array<double, Eigen::Dynamic, 1, 0, math_chunk, 1>;

// The kernels take the chunk type as a template parameter C (always Chunk), so that their Eigen
// expressions depend on it and are instantiated only where a kernel is called: with Chunk
// spelled out, every translation unit including the engine instantiated them while parsing
// (1.1 s of clang's 14 s front end on a file that includes inference/von.hpp and nothing else).
template <class C>
C tanh_chunk(const C& x) {
  const C x2 = x * x;
  // Odd Taylor series of tanh to x^19; for |x| < 0.125 the truncation is below 1e-17.
  const C series =
      x * (1.0 + x2 * (-1.0 / 3 +
                       x2 * (2.0 / 15 +
                             x2 * (-17.0 / 315 +
                                   x2 * (62.0 / 2835 +
                                         x2 * (-1382.0 / 155925 +
                                               x2 * (21844.0 / 6081075 +
                                                     x2 * (-929569.0 / 638512875 +
                                                           x2 * (6404582.0 / 10854718875.0)))))))));
  const C closed = 1.0 - 2.0 / ((2.0 * x).exp() + 1.0);
  return (x.abs() < 0.125).select(series, closed);
}

// sin(x) and cos(x) together.
template <class C>
void sin_cos_chunk(const C& x, C& sv, C& cv) {
  // π/2 in three parts: the first two have trailing zero bits, so q·part is exact for |q| < 2^20.
  constexpr double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
                   pio2_3 = 2.02226624879595063154e-21, two_over_pi = 6.36619772367581382433e-01;
  const C q = (x * two_over_pi).round();
  const C r = ((x - q * pio2_1) - q * pio2_2) - q * pio2_3;
  const C z = r * r;
  const C sr =
      r + r * z *
              (-1.66666666666666324348e-01 +
               z * (8.33333333332248946124e-03 +
                    z * (-1.98412698298579493134e-04 +
                         z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 +
                                                                z * 1.58969099521155010221e-10)))));
  const C cr =
      1.0 - 0.5 * z +
      z * z *
          (4.16666666666666019037e-02 +
           z * (-1.38888888888741095749e-03 +
                z * (2.48015872894767294178e-05 +
                     z * (-2.75573143513906633035e-07 +
                          z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  // Quadrant k = q mod 4: sin x = (sr, cr, −sr, −cr)[k], cos x = (cr, −sr, −cr, sr)[k].
  const C k = q - 4.0 * (q * 0.25).floor();
  const C swap_sin = (k == 1.0 || k == 3.0).select(cr, sr);
  const C swap_cos = (k == 1.0 || k == 3.0).select(sr, cr);
  sv = (k >= 2.0).select(-swap_sin, swap_sin);
  cv = (k == 1.0 || k == 2.0).select(-swap_cos, swap_cos);
  if ((x.abs() > 1048576.0).any() || !x.isFinite().all()) {
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (!(std::abs(x[i]) <= 1048576.0)) {
        sv[i] = std::sin(x[i]);
        cv[i] = std::cos(x[i]);
      }
    }
  }
}

// f = f(x), and d1 = f'(x), d2 = f''(x) when D1, D2 (D2 implies D1) on one aligned chunk, one
// overload per function with a kernel, chosen by its fn:: struct as a tag. The second
// derivatives are closed forms in f and f'. A function without an overload here has no kernel
// (has_vectorised_kernel below is false for it) and goes coefficient by coefficient.
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Tanh, const C& x, C& f, C& d1, C& d2) {
  f = tanh_chunk(x);
  if constexpr (D1) d1 = 1.0 - f * f;
  if constexpr (D2) d2 = -2.0 * f * d1;
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Exp, const C& x, C& f, C& d1, C& d2) {
  f = x.exp();
  if constexpr (D1) d1 = f;
  if constexpr (D2) d2 = f;
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Log, const C& x, C& f, C& d1, C& d2) {
  f = x.log();
  if constexpr (D1) d1 = 1.0 / x;
  if constexpr (D2) d2 = -1.0 / (x * x);
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Logistic, const C& x, C& f, C& d1, C& d2) {
  f = 1.0 / (1.0 + (-x).exp());
  if constexpr (D1) d1 = f * (1.0 - f);
  if constexpr (D2) d2 = d1 * (1.0 - 2.0 * f);
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Log1pExp, const C& x, C& f, C& d1, C& d2) {
  // log(1 + e^x) = max(x, 0) + log1p(e^−|x|), log1p(e) = log(u) − ((u − 1) − e)/u with
  // u = 1 + e; the derivative is logistic(x).
  const C e = (-x.abs()).exp();  // in (0, 1]
  const C u = 1.0 + e;
  const C inv = 1.0 / u;
  f = x.max(0.0) + (u.log() - ((u - 1.0) - e) * inv);
  if constexpr (D1) d1 = (x >= 0.0).select(inv, e * inv);
  if constexpr (D2) d2 = d1 * (1.0 - d1);
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Sin, const C& x, C& f, C& d1, C& d2) {
  C c;
  sin_cos_chunk(x, f, c);
  if constexpr (D1) d1 = c;
  if constexpr (D2) d2 = -f;
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Cos, const C& x, C& f, C& d1, C& d2) {
  C s;
  sin_cos_chunk(x, s, f);
  if constexpr (D1) d1 = -s;
  if constexpr (D2) d2 = -f;
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Square, const C& x, C& f, C& d1, C& d2) {
  f = x * x;
  if constexpr (D1) d1 = 2.0 * x;
  if constexpr (D2) d2.setConstant(x.size(), 2.0);
}
template <bool D1, bool D2, class C>
void chunk_kernel(fn::Sqrt, const C& x, C& f, C& d1, C& d2) {
  f = x.sqrt();
  if constexpr (D1) d1 = 0.5 / f;
  if constexpr (D2) d2 = -d1 * d1 / f;
}

// Whether Op has a vectorised kernel (value and first two derivatives) above.
template <class Op>
inline constexpr bool has_vectorised_kernel = requires(const Chunk& x, Chunk& c) {
  chunk_kernel<true, true>(Op{}, x, c, c, c);
};

// Runs chunk_kernel over n coefficients: copy in, compute on aligned chunks, copy out. fp may
// equal xp (each chunk is read before it is written).
template <class Op, bool D1, bool D2>
void run_chunks(const double* xp, double* fp, double* d1p, double* d2p, Eigen::Index n) {
  static_assert(D1 || !D2, "run_chunks: a second derivative needs the first");
  for (Eigen::Index s = 0; s < n; s += math_chunk) {
    const Eigen::Index len = std::min(math_chunk, n - s);
    const Chunk x = ConstArrayMap(xp + s, len);
    Chunk f(len), d1, d2;
    chunk_kernel<D1, D2>(Op{}, x, f, d1, d2);
    ArrayMap(fp + s, len) = f;
    if constexpr (D1) ArrayMap(d1p + s, len) = d1;
    if constexpr (D2) ArrayMap(d2p + s, len) = d2;
  }
}

// f(x) and f'(x) for an elementary function over n doubles. fp may equal xp (in place).
template <class Op>
inline void eval_with_derivative(const double* xp, double* fp, double* dp, Eigen::Index n) {
  if constexpr (has_vectorised_kernel<Op>) {
    run_chunks<Op, true, false>(xp, fp, dp, nullptr, n);
  } else {
    for (Eigen::Index i = 0; i < n; ++i) {
      const double xi = xp[i];
      fp[i] = Op::f(xi);
      dp[i] = Op::df(xi, fp[i]);
    }
  }
}

// f, f' and f'' over n doubles, for the dual (forward-over-reverse) elementwise nodes; only
// for the functions with a vectorised kernel (eigen/elementwise.hpp sends the others through
// Dual arithmetic).
template <class Op>
inline void eval_with_two_derivatives(const double* xp, double* fp, double* d1p, double* d2p,
                                      Eigen::Index n) {
  static_assert(has_vectorised_kernel<Op>,
                "ngvi::ad::detail::eval_with_two_derivatives: only for the vectorised functions");
  run_chunks<Op, true, true>(xp, fp, d1p, d2p, n);
}

// f(x) only. fp may equal xp.
template <class Op>
inline void eval_value(const double* xp, double* fp, Eigen::Index n) {
  if constexpr (has_vectorised_kernel<Op>) {
    run_chunks<Op, false, false>(xp, fp, nullptr, nullptr, n);
  } else {
    for (Eigen::Index i = 0; i < n; ++i) fp[i] = Op::f(xp[i]);
  }
}

}  // namespace ngvi::ad::detail
