// Tolerances for numerical verification: the one place they are named.
//
// Every check in ngvi (the verify/ helpers, and every test that uses them) compares a computed
// number a with a reference b and accepts it when |a − b| <= abs + rel·|b|. The relative part
// carries the comparison for ordinary values; the absolute part only matters where the
// reference is zero or tiny (cancellation: a partial that is mathematically 0, a Hessian entry
// that sums terms of both signs), and it assumes quantities of order one — scale the function,
// or build a Tolerance of your own, when that does not hold. Tests never write an inline 1e-7:
// they name one of the constants below, so loosening a tolerance is a visible, reviewed change.
#pragma once

#include <cmath>

namespace ngvi::ad::verify {

// A (relative, absolute) pair: b accepts a when |a − b| <= abs + rel·|b|.
struct Tolerance {
  double rel = 0.0;
  double abs = 0.0;

  // The allowance for a reference value b.
  constexpr double allowed(double reference) const { return abs + rel * std::abs(reference); }
  // Whether `computed` agrees with `reference`. NaN never agrees with anything; equal values
  // (including equal infinities) always do; an infinity agrees with nothing else (its
  // allowance would be infinite too).
  bool accepts(double computed, double reference) const {
    if (computed == reference) return true;
    if (!std::isfinite(computed) || !std::isfinite(reference)) return false;
    return std::abs(computed - reference) <= allowed(reference);
  }
  // This tolerance widened (or narrowed) by a factor, for a documented special case.
  constexpr Tolerance scaled(double factor) const { return Tolerance{rel * factor, abs * factor}; }
};

namespace tolerances {

// AD gradient vs Boost.Math's central finite differences of order 6 (or 8).
// With a well-chosen step the order-6 stencil is accurate to about 5·eps·|f|/h ≈ 4e-13·|f|
// relative to the derivative's natural scale (Boost's own error model), and truncation is
// negligible. 1e-8 leaves four to five digits of margin for points where the step must be
// shrunk to stay inside the domain (near log(0), acosh(1), poles of Γ), where roundoff grows
// as the step shrinks; a wrong partial is wrong at the O(1) relative level and is still
// caught by seven orders of magnitude.
inline constexpr Tolerance gradient_vs_fd{1e-8, 1e-10};

// AD Hessian (or Hessian-vector product) vs finite differences of the AD gradient. The
// gradients differentiated are exact to rounding, so the FD error is of the same kind as
// above; second derivatives vary faster than first ones near singularities, so one more
// digit of margin.
inline constexpr Tolerance hessian_vs_fd{1e-7, 1e-9};

// Two AD routes to the same number (hessian·v vs hvp, jacobian rows vs gradients, Var values
// vs double values, hessian<8> vs hessian<1>). They perform the same arithmetic in a different
// order, so they differ only by accumulated rounding: a few hundred ulps (2.2e-16 each) for
// the sums of tens of terms the tests use.
inline constexpr Tolerance ad_vs_ad{1e-12, 1e-13};

// ngvi vs an independent AD implementation (Boost.Math's forward-mode autodiff, fvar) for
// first and second derivatives of elementary functions. Both are "exact", but they use
// different, mathematically equivalent formulas (Boost's tanh is (e²ˣ−1)/(e²ˣ+1), its tgamma
// for x < 0 goes through the reflection formula, its derivatives come from Taylor-coefficient
// recurrences), each of which can lose a few digits where the formula is ill-conditioned, so
// the tolerance is looser than ad_vs_ad but far tighter than any FD comparison.
inline constexpr Tolerance independent_ad{1e-10, 1e-14};

// AD vs a derivative written out by hand (a closed form evaluated in double). The closed form
// and the AD each round a handful of times per term; long chains (the 1e5-variable test)
// accumulate rounding linearly in the chain length, so this is looser than ad_vs_ad.
inline constexpr Tolerance closed_form{1e-11, 1e-14};

// A vectorised kernel (eigen/vectorised_math.hpp) vs the C library's scalar function: both
// are accurate to about an ulp, the kernels' closed forms add a few more (tanh through exp).
// The absolute part covers derivatives formed as 1 − f² where f ≈ 1: an ulp of f there is
// an absolute, not a relative, error of the derivative.
inline constexpr Tolerance vectorised_kernel{1e-14, 1e-15};

// AD in double vs a reference computed in extended precision (long double, or 50 digits with
// Boost.Multiprecision) for a well-conditioned quantity — softmax weights and their Jacobian,
// say. A correct double computation is off by a few rounding errors of order one terms; 4e-15
// is 18 ulp. This is the tolerance that sees a formula losing digits to cancellation (the
// n-ary log_sum_exp's weights formed as exp(x_i − total) at x ≈ 1000 were off by 3e-14),
// which every looser tolerance above would pass.
inline constexpr Tolerance extended_precision{4e-15, 1e-17};

// Bitwise equality: results that must not depend on the thread or the run.
inline constexpr Tolerance exact{0.0, 0.0};

}  // namespace tolerances
}  // namespace ngvi::ad::verify
