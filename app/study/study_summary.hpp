// The study report's opening summary, computed from the records: VON against VOGN, paired by
// seed, and how often VON's remedy for an indefinite Hessian fired.
//
// The report (study_folder.cpp) opens with the answer to "VON or VOGN?" built from the numbers.
// Like is compared with like — full VON with full VOGN (GGN), diagonal VON with diagonal VOGN
// (GGN) — on the same seed, so the seed's data, initial weights and draws cancel: per seed the
// difference d_k = (VON's number) − (VOGN's number), and over the n seeds its mean with the 95 %
// Student-t interval mean ± t₀.₉₇₅,ₙ₋₁ · sd/√n (seed_statistics.hpp), the paired t-test's
// interval (Student 1908). The word that goes with it is decided by the interval alone: "VON
// higher" when it lies above 0, "VOGN higher" when below, "no difference the seeds can resolve"
// when it holds 0 (or with one seed, which has no interval); "the same on every seed" when the
// two numbers agree to 1e-9 relative on every seed (where the GGN is the Hessian, or its diagonal
// is, the two methods are one). A seed is left out of a comparison, and the summary says so, when
// either fit is not healthy (fit_health.hpp), and, for a score against HMC, when the seed's HMC
// reference is not converged. The numbers compared: the final test log-likelihood (every
// problem), the median over the parameters of log(sd / sd_HMC) (problems with an HMC reference),
// the final ELBO (problems whose ELBO is exact; a Monte-Carlo ELBO's difference would carry its
// error).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <app/methods/method_info.hpp>
#include <app/study/problem_seeds.hpp>
#include <app/study/seed_statistics.hpp>
#include <app/study/study_records.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {

// The numbers the summary pairs, each a method's final number on one seed.
enum class SummaryStatistic { test_log_likelihood, hmc_sd_log_ratio, elbo };

inline const char* summary_statistic_text(SummaryStatistic s) {
  switch (s) {
    case SummaryStatistic::test_log_likelihood:
      return "test log-likelihood (nats per test example)";
    case SummaryStatistic::hmc_sd_log_ratio:
      return "median log(sd / sd_HMC) of the marginals (0: HMC's widths)";
    case SummaryStatistic::elbo:
      return "final ELBO (exact, nats)";
  }
  return "";
}

// Two numbers that agree to this relative tolerance on a seed are "the same" (the report's text
// says "1e-9").
inline constexpr double summary_same_tolerance = 1e-9;

// One paired comparison over the seeds: a − b on each seed both fits are healthy.
struct PairedDifference {
  std::string problem;  // the problem's key
  SummaryStatistic statistic = SummaryStatistic::test_log_likelihood;
  std::string a, b;                   // method keys: a VON variant, then its VOGN match
  std::vector<std::uint64_t> seeds;   // the seeds compared, in seed order
  std::vector<double> differences;    // a − b on each of them
  std::vector<std::string> left_out;  // "seed 2 (VOGN (GGN) poor)", per seed left out
  SeedInterval interval;              // of the differences (n = 0: nothing compared)
  int a_ahead = 0;                    // seeds with a − b > 0
  bool same = false;                  // within summary_same_tolerance on every seed compared
  int seeds_total = 0;                // seeds of the run

  // "VON higher", "VOGN higher", "no difference the seeds can resolve", "the same on every seed"
  // or "not compared" (no seed left), by the rule at the top of the file.
  std::string verdict() const {
    if (seeds.empty()) return "not compared";
    if (same) return "the same on every seed";
    if (seeds.size() < 2 || !std::isfinite(interval.low))
      return "no difference the seeds can resolve";
    if (interval.low > 0.0) return "VON higher";
    if (interval.high < 0.0) return "VOGN higher";
    return "no difference the seeds can resolve";
  }
};

namespace detail {

inline const MethodRecord* find_method(const ProblemRecord& r, const std::string& key) {
  for (const MethodRecord& m : r.methods)
    if (m.name == key) return &m;
  return nullptr;
}

// The method's number for `s` on its run; NaN when the run does not have it.
inline double summary_number(const MethodRecord& m, SummaryStatistic s) {
  switch (s) {
    case SummaryStatistic::test_log_likelihood:
      return m.test_log_likelihood;
    case SummaryStatistic::hmc_sd_log_ratio:
      return m.hmc_scores ? m.hmc_scores->sd_log_ratio_median
                          : std::numeric_limits<double>::quiet_NaN();
    case SummaryStatistic::elbo:
      return m.elbo;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace detail

// a − b for `s` over the seeds of `ps`, leaving out (and naming) the seeds where either fit is
// not healthy or, for the HMC score, the reference is not converged. Throws std::invalid_argument
// when a method is not in the problem. Cost: O(seeds) and one Student-t quantile.
inline PairedDifference paired_difference(const ProblemSeeds& ps, const std::string& a,
                                          const std::string& b, SummaryStatistic s) {
  PairedDifference d;
  d.problem = ps.base().name;
  d.statistic = s;
  d.a = a;
  d.b = b;
  d.seeds_total = static_cast<int>(ps.runs.size());
  bool same = true;
  for (std::size_t k = 0; k < ps.runs.size(); ++k) {
    const ProblemRecord& r = ps.runs[k];
    const MethodRecord* ma = detail::find_method(r, a);
    const MethodRecord* mb = detail::find_method(r, b);
    if (!ma || !mb)
      throw std::invalid_argument(fmt::format(
          "ngvi::app::study::paired_difference: problem '{}' (seed {}) has no method '{}'", r.name,
          ps.seeds[k], ma ? b : a));
    std::string why;
    for (const MethodRecord* m : {ma, mb})
      if (m->health != "ok")
        why += (why.empty() ? "" : ", ") + method_info(m->name).label + " " + m->health;
    if (why.empty() && s == SummaryStatistic::hmc_sd_log_ratio && !(r.hmc && r.hmc->converged))
      why = r.hmc ? "HMC not converged" : "no HMC reference";
    const double va = detail::summary_number(*ma, s), vb = detail::summary_number(*mb, s);
    if (why.empty() && !(std::isfinite(va) && std::isfinite(vb))) why = "a number not finite";
    if (!why.empty()) {
      d.left_out.push_back(fmt::format("seed {} ({})", ps.seeds[k], why));
      continue;
    }
    d.seeds.push_back(ps.seeds[k]);
    d.differences.push_back(va - vb);
    d.a_ahead += va > vb ? 1 : 0;
    same = same && std::abs(va - vb) <=
                       summary_same_tolerance * std::max({1.0, std::abs(va), std::abs(vb)});
  }
  d.same = same && !d.seeds.empty();
  if (!d.differences.empty()) d.interval = t_interval(d.differences);
  return d;
}

// Every comparison the problem's methods and numbers allow: full VON − full VOGN (GGN) and
// diagonal VON − diagonal VOGN (GGN), where both ran, each on the test log-likelihood, on the
// median log sd-ratio against HMC (where the problem has HMC references) and on the final ELBO
// (where it is exact). Cost: O(seeds) per comparison.
inline std::vector<PairedDifference> von_vogn_comparisons(const ProblemSeeds& ps) {
  const ProblemRecord& p = ps.base();
  std::vector<PairedDifference> out;
  const std::pair<const char*, const char*> pairs[] = {{"von", "vogn_full_ggn"},
                                                       {"von_diagonal", "vogn_ggn"}};
  for (const auto& [a, b] : pairs) {
    if (!detail::find_method(p, a) || !detail::find_method(p, b)) continue;
    out.push_back(paired_difference(ps, a, b, SummaryStatistic::test_log_likelihood));
    if (p.hmc) out.push_back(paired_difference(ps, a, b, SummaryStatistic::hmc_sd_log_ratio));
    if (p.elbo_method == "exact")
      out.push_back(paired_difference(ps, a, b, SummaryStatistic::elbo));
  }
  return out;
}

// The comparison in one sentence, e.g. "full VON − full VOGN (GGN), test log-likelihood (nats
// per test example): mean +0.012, 95% t-interval [−0.031, 0.055] over 5 seeds, VON ahead on 3
// of 5 — no difference the seeds can resolve."
inline std::string describe(const PairedDifference& d) {
  const bool full = d.a == "von";
  std::string s = fmt::format("{} VON − {} VOGN (GGN), {}: ", full ? "full" : "diagonal",
                              full ? "full" : "diagonal", summary_statistic_text(d.statistic));
  const std::size_t n = d.seeds.size();
  if (n == 0) {
    s += fmt::format("not compared, none of the {} seeds qualifies", d.seeds_total);
  } else if (d.same) {
    s += fmt::format("the same on every seed ({} of {}; within 1e-9 relative)", n, d.seeds_total);
  } else {
    s += fmt::format("mean {:+.3g}", d.interval.mean);
    if (n >= 2)
      s += fmt::format(", 95% t-interval [{:.3g}, {:.3g}] over {} seeds", d.interval.low,
                       d.interval.high, n);
    else
      s += fmt::format(" on the one seed compared ({})", d.seeds.front());
    s += fmt::format(", VON ahead on {} of {} — {}", d.a_ahead, n, d.verdict());
  }
  if (!d.left_out.empty()) {
    s += "; left out: ";
    for (std::size_t i = 0; i < d.left_out.size(); ++i) s += (i == 0 ? "" : ", ") + d.left_out[i];
  }
  return s + ".";
}

// Why full (or diagonal) VON and VOGN (GGN) are one method on the problem, from the base run's
// curvature study along the MAP run: the GGN is the Hessian (relative Frobenius error at most
// 1e-10 at every point: a model linear in θ, or a GLM), or, for the diagonal pair, its diagonal is
// the Hessian's (cosine of the diagonals at least 1 − 1e-12 at every point: a ReLU network is
// piecewise linear in each single weight, so ∂²f/∂θⱼ² = 0). Empty when neither holds or the run
// has no curvature study. Cost: O(points of the study).
inline std::string why_the_same(const ProblemRecord& p, bool diagonal) {
  for (const MethodRecord& m : p.methods) {
    if (m.approximations.empty()) continue;
    double error = 0.0, cosine = 1.0;
    for (const ApproximationPoint& q : m.approximations) {
      error = std::max(error, q.relative_error.front());  // the GGN is approximation 0
      cosine = std::min(cosine, q.diagonal_cosine.front());
    }
    if (error <= 1e-10)
      return fmt::format(
          "the GGN is this model's Hessian (relative error at most {:.1e} along the "
          "MAP run)",
          error);
    if (diagonal && cosine >= 1.0 - 1e-12)
      return "the Hessian's diagonal is the GGN's here (the cosine of the two diagonals is 1 to "
             "within 1e-12 along the MAP run: a ReLU network is piecewise linear in each single "
             "weight)";
  }
  return "";
}

// How often a method's remedies for an indefinite Hessian fired, over the seeds.
struct RemedyUse {
  std::string method;                 // key
  std::int64_t fired = 0;             // steps on which some remedy fired, summed over the seeds
  std::int64_t steps = 0;             // steps, summed over the seeds
  std::int64_t seeds_every = 0;       // seeds on which a remedy fired on every step
  std::vector<std::string> remedies;  // the remedies' names that fired
  int seeds = 0;
};

// Throws std::invalid_argument when the method is not in the problem. With several remedies a
// step is counted once per remedy that fired on it. Cost: O(seeds).
inline RemedyUse remedy_use(const ProblemSeeds& ps, const std::string& method) {
  RemedyUse u;
  u.method = method;
  for (std::size_t k = 0; k < ps.runs.size(); ++k) {
    const MethodRecord* m = detail::find_method(ps.runs[k], method);
    if (!m)
      throw std::invalid_argument(
          fmt::format("ngvi::app::study::remedy_use: problem '{}' (seed {}) has no method '{}'",
                      ps.runs[k].name, ps.seeds[k], method));
    std::int64_t fired = 0;
    for (const auto& [name, count] : m->remedies) {
      fired += count;
      if (count > 0 && std::find(u.remedies.begin(), u.remedies.end(), name) == u.remedies.end())
        u.remedies.push_back(name);
    }
    u.fired += fired;
    u.steps += m->steps;
    u.seeds_every += m->steps > 0 && fired >= m->steps ? 1 : 0;
    ++u.seeds;
  }
  return u;
}

// E.g. "VON (full) 10000 of 10000 steps over 5 seeds (100.0%; every step on 5 of 5 seeds)",
// or "VON (full) never, in 600 steps over 3 seeds".
inline std::string describe(const RemedyUse& u) {
  const std::string label = method_info(u.method).label;
  if (u.fired == 0)
    return fmt::format("{} never, in {} steps over {} seeds", label, u.steps, u.seeds);
  return fmt::format("{} {} of {} steps over {} seeds ({:.1f}%; every step on {} of {} seeds)",
                     label, u.fired, u.steps, u.seeds,
                     100.0 * static_cast<double>(u.fired) / static_cast<double>(u.steps),
                     u.seeds_every, u.seeds);
}

}  // namespace ngvi::app::study
