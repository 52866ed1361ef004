// CheckReport: the outcome of one numerical comparison, naming its worst component.
//
// Every verification route (AD vs finite differences, AD vs AD, AD vs closed forms) ends in a
// CheckReport, so a failing check always says the same things: which component was worst,
// what was computed and expected there, by how much they differ and what was allowed. The
// worst component is the one that uses the largest share of its allowance
// (|a − b| / (abs + rel·|b|)), not the one with the largest raw difference, because that is
// the component that decides pass or fail. Reports of several comparisons are merged with
// combine(); the merged report keeps the parts for its message.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <autodiff/verify/tolerances.hpp>

namespace ngvi::ad::verify {

struct CheckReport {
  bool passed = true;
  double max_abs_err = 0.0;  // max over components of |computed − reference|
  double max_rel_err = 0.0;  // max over components of |computed − reference| / |reference|
  // The worst component: its position and both values there (-1 when nothing was compared).
  Eigen::Index worst_row = -1, worst_col = -1;
  double computed_at_worst = 0.0, reference_at_worst = 0.0;
  // |a − b| / (abs + rel·|b|) at the worst component: above 1 means it failed. Infinite for a
  // NaN or for a difference under an exact tolerance.
  double worst_ratio = 0.0;
  std::string what;  // what was compared, e.g. "gradient vs finite differences"
  Tolerance tol{};
  Eigen::Index rows = 0, cols = 0;  // shape compared (cols == 1 for a vector)
  std::string note;                 // e.g. a shape mismatch
  std::vector<CheckReport> parts;   // the comparisons a combined report was made from

  // One line per comparison: verdict, what, the worst component (index, both values, the
  // difference and the allowance), the maximum errors and the tolerance.
  std::string to_string() const;
};

namespace detail {
inline std::string fmt_g(double x, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

// Concatenation by appending. (Not "literal" + std::string: GCC 12 at -O3 warns about that
// pattern with a false -Wrestrict positive, which would break -Werror builds.)
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

inline std::string single_report_line(const CheckReport& r) {
  std::string s = r.passed ? "[passed] " : "[FAILED] ";
  s.append(r.what.empty() ? std::string("comparison") : r.what);
  if (!r.note.empty()) s.append(cat(" (", r.note, ")"));
  if (r.worst_row < 0) {
    s.append(": nothing compared");
    return s;
  }
  s.append(": worst component ");
  if (r.cols == 1)
    s.append(cat("[", std::to_string(r.worst_row), "]"));
  else
    s.append(cat("(", std::to_string(r.worst_row), ", ", std::to_string(r.worst_col), ")"));
  const double diff = std::abs(r.computed_at_worst - r.reference_at_worst);
  s.append(cat(" computed ", fmt_g(r.computed_at_worst, 17), " vs reference ",
               fmt_g(r.reference_at_worst, 17), ", |diff| ", fmt_g(diff, 3), " (allowed ",
               fmt_g(r.tol.allowed(r.reference_at_worst), 3), ")"));
  s.append(cat("; max abs err ", fmt_g(r.max_abs_err, 3), ", max rel err ", fmt_g(r.max_rel_err, 3),
               " over ", std::to_string(r.rows * r.cols), " components; tolerance rel ",
               fmt_g(r.tol.rel, 3), ", abs ", fmt_g(r.tol.abs, 3)));
  return s;
}
}  // namespace detail

// Cost: O(number of parts) string formatting.
inline std::string CheckReport::to_string() const {
  if (parts.empty()) return detail::single_report_line(*this);
  std::string s = passed ? "[passed] " : "[FAILED] ";
  s.append(what).append(":");
  for (const CheckReport& p : parts) s.append("\n  ").append(p.to_string());
  return s;
}

// Merges two reports: passed if both passed; the worst component, maximum errors and values
// are those of the part with the larger worst_ratio; the parts are kept for to_string().
// Cost: copies the two reports.
inline CheckReport combine(const CheckReport& a, const CheckReport& b) {
  const bool b_worse = b.worst_ratio > a.worst_ratio || (!b.passed && a.passed);
  const CheckReport& w = b_worse ? b : a;
  CheckReport r;
  r.passed = a.passed && b.passed;
  r.max_abs_err = std::max(a.max_abs_err, b.max_abs_err);
  r.max_rel_err = std::max(a.max_rel_err, b.max_rel_err);
  r.worst_row = w.worst_row;
  r.worst_col = w.worst_col;
  r.computed_at_worst = w.computed_at_worst;
  r.reference_at_worst = w.reference_at_worst;
  r.worst_ratio = w.worst_ratio;
  r.tol = w.tol;
  r.rows = w.rows;
  r.cols = w.cols;
  r.what = detail::cat(a.what, " & ", b.what);
  // Flatten, so combine(combine(a, b), c) lists three parts.
  auto append = [&r](const CheckReport& p) {
    if (p.parts.empty())
      r.parts.push_back(p);
    else
      r.parts.insert(r.parts.end(), p.parts.begin(), p.parts.end());
  };
  append(a);
  append(b);
  return r;
}

// What a test macro (verify/boost_test.hpp, verify/gtest.hpp) prints when report `r` failed:
// the check as written at the call site, then the report, whose lines name the worst
// component of each comparison with both values, the difference and the allowance.
// Cost: O(number of parts) string formatting.
inline std::string failure_message(const CheckReport& r, const char* call) {
  return detail::cat(std::string(call), " failed:\n", r.to_string());
}

}  // namespace ngvi::ad::verify
