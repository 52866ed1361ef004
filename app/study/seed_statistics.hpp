// Statistics over the study's seeds: the mean of a per-seed statistic with its Student-t
// interval, and the rule that decides a finding from it.
//
// `ngvi study --seeds N` fits every problem × method from N seeds; a finding's statistic (a
// paired difference such as "ELBO of the best natural-gradient method − ELBO of
// Bayes-by-backprop", or a ratio against a threshold) is computed on each seed. Over n ≥ 2 seeds
// the finding is decided by the 95 % t-interval of the mean, mean ± t_{0.975, n−1}·sd/√n:
// `confirmed` if the whole interval lies beyond the threshold by more than the margin on the
// claimed side, `refuted` if it lies beyond it by more than the margin on the other side,
// `inconclusive` otherwise. With one seed the single value decides (the rule of a single run):
// beyond the margin on the claimed side is `confirmed`, within the margin `inconclusive` (only
// when the margin is positive), else `refuted`.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {

// The mean of n values with their sample standard deviation (n − 1 in the denominator) and the
// two-sided t-interval of the mean at `level`. With one value sd and the interval are NaN; with
// a non-finite value everything is NaN.
struct SeedInterval {
  std::size_t n = 0;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double sd = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
};

// Throws std::invalid_argument for no values or a level outside (0, 1). Cost: O(n) and one
// Student-t quantile (Boost.Math).
inline SeedInterval t_interval(const std::vector<double>& values, double level = 0.95) {
  if (values.empty()) throw std::invalid_argument("t_interval: values is empty");
  if (!(level > 0.0 && level < 1.0))
    throw std::invalid_argument(fmt::format("t_interval: level = {} is not in (0, 1)", level));
  SeedInterval s;
  s.n = values.size();
  double sum = 0.0;
  for (const double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2 || !std::isfinite(s.mean)) return s;
  double squares = 0.0;
  for (const double v : values) squares += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(squares / static_cast<double>(s.n - 1));
  const boost::math::students_t t(static_cast<double>(s.n - 1));
  const double half =
      boost::math::quantile(t, 0.5 + 0.5 * level) * s.sd / std::sqrt(static_cast<double>(s.n));
  s.low = s.mean - half;
  s.high = s.mean + half;
  return s;
}

enum class VerdictStatus { confirmed, refuted, inconclusive };

inline const char* to_string(VerdictStatus s) {
  return s == VerdictStatus::confirmed ? "confirmed"
         : s == VerdictStatus::refuted ? "refuted"
                                       : "inconclusive";
}

// A finding's rule, fixed before the run: the claim is statistic > threshold (`above`) or
// statistic < threshold, decided only beyond `margin` (≥ 0) on either side.
struct ClaimRule {
  double threshold = 0.0;
  bool above = true;
  double margin = 0.0;

  // How far `value` lies beyond the threshold on the claimed side (negative: the other side).
  double beyond(double value) const { return above ? value - threshold : threshold - value; }

  // One seed's value supports the claim: beyond the threshold by more than `seed_margin` on the
  // claimed side (a seed may have its own margin, e.g. two standard errors of its Monte-Carlo
  // ELBOs).
  bool holds(double value, double seed_margin) const { return beyond(value) > seed_margin; }

  // The rule of a single run on its one value (see the top of the file). NaN is `refuted`.
  VerdictStatus single(double value, double seed_margin) const {
    if (holds(value, seed_margin)) return VerdictStatus::confirmed;
    if (seed_margin > 0.0 && beyond(value) >= -seed_margin) return VerdictStatus::inconclusive;
    return VerdictStatus::refuted;
  }

  // The rule over n ≥ 2 seeds on the t-interval of their mean (see the top of the file); a NaN
  // interval is `inconclusive`.
  VerdictStatus over_seeds(const SeedInterval& s) const {
    const double near = above ? s.low : s.high;  // the end nearest the other side
    const double far = above ? s.high : s.low;
    if (beyond(near) > margin) return VerdictStatus::confirmed;
    if (beyond(far) < -margin) return VerdictStatus::refuted;
    return VerdictStatus::inconclusive;
  }

  // "above 0" / "below 0.9", with "± margin" when there is one.
  std::string text() const {
    return fmt::format("{} {:.3g}{}", above ? "above" : "below", threshold,
                       margin > 0.0 ? fmt::format(" by more than {:.2g}", margin) : std::string());
  }
};

}  // namespace ngvi::app::study
