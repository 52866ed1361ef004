// The study's verdicts (study_verdicts.hpp), computed from the records.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <app/methods/method_info.hpp>
#include <app/study/gaussian_kl.hpp>
#include <app/study/hmc_scores.hpp>
#include <app/study/study_verdicts.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {
namespace {

constexpr const char* martens = "Martens 2020";
constexpr const char* kunstner = "Kunstner, Balles & Hennig 2019";
constexpr const char* khan = "Khan et al. 2018";
constexpr const char* shen = "Shen et al. 2024";
constexpr const char* zhang = "Zhang, Sun, Duvenaud & Grosse 2018";
constexpr const char* mean_field_citation =
    "Bishop 2006 (§10.1.2); Blei, Kucukelbir & McAuliffe 2017";
constexpr const char* foong = "Foong, Li, Hernández-Lobato & Turner 2019";
constexpr const char* khan_rue = "Khan et al. 2018; Khan & Rue 2023";
constexpr const char* nguyen = "Nguyen, Li, Bui & Turner 2018";
constexpr const char* kfac_claim =
    "noisy K-FAC's posterior is closer to the full-covariance VI optimum than noisy Adam's (Zhang, "
    "Sun, Duvenaud & Grosse 2018)";
constexpr const char* kfac_hmc_claim =
    "noisy K-FAC's marginals are closer to those of the HMC posterior than noisy Adam's (Zhang, "
    "Sun, Duvenaud & Grosse 2018)";

const MethodRecord* find_method(const ProblemRecord& p, const std::string& key) {
  for (const MethodRecord& m : p.methods)
    if (m.name == key) return &m;
  return nullptr;
}

// The means of `value(points[i])` over the first and over the last quarter of `points` (⌈n/4⌉
// points each; they overlap when n < 4). A trajectory is judged on these rather than on its two
// endpoints, so that one noisy point (an MC Fisher's draws, a minibatch's curvature) cannot decide.
template <class Point, class F>
std::pair<double, double> quarter_means(const std::vector<Point>& points, F&& value) {
  const std::size_t n = points.size(), k = (n + 3) / 4;
  double first = 0.0, last = 0.0;
  for (std::size_t i = 0; i < k; ++i) {
    first += value(points[i]);
    last += value(points[n - k + i]);
  }
  return {first / static_cast<double>(k), last / static_cast<double>(k)};
}

// "; not a healthy fit: <method> is poor (<reason>)" for each of `methods` whose fit is not
// healthy (fit_health.hpp), so that no verdict rests on one silently; empty if all are.
std::string health_note(std::initializer_list<const MethodRecord*> methods) {
  std::string note;
  for (const MethodRecord* m : methods)
    if (m && m->health != "ok")
      note += fmt::format("; NOTE: {} is a {} fit ({})", method_info(m->name).label, m->health,
                          m->health_reason);
  return note;
}

// One seed's verdict on the claim, decided on its one value by `rule` with the seed's own margin.
StudyVerdict seed_verdict(const ProblemRecord& p, std::string claim, ClaimKind kind,
                          std::string statistic_name, ClaimRule rule, double value,
                          double seed_margin, std::string evidence, std::string note,
                          const char* citation) {
  StudyVerdict v;
  v.problem = p.name;
  v.claim = std::move(claim);
  v.kind = kind;
  v.evidence = std::move(evidence);
  v.citation = citation;
  v.statistic_name = std::move(statistic_name);
  v.rule = rule;
  v.per_seed = {value};
  v.per_seed_margin = {seed_margin};
  v.statistic = value;
  const VerdictStatus status = rule.single(value, seed_margin);
  v.confirmed = status == VerdictStatus::confirmed;
  v.inconclusive = status == VerdictStatus::inconclusive;
  v.seeds = 1;
  v.seeds_holding = v.confirmed ? 1 : 0;
  v.health_note = std::move(note);
  return v;
}

void approximation_verdicts(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  const MethodRecord* map = find_method(p, "map_laplace");
  if (!map || map->approximations.size() < 2) return;
  const ApproximationPoint& first = map->approximations.front();
  const ApproximationPoint& last = map->approximations.back();
  const auto& names = approximation_names();
  const char* labels[] = {"GGN", "empirical Fisher", "MC Fisher", "K-FAC"};
  for (std::size_t a = 0; a < names.size(); ++a) {
    double worst = 0.0;
    for (const ApproximationPoint& q : map->approximations)
      worst = std::max(worst, q.relative_error[a]);
    if (first.relative_error[a] < exact_curvature_tolerance) {  // exact for this model: say so
      out.push_back(
          seed_verdict(p, fmt::format("the {} equals the Hessian throughout training", labels[a]),
                       ClaimKind::check, "largest ‖A − H‖_F/‖H‖_F along the MAP run",
                       {exact_curvature_tolerance, false, 0.0}, worst, 0.0,
                       fmt::format("largest ‖A − H‖_F/‖H‖_F over {} points of the MAP run: {:.2g}",
                                   map->approximations.size(), worst),
                       health_note({map}), martens));
      continue;
    }
    const auto [early, late] = quarter_means(
        map->approximations, [a](const ApproximationPoint& q) { return q.relative_error[a]; });
    out.push_back(seed_verdict(
        p, fmt::format("the {} approaches the Hessian as training goes on", labels[a]),
        ClaimKind::finding,
        "ln(mean ‖A − H‖_F/‖H‖_F over the last quarter of the MAP run ÷ over its first quarter)",
        {std::log(approach_factor), false, 0.0}, std::log(late / early), 0.0,
        fmt::format("mean ‖A − H‖_F/‖H‖_F over the first and last quarters of the {} points of "
                    "the MAP run (the claim needs a drop of at least {:.0f}%): {:.3g} and {:.3g}, "
                    "ratio {:.3g}; H has {} negative eigenvalues at the start and {} at the end",
                    map->approximations.size(), 100.0 * (1.0 - approach_factor), early, late,
                    late / early, first.hessian_negative_eigenvalues,
                    last.hessian_negative_eigenvalues),
        health_note({map}), martens));
  }
  // Where the GGN is the Hessian (first.relative_error[0] = 0) the comparison cannot fail.
  if (first.relative_error[0] < exact_curvature_tolerance) return;
  out.push_back(seed_verdict(
      p,
      "the empirical Fisher is a worse approximation of the Hessian than the GGN at the end of "
      "training",
      ClaimKind::finding,
      "relative Frobenius error at the end of the MAP run, empirical Fisher − GGN", {},
      last.relative_error[1] - last.relative_error[0], 0.0,
      fmt::format("relative Frobenius error at iteration {}: empirical Fisher {:.3g}, GGN {:.3g}",
                  last.iteration, last.relative_error[1], last.relative_error[0]),
      health_note({map}), kunstner));
}

void exact_posterior_verdicts(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  if (!p.reference || p.reference->mean_field_sd.size() == 0) return;
  const std::pair<const char*, bool> cases[] = {
      {"von", false}, {"vogn_full_ggn", false}, {"von_diagonal", true}, {"vogn_ggn", true}};
  for (const auto& [key, mean_field] : cases) {
    const MethodRecord* m = find_method(p, key);
    if (!m) continue;
    const ReferenceError e = reference_error(*m, *p.reference, mean_field);
    out.push_back(seed_verdict(
        p,
        fmt::format("{} reaches the {}", method_info(key).label,
                    mean_field ? "mean-field optimum (exact means, sd 1/√Λⱼⱼ)" : "exact posterior"),
        ClaimKind::check, "largest relative error of the mean and of the standard deviations",
        {exact_posterior_tolerance, false, 0.0}, std::max(e.mean, e.sd), 0.0,
        fmt::format("after {} iterations: largest relative error of the mean {:.2g}, of the "
                    "standard deviations {:.2g} (tolerance {:.0e})",
                    m->steps, e.mean, e.sd, exact_posterior_tolerance),
        health_note({m}), khan));
  }
}

void ivon_verdict(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  const MethodRecord* m = find_method(p, "ivon");
  if (!m || m->curvature.empty()) return;
  constexpr double h0 = 1.0;         // IvonOptions::hess_init, the package default the study keeps
  constexpr double beta2 = 0.99999;  // IvonOptions::beta2, likewise
  const CurvatureCheck& c = m->curvature.back();
  const double travelled = (c.estimate_mean_diagonal - h0) / (c.hessian_mean_diagonal - h0);
  if (const MethodRecord* fast = find_method(p, "ivon_short_memory");
      fast && !fast->curvature.empty()) {
    const double a = c.diagonal_relative_error, b = fast->curvature.back().diagonal_relative_error;
    out.push_back(seed_verdict(
        p, "IVON with β₂ = 0.999 estimates the Hessian better than with the default β₂ = 0.99999",
        ClaimKind::finding, "relative error of diag h at the end, β₂ = 0.99999 − β₂ = 0.999", {},
        a - b, 0.0,
        fmt::format("relative error of the diagonal of h against the exact Hessian at the end: "
                    "β₂ = 0.999 {:.3g}, β₂ = 0.99999 {:.3g}",
                    b, a),
        health_note({m, fast}), shen));
  }
  // A moving average with weight β₂ covers about 1 − β₂^T of the way to its input in T steps:
  // below one half, "stays near h₀" holds by the run's length, not by what IVON estimates.
  const double reach = 1.0 - std::pow(beta2, static_cast<double>(c.iteration));
  out.push_back(seed_verdict(
      p, "IVON's Hessian estimate stays near its initial value h₀ = 1 (default β₂ = 0.99999)",
      reach < 0.5 ? ClaimKind::check : ClaimKind::finding,
      "|fraction of the way from h₀ to the exact mean diagonal that h covered|", {0.5, false, 0.0},
      std::abs(travelled), 0.0,
      fmt::format("at iteration {}: mean of h {:.3g}, mean diagonal of the exact Hessian of the "
                  "mean loss {:.3g}; h covered {:.1f}% of the way from h₀, where the moving "
                  "average alone reaches 1 − β₂^T = {:.1f}% in T = {} steps",
                  c.iteration, c.estimate_mean_diagonal, c.hessian_mean_diagonal, 100.0 * travelled,
                  100.0 * reach, c.iteration),
      health_note({m}), shen));
}

void tracking_verdict(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  // Diagonal against diagonal: VOGN's empirical Fisher is a diagonal estimate.
  const MethodRecord* von = find_method(p, "von_diagonal");
  const MethodRecord* ef = find_method(p, "vogn_empirical_fisher");
  if (!von || !ef || von->curvature.empty() || ef->curvature.empty()) return;
  const auto late_error = [](const MethodRecord& m) {
    return quarter_means(m.curvature,
                         [](const CurvatureCheck& c) { return c.diagonal_relative_error; })
        .second;
  };
  const double a = late_error(*von), b = late_error(*ef);
  const ClaimRule rule{0.0, true, tracking_margin};
  out.push_back(seed_verdict(
      p,
      fmt::format(
          "{}'s precision tracks the exact Hessian more closely than VOGN's empirical Fisher",
          method_info(von->name).label),
      ClaimKind::finding,
      fmt::format("mean relative error of the diagonal over the last quarter of the run, VOGN "
                  "(emp. Fisher) − {}",
                  method_info(von->name).label),
      rule, b - a, rule.margin,
      fmt::format("relative error of the diagonal against the exact Hessian at the method's own "
                  "mean, averaged over the last quarter of the run's {} and {} checks: {} {:.3g}, "
                  "VOGN (emp. Fisher) {:.3g}",
                  von->curvature.size(), ef->curvature.size(), method_info(von->name).label, a, b),
      health_note({von, ef}), khan));
}

// The mean of a run's ELBO over the last quarter of its history and that mean's standard error
// from the points' spread (0 where the history's ELBOs are exact: then the points differ only
// by the iterates' own fluctuation, which the spread over seeds carries). NaN without a finite
// ELBO in the last quarter.
struct LastQuarterElbo {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double standard_error = 0.0;
};

LastQuarterElbo last_quarter_elbo(const MethodRecord& m, bool exact) {
  LastQuarterElbo out;
  if (m.history.empty()) return out;
  const std::size_t n = m.history.size(), k = (n + 3) / 4;
  double sum = 0.0;
  for (std::size_t i = n - k; i < n; ++i) {
    if (!std::isfinite(m.history[i].elbo)) return out;
    sum += m.history[i].elbo;
  }
  const double kd = static_cast<double>(k);
  out.mean = sum / kd;
  if (exact || k < 2) return out;
  double squares = 0.0;  // two passes: ELBOs of −100 with a spread of 1 would cancel in Σe² − kē²
  for (std::size_t i = n - k; i < n; ++i)
    squares += (m.history[i].elbo - out.mean) * (m.history[i].elbo - out.mean);
  out.standard_error = std::sqrt(squares / (kd - 1.0) / kd);
  return out;
}

// Judged on each run's mean ELBO over the last quarter of its iterations, not on the final
// iterate's: a stochastic method's iterate fluctuates around its fixed point (VON with one draw
// per step ends up to KL 0.2 from the VI optimum of the 2-D logistic problem), and one draw of
// that fluctuation decided the verdict before.
void elbo_verdict(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  const bool exact = p.elbo_method == "exact";
  const MethodRecord* bbb = find_method(p, "bayes_by_backprop");
  if (!bbb) return;
  const LastQuarterElbo b = last_quarter_elbo(*bbb, exact);
  if (!std::isfinite(b.mean)) return;
  const MethodRecord* best = nullptr;
  LastQuarterElbo a;
  for (const char* key :
       {"von", "von_diagonal", "vogn_full_ggn", "vogn_ggn", "vogn_empirical_fisher",
        "vogn_mc_fisher", "slang_rank_1", "slang_rank_8", "slang_rank_32"}) {
    const MethodRecord* m = find_method(p, key);
    if (!m) continue;
    const LastQuarterElbo e = last_quarter_elbo(*m, exact);
    if (std::isfinite(e.mean) && (!best || e.mean > a.mean)) {
      best = m;
      a = e;
    }
  }
  if (!best) return;
  const double difference = a.mean - b.mean;
  const double se = std::hypot(a.standard_error, b.standard_error);
  const double margin = elbo_margin_standard_errors * se;
  out.push_back(seed_verdict(
      p,
      "natural-gradient VI reaches a higher ELBO than Bayes-by-backprop in the same number of "
      "iterations",
      ClaimKind::finding,
      "mean ELBO over the last quarter of the run, best natural-gradient method − "
      "Bayes-by-backprop (nats)",
      {0.0, true, 0.0}, difference, margin,
      fmt::format("ELBO ({}) averaged over the last {} of the {} history points of {} "
                  "iterations: best natural-gradient method {} {:.5g}, Bayes-by-backprop {:.5g}; "
                  "difference {:.3g}{}",
                  exact ? p.elbo_how : "each point's Monte-Carlo estimate",
                  (bbb->history.size() + 3) / 4, bbb->history.size(), bbb->steps,
                  method_info(best->name).label, a.mean, b.mean, difference,
                  se > 0.0 ? fmt::format(" ± {:.2g} (standard error from the points' spread; the "
                                         "margin is {} of them)",
                                         se, elbo_margin_standard_errors)
                           : std::string()),
      health_note({best, bbb}), zhang));
}

// The Monte-Carlo error of VON and diagonal VOGN at the fixed point against S
// (sample_size_study.hpp).
void sample_size_verdicts(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  for (const SampleSizeRun& run : p.sample_size) {
    const bool full = run.method == "von";
    std::string errors;
    for (std::size_t k = 0; k < run.samples.size(); ++k)
      errors += fmt::format("{}S = {}: {:.3g}{}", k == 0 ? "" : ", ", run.samples[k], run.error[k],
                            run.status[k] == "finished" ? "" : " (" + run.status[k] + ")");
    const ClaimRule rule{sample_size_slope_threshold, false, sample_size_slope_margin};
    out.push_back(seed_verdict(
        p,
        fmt::format("{}'s Monte-Carlo error at its fixed point falls as 1/√S in the samples per "
                    "step S (against the {} VI optimum)",
                    full ? "VON (full)" : "VOGN (GGN, diagonal)",
                    full ? "full-covariance" : "mean-field"),
        ClaimKind::finding,
        "least-squares slope of log e(S) on log S, S = 1, 4, 16, 64, e = √(mean KL(q_t ‖ q*)) "
        "over the last half of the iterations (−0.5 for 1/√S)",
        rule, run.slope, rule.margin,
        fmt::format("e(S) over iterations {}–{} against the {} optimum ({}): {}; slope of log e "
                    "on log S {:.3f} (1/√S: −0.5)",
                    run.from_iteration, p.iterations, full ? "full-covariance" : "mean-field",
                    p.vi_optimum ? p.vi_optimum->how : std::string("?"), errors, run.slope),
        std::string(), khan_rue));
  }
}

// Noisy K-FAC against noisy Adam by the shape term of KL(q ‖ q*) from the full-covariance VI
// optimum, covariance_kl_from_optimum (the linear models; the same finding against HMC is in
// hmc_verdicts).
void kfac_verdict(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  const MethodRecord* adam = find_method(p, "noisy_adam");
  const MethodRecord* kfac = find_method(p, "noisy_kfac");
  if (!p.vi_optimum || !adam || !kfac || !adam->kl_from_vi_optimum || !kfac->kl_from_vi_optimum)
    return;
  const double a = covariance_kl_from_optimum(*adam, *p.vi_optimum);
  const double k = covariance_kl_from_optimum(*kfac, *p.vi_optimum);
  std::string contrast;
  for (const char* key : {"von", "vogn_ggn", "bayes_by_backprop"})
    if (const MethodRecord* m = find_method(p, key); m && m->kl_from_vi_optimum)
      contrast += fmt::format("{}{} {:.3g}", contrast.empty() ? "" : ", ", method_info(key).label,
                              covariance_kl_from_optimum(*m, *p.vi_optimum));
  out.push_back(seed_verdict(
      p, kfac_claim, ClaimKind::finding,
      "log(KL(N(μ*, Σ_q) ‖ q*) of noisy Adam ÷ that of noisy K-FAC): the covariances' distance "
      "from the full-covariance VI optimum q* = N(μ*, Σ*), the means aligned",
      {0.0, true, kfac_distance_log_ratio_margin}, std::log(a / k), kfac_distance_log_ratio_margin,
      fmt::format("after {} iterations, against the full-covariance VI optimum ({}): "
                  "KL(N(μ*, Σ_q) ‖ q*) noisy Adam {:.4g}, noisy K-FAC {:.4g}, log ratio {:.3f} "
                  "(for contrast: {}); the whole KL(q ‖ q*), means included: noisy Adam {:.4g}, "
                  "noisy K-FAC {:.4g}",
                  kfac->steps, p.vi_optimum->how, a, k, std::log(a / k),
                  contrast.empty() ? "none" : contrast, *adam->kl_from_vi_optimum,
                  *kfac->kl_from_vi_optimum),
      health_note({adam, kfac}), zhang));
}

// The mean of `score` over the methods of `keys` that have HMC scores, with "label value" for the
// evidence; NaN with none.
template <class F>
double mean_score(const ProblemRecord& p, std::initializer_list<const char*> keys, F&& score,
                  std::string& listed, std::vector<const MethodRecord*>& used) {
  double sum = 0.0;
  int n = 0;
  for (const char* key : keys) {
    const MethodRecord* m = find_method(p, key);
    if (!m || !m->hmc_scores) continue;
    const double v = score(*m->hmc_scores);
    sum += v;
    ++n;
    used.push_back(m);
    listed += fmt::format("{}{} {:.3g}", listed.empty() ? "" : ", ", method_info(m->name).label, v);
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

std::string health_note_of(const std::vector<const MethodRecord*>& ms) {
  std::string note;
  for (const MethodRecord* m : ms) note += health_note({m});
  return note;
}

// The findings against the HMC reference (study_verdicts.hpp), with the reference's diagnostics
// in the evidence and, when it is not converged for the quantity the claim is about (the
// parameters, or the function values at the evaluation points), the seed marked so that it is
// left out.
void hmc_verdicts(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  if (!p.hmc) return;
  const HmcReference& h = *p.hmc;
  const std::string diagnostics = fmt::format(
      "HMC reference: max R-hat {:.4g} over the parameters and {:.4g} over the function values "
      "at the evaluation points, min bulk-ESS {:.0f} and {:.0f}, min tail-ESS {:.0f}, {} "
      "divergences, step size {:.3g}",
      h.max_rhat, h.max_rhat_points, h.min_ess_bulk, h.min_ess_bulk_points, h.min_ess_tail,
      h.divergences, h.step_size);
  // A claim about the parameters' marginals needs the parameters' R-hat; one about the
  // predictive at the evaluation points needs only the function values' (hmc_reference.hpp).
  const std::string unconverged =
      h.converged ? std::string()
                  : fmt::format("its HMC reference is not converged (max R-hat {:.4g} > {})",
                                h.max_rhat, hmc_rhat_threshold);
  const std::string unconverged_points =
      h.converged_points
          ? std::string()
          : fmt::format(
                "its HMC reference is not converged at the evaluation points (max R-hat of the "
                "function values {:.4g} > {})",
                h.max_rhat_points, hmc_rhat_threshold);
  const ClaimRule below{0.0, false, hmc_log_ratio_margin};
  {
    std::string listed;
    std::vector<const MethodRecord*> used;
    const double value = mean_score(
        p, {"von_diagonal", "vogn_ggn"}, [](const HmcScores& s) { return s.sd_log_ratio_median; },
        listed, used);
    std::string contrast;
    std::vector<const MethodRecord*> full;
    mean_score(
        p, {"von", "vogn_full_ggn"}, [](const HmcScores& s) { return s.sd_log_ratio_median; },
        contrast, full);
    if (contrast.empty()) contrast = "none fitted";
    if (!used.empty()) {
      StudyVerdict v = seed_verdict(
          p,
          "mean-field methods (diagonal VON, diagonal VOGN) underestimate the marginal variances "
          "of the HMC posterior (Bishop 2006; Blei, Kucukelbir & McAuliffe 2017)",
          ClaimKind::finding,
          "median over the parameters of log(sd / sd_HMC), mean of diagonal VON and diagonal "
          "VOGN (GGN)",
          below, value, below.margin,
          fmt::format("median log sd-ratio against HMC: {} (full covariance, for contrast: {}); {}",
                      listed, contrast, diagnostics),
          health_note_of(used), mean_field_citation);
      v.unconverged_reference = unconverged;
      out.push_back(std::move(v));
    }
  }
  const MethodRecord* adam = find_method(p, "noisy_adam");
  const MethodRecord* kfac = find_method(p, "noisy_kfac");
  if (p.name == "two_moons" && adam && kfac && adam->marginal_sd.size() == h.sd.size() &&
      kfac->marginal_sd.size() == h.sd.size()) {
    const double a = mean_abs_log_ratio(adam->marginal_sd, h.sd);
    const double k = mean_abs_log_ratio(kfac->marginal_sd, h.sd);
    StudyVerdict v = seed_verdict(
        p, kfac_hmc_claim, ClaimKind::finding,
        "log(mean over the parameters of |log(sd / sd_HMC)| of noisy Adam ÷ that of noisy K-FAC)",
        {0.0, true, kfac_distance_log_ratio_margin}, std::log(a / k),
        kfac_distance_log_ratio_margin,
        fmt::format("mean over the parameters of |log(sd / sd_HMC)|: noisy Adam {:.3g}, noisy "
                    "K-FAC {:.3g}, log ratio {:.3f} (marginal standard deviations only: this "
                    "statistic cannot see the correlations that K-FAC's Kronecker factors model "
                    "and noisy Adam's diagonal does not); {}",
                    a, k, std::log(a / k), diagnostics),
        health_note({adam, kfac}), zhang);
    v.unconverged_reference = unconverged;
    out.push_back(std::move(v));
  }
  if (p.name == "regression_1d_gap") {
    std::string listed;
    std::vector<const MethodRecord*> used;
    const double value = mean_score(
        p, {"von_diagonal", "vogn_ggn", "bayes_by_backprop"},
        [](const HmcScores& s) { return s.point_sd_log_ratio; }, listed, used);
    if (!used.empty()) {
      StudyVerdict v = seed_verdict(
          p,
          "mean-field Gaussian VI underestimates the in-between uncertainty in the gap against "
          "HMC (Foong, Li, Hernández-Lobato & Turner 2019)",
          ClaimKind::finding,
          "mean over the gap's points of log(predictive sd of f / HMC's), mean of diagonal VON, "
          "diagonal VOGN (GGN) and Bayes-by-backprop",
          below, value, below.margin,
          fmt::format("mean log-ratio of the predictive sd of f in the gap against HMC: {}; {}",
                      listed, diagnostics),
          health_note_of(used), foong);
      v.unconverged_reference = unconverged_points;
      out.push_back(std::move(v));
    }
  }
}

}  // namespace

ReferenceError reference_error(const MethodRecord& m, const ReferencePosterior& ref,
                               bool mean_field) {
  const Eigen::VectorXd& sd =
      mean_field && ref.mean_field_sd.size() > 0 ? ref.mean_field_sd : ref.sd;
  ReferenceError e;
  e.mean = (m.mean - ref.mean).cwiseAbs().maxCoeff() / ref.mean.cwiseAbs().maxCoeff();
  e.sd = (m.marginal_sd.array() / sd.array() - 1.0).abs().maxCoeff();
  return e;
}

double covariance_kl_from_optimum(const MethodRecord& m, const GaussianOptimum& optimum) {
  return gaussian_kl(optimum.mean, m.covariance, optimum.mean, optimum.covariance);
}

// "VON needs a remedy for an indefinite Hessian on a non-convex problem": the share of the loop's
// steps that VON with remedy = fail completes before the precision update loses positive
// definiteness, against the study's own run (clip_eigenvalues); the evidence lists what each
// remedy did to the posterior against the HMC reference.
void remedy_verdict(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  const RemedyRun* clip = nullptr;
  const RemedyRun* fail = nullptr;
  for (const RemedyRun& r : p.remedy_runs) {
    if (r.remedy == "clip_eigenvalues") clip = &r;
    if (r.remedy == "fail") fail = &r;
  }
  if (!clip || !fail || clip->steps <= 0) return;
  const double share = static_cast<double>(fail->steps) / static_cast<double>(clip->steps);
  std::string runs;
  for (const RemedyRun& r : p.remedy_runs) {
    std::int64_t fired = 0;
    for (const auto& [name, n] : r.remedies) fired = std::max(fired, n);
    runs += fmt::format("; {}: {} after {} steps, fired on {}, test LL {:.3g}", r.remedy, r.status,
                        r.steps, fired, r.test_log_likelihood);
    if (r.hmc_scores)
      runs += fmt::format(
          ", predictive sd ÷ HMC's {:.3g} (geometric mean over the points), "
          "predictive mean's RMS error {:.3g}",
          std::exp(r.hmc_scores->point_sd_log_ratio), r.hmc_scores->point_mean_error);
  }
  out.push_back(seed_verdict(
      p,
      "VON needs a remedy for an indefinite Hessian on a non-convex problem: without one it stops",
      ClaimKind::finding,
      "share of the run's steps VON completes with remedy = fail (the precision update must "
      "stay positive definite)",
      {von_fail_share_threshold, false, 0.0}, share, 0.0,
      fmt::format("VON with remedy = fail took {} of the {} steps of the run ({}){}", fail->steps,
                  clip->steps, fail->status == "finished" ? "finished" : fail->message, runs),
      "", khan));
}

// "The carried prior keeps the first task" (continual_study.hpp): task 1's test log-likelihood
// after the last task, full VOGN (GGN) with the carried prior against MAP and against the same
// VOGN without it.
void continual_verdicts(const ProblemRecord& p, std::vector<StudyVerdict>& out) {
  if (!p.continual || p.continual->intervals.empty()) return;
  const ContinualStudy& c = *p.continual;
  auto find = [&](const std::string& key) -> const ContinualRun* {
    for (const ContinualRun& r : c.runs)
      if (r.method == key) return &r;
    return nullptr;
  };
  // "a, b, c" of task 1 after each stage (— after a stage that did not finish).
  auto task1 = [](const ContinualRun& r) {
    std::string text;
    for (std::size_t t = 0; t < r.test_log_likelihood.size(); ++t)
      text += fmt::format("{}{:.3g}", t == 0 ? "" : ", ", r.test_log_likelihood[t][0]);
    return text;
  };
  const ContinualRun* carried = find("vogn_full_ggn");
  if (!carried) return;
  const std::size_t last = c.intervals.size() - 1;
  const std::pair<const char*, const char*> controls[] = {
      {"map", "MAP with the isotropic prior N(0, δ⁻¹I) at every task"},
      {"vogn_full_ggn_no_prior",
       "the same VOGN with the isotropic prior at every task (the carried prior alone)"}};
  for (const auto& [key, what] : controls) {
    const ContinualRun* control = find(key);
    if (!control) continue;
    const double a = carried->test_log_likelihood[last][0];
    const double b = control->test_log_likelihood[last][0];
    const ClaimRule rule{0.0, true, continual_log_likelihood_margin};
    out.push_back(seed_verdict(
        p,
        fmt::format("continual learning: the carried prior keeps the first task — after {} tasks, "
                    "full VOGN (GGN) with each task's posterior as the next one's prior has a "
                    "higher task-1 test log-likelihood than {}",
                    c.intervals.size(), what),
        ClaimKind::finding,
        fmt::format("task 1's test log-likelihood after the last task (nats per example), VOGN "
                    "(GGN, full) with the carried prior − {}",
                    key == std::string("map") ? "MAP" : "VOGN (GGN, full) without it"),
        rule, a - b, rule.margin,
        fmt::format("task 1's test log-likelihood after tasks 1, …, {}: VOGN (GGN, full) with "
                    "the carried prior {}; {} {}; difference after the last {:.3g} ({})",
                    c.intervals.size(), task1(*carried), control->label, task1(*control), a - b,
                    c.description),
        std::string(), nguyen));
  }
}

std::vector<StudyVerdict> seed_verdicts(const ProblemRecord& p) {
  std::vector<StudyVerdict> out;
  exact_posterior_verdicts(p, out);
  approximation_verdicts(p, out);
  tracking_verdict(p, out);
  ivon_verdict(p, out);
  elbo_verdict(p, out);
  sample_size_verdicts(p, out);
  kfac_verdict(p, out);
  hmc_verdicts(p, out);
  remedy_verdict(p, out);
  continual_verdicts(p, out);
  return out;
}

StudyVerdict combine_over_seeds(const std::vector<StudyVerdict>& per_seed,
                                const std::vector<std::uint64_t>& seeds) {
  if (per_seed.empty() || per_seed.size() != seeds.size())
    throw std::invalid_argument(
        fmt::format("combine_over_seeds: {} verdicts for {} seeds (need as many, at least one)",
                    per_seed.size(), seeds.size()));
  StudyVerdict v = per_seed.front();
  v.per_seed.clear();
  v.per_seed_margin.clear();
  v.seeds = static_cast<int>(per_seed.size());
  v.seeds_holding = 0;
  v.health_note.clear();
  double margins = 0.0;
  for (std::size_t k = 0; k < per_seed.size(); ++k) {
    const StudyVerdict& s = per_seed[k];
    v.per_seed.push_back(s.per_seed.front());
    v.per_seed_margin.push_back(s.per_seed_margin.front());
    margins += s.per_seed_margin.front();
    v.seeds_holding += s.rule.holds(s.per_seed.front(), s.per_seed_margin.front()) ? 1 : 0;
    if (!s.health_note.empty())
      v.health_note += fmt::format("; on seed {}: {}", seeds[k], s.health_note.substr(2));
  }
  if (per_seed.size() == 1) {
    v.health_note = per_seed.front().health_note;
    v.evidence += v.health_note;
    return v;
  }
  // The statistic, its interval and the seed count are fields of their own (the report and the
  // terminal show them); the evidence quotes the base seed's numbers.
  const std::string base_evidence = fmt::format("seed {} (the base seed): {}{}", seeds.front(),
                                                per_seed.front().evidence, v.health_note);
  if (v.kind == ClaimKind::check) {
    // An identity must hold on every seed; the statistic is the value furthest towards failing.
    v.confirmed = v.seeds_holding == v.seeds;
    v.inconclusive = false;
    v.statistic = v.per_seed.front();
    for (const double x : v.per_seed)
      if (!(v.rule.beyond(x) >= v.rule.beyond(v.statistic))) v.statistic = x;
    v.evidence = base_evidence;
    return v;
  }
  v.rule.margin = margins / static_cast<double>(per_seed.size());
  const SeedInterval iv = t_interval(v.per_seed);
  v.statistic = iv.mean;
  v.interval_low = iv.low;
  v.interval_high = iv.high;
  const VerdictStatus status = v.rule.over_seeds(iv);
  v.confirmed = status == VerdictStatus::confirmed;
  v.inconclusive = status == VerdictStatus::inconclusive;
  v.evidence = base_evidence;
  return v;
}

std::vector<StudyVerdict> study_verdicts(const std::vector<ProblemSeeds>& problems) {
  std::vector<StudyVerdict> out;
  for (const ProblemSeeds& p : problems) {
    std::vector<std::vector<StudyVerdict>> by_seed;
    for (const ProblemRecord& r : p.runs) by_seed.push_back(seed_verdicts(r));
    // Each claim of the base seed, with the same claim of every seed that has it (a claim needs
    // data a fit may lack, e.g. a finite ELBO).
    for (const StudyVerdict& claim : by_seed.front()) {
      std::vector<StudyVerdict> same;
      std::vector<std::uint64_t> seeds;
      std::string left_out;  // seeds whose HMC reference is not converged
      for (std::size_t k = 0; k < by_seed.size(); ++k)
        for (const StudyVerdict& v : by_seed[k])
          if (v.claim == claim.claim) {
            if (!v.unconverged_reference.empty()) {
              left_out +=
                  fmt::format("; seed {} left out: {}", p.seeds[k], v.unconverged_reference);
              continue;
            }
            same.push_back(v);
            seeds.push_back(p.seeds[k]);
          }
      if (same.empty()) {
        // No seed has a converged reference: nothing to decide on.
        StudyVerdict v = claim;
        v.confirmed = false;
        v.inconclusive = true;
        v.seeds = 0;
        v.seeds_holding = 0;
        v.per_seed.clear();
        v.per_seed_margin.clear();
        v.statistic = v.interval_low = v.interval_high = std::numeric_limits<double>::quiet_NaN();
        v.health_note = left_out;
        v.evidence = "NOT DECIDED: no seed has a converged HMC reference" + left_out +
                     fmt::format(" (seed {}: {})", p.seeds.front(), claim.evidence);
        out.push_back(std::move(v));
        continue;
      }
      StudyVerdict v = combine_over_seeds(same, seeds);
      if (!left_out.empty()) {
        v.health_note += left_out;
        v.evidence += left_out;
      }
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace ngvi::app::study
