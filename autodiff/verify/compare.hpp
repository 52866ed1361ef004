// compare: component-wise comparison of a computed result with a reference, as a CheckReport.
//
// The building block of every check: AD vs AD (hessian·v vs hvp, jacobian rows vs gradients),
// AD vs finite differences (used by check.hpp) and AD vs closed forms. A component passes when
// |a − b| <= tol.abs + tol.rel·|b|; b is the reference, so the argument order matters. NaN in
// either operand fails (a check must not pass because both sides are broken in the same way),
// exactly equal values pass (so equal infinities agree), and a shape mismatch fails with a
// note saying both shapes.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <Eigen/Core>

#include <autodiff/verify/report.hpp>
#include <autodiff/verify/tolerances.hpp>

namespace ngvi::ad::verify {

namespace detail {
// Folds one component into the report.
inline void accumulate(CheckReport& r, Eigen::Index i, Eigen::Index j, double a, double b) {
  const Tolerance& tol = r.tol;
  double diff, rel, ratio;
  if (a == b) {
    diff = rel = ratio = 0.0;
  } else if (std::isnan(a) || std::isnan(b)) {
    diff = rel = ratio = std::numeric_limits<double>::infinity();
  } else {
    diff = std::abs(a - b);  // may be inf (inf vs finite, or inf vs -inf)
    rel = b != 0.0 ? diff / std::abs(b) : std::numeric_limits<double>::infinity();
    const double allowed = tol.allowed(b);
    ratio = allowed > 0.0 ? diff / allowed : std::numeric_limits<double>::infinity();
    if (std::isnan(ratio)) ratio = std::numeric_limits<double>::infinity();  // inf / inf
  }
  // Pass/fail is decided by the tolerance itself; the ratio only ranks the components.
  const bool ok = tol.accepts(a, b);
  if (!ok) r.passed = false;
  r.max_abs_err = std::max(r.max_abs_err, diff);
  r.max_rel_err = std::max(r.max_rel_err, rel);
  // Strictly greater keeps the first of equally bad components; the first component is
  // always recorded so that a passing report still names a position.
  if (r.worst_row < 0 || ratio > r.worst_ratio) {
    r.worst_ratio = ratio;
    r.worst_row = i;
    r.worst_col = j;
    r.computed_at_worst = a;
    r.reference_at_worst = b;
  }
}
}  // namespace detail

// Compares two matrices or vectors of doubles component by component. Cost: O(rows·cols).
template <class A, class B>
CheckReport compare(const Eigen::DenseBase<A>& computed, const Eigen::DenseBase<B>& reference,
                    const Tolerance& tol, std::string what) {
  CheckReport r;
  r.tol = tol;
  r.what = std::move(what);
  r.rows = reference.rows();
  r.cols = reference.cols();
  if (computed.rows() != reference.rows() || computed.cols() != reference.cols()) {
    r.passed = false;
    r.worst_ratio = std::numeric_limits<double>::infinity();
    r.note = detail::cat("shape mismatch: computed is ", std::to_string(computed.rows()), "x",
                         std::to_string(computed.cols()), ", reference is ",
                         std::to_string(reference.rows()), "x", std::to_string(reference.cols()));
    return r;
  }
  for (Eigen::Index j = 0; j < reference.cols(); ++j)
    for (Eigen::Index i = 0; i < reference.rows(); ++i)
      detail::accumulate(r, i, j, static_cast<double>(computed(i, j)),
                         static_cast<double>(reference(i, j)));
  return r;
}

// Compares two numbers. Cost: O(1).
inline CheckReport compare(double computed, double reference, const Tolerance& tol,
                           std::string what) {
  CheckReport r;
  r.tol = tol;
  r.what = std::move(what);
  r.rows = r.cols = 1;
  detail::accumulate(r, 0, 0, computed, reference);
  return r;
}

}  // namespace ngvi::ad::verify
