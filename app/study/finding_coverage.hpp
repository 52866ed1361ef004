// findings_not_evaluated: which of the study's findings and checks have no verdict on a
// problem, and why — so that the report on a user's problem (study_problem.hpp) says what it did
// not evaluate instead of leaving it out silently.
//
// Each kind of claim of study_verdicts.cpp is matched by a piece of its text; a kind with no
// verdict on the problem gets the reason read off the problem's records (no exact posterior, no
// HMC reference and why, no curvature study, a model whose GGN is its Hessian, ...). Cost:
// O(kinds × verdicts).
#pragma once

#include <string>
#include <vector>

#include <app/study/problem_seeds.hpp>
#include <app/study/study_problem.hpp>
#include <app/study/study_records.hpp>
#include <app/study/study_verdicts.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {

namespace detail {

inline const MethodRecord* coverage_method(const ProblemRecord& p, const std::string& key) {
  for (const MethodRecord& m : p.methods)
    if (m.name == key) return &m;
  return nullptr;
}

// The reason a claim about the methods' running curvature is missing: the method did not run, or
// has no measurements.
inline std::string running_curvature_reason(const ProblemRecord& p,
                                            const std::vector<std::string>& keys) {
  if (!p.curvature_absent.empty()) return "the curvature analyses were " + p.curvature_absent;
  for (const std::string& key : keys) {
    const MethodRecord* m = coverage_method(p, key);
    if (!m) return "the method " + key + " was not run on this problem";
    if (m->curvature.empty()) return "the fit of " + key + " recorded no curvature measurements";
  }
  return "its fits lack the measurements it needs";
}

}  // namespace detail

// The kinds of claim with no verdict for problem `ps` among `verdicts`, with the reason for each
// (the base seed's records). Empty when every kind was evaluated.
inline std::vector<FindingNotEvaluated> findings_not_evaluated(
    const ProblemSeeds& ps, const std::vector<StudyVerdict>& verdicts) {
  const ProblemRecord& p = ps.base();
  auto has = [&](const char* text) {
    for (const StudyVerdict& v : verdicts)
      if (v.problem == p.name && v.claim.find(text) != std::string::npos) return true;
    return false;
  };
  const MethodRecord* map = detail::coverage_method(p, "map_laplace");
  const bool curvature_study = map && map->approximations.size() >= 2;
  const std::string no_curvature_study =
      !p.curvature_absent.empty() ? "the curvature analyses were " + p.curvature_absent
      : map ? "the MAP run's curvature study has fewer than 2 points (the run stopped early?)"
            : "MAP + Laplace was not run";
  const bool ggn_is_hessian =
      curvature_study && map->approximations.front().relative_error.front() < 1e-9;
  const std::string no_optimum =
      "needs the Gaussian VI optimum, known in closed form or by quadrature only for a model "
      "linear in θ (a single dense layer), or given with the problem";
  const std::string no_hmc = "needs an HMC reference; " +
                             (p.hmc_absent.empty() ? std::string("none was computed")
                                                   : "this problem has none: " + p.hmc_absent);
  std::vector<FindingNotEvaluated> out;
  auto need = [&](bool evaluated, std::string finding, std::string reason) {
    if (!evaluated) out.push_back({std::move(finding), std::move(reason)});
  };
  need(detail::coverage_method(p, "von") != nullptr,
       "the full-covariance methods (VON, VOGN with the GGN)",
       fmt::format("not run: P = {} exceeds {}, the limit of their P×P work per step", p.parameters,
                   full_covariance_parameter_limit));
  need(has("approaches the Hessian") || has("equals the Hessian throughout"),
       "the GGN, empirical Fisher, MC Fisher and K-FAC approach the Hessian along training "
       "(Martens 2020)",
       no_curvature_study);
  need(has("empirical Fisher is a worse approximation"),
       "the empirical Fisher is a worse approximation of the Hessian than the GGN (Kunstner, "
       "Balles & Hennig 2019)",
       ggn_is_hessian ? "the GGN equals the Hessian for this model (linear in θ), so the "
                        "comparison cannot fail"
                      : no_curvature_study);
  need(has("tracks the exact Hessian"),
       "diagonal VON's precision tracks the Hessian more closely than VOGN's empirical Fisher",
       detail::running_curvature_reason(p, {"von_diagonal", "vogn_empirical_fisher"}));
  need(has("IVON with β₂ = 0.999") && has("IVON's Hessian estimate stays"),
       "IVON's Hessian estimate against the exact Hessian (β₂ = 0.99999 and 0.999)",
       detail::running_curvature_reason(p, {"ivon", "ivon_short_memory"}));
  need(has("higher ELBO than Bayes-by-backprop"),
       "natural-gradient VI reaches a higher ELBO than Bayes-by-backprop",
       "Bayes-by-backprop's final ELBO is not finite, or no natural-gradient fit has one");
  need(has("falls as 1/√S"),
       "VON's and diagonal VOGN's Monte-Carlo error at the fixed point falls as 1/√S", no_optimum);
  need(has("noisy K-FAC's"),
       "noisy K-FAC's posterior is closer to the full-covariance one than "
       "noisy Adam's (Zhang, Sun, Duvenaud & Grosse 2018)",
       no_optimum + "; the version against HMC is decided on the built-in two-moons problem only");
  need(has("underestimate the marginal variances"),
       "mean-field methods underestimate the marginal variances of the HMC posterior", no_hmc);
  need(has("in-between uncertainty"),
       "mean-field VI underestimates in-between uncertainty (Foong et al. 2019)",
       "a claim about the built-in gap problem's gap in the inputs; a user's problem has none "
       "marked");
  need(has("the carried prior keeps the first task"),
       "continual learning: a posterior carried forward as the next task's prior keeps the first "
       "task (Nguyen, Li, Bui & Turner 2018)",
       "a study of its own sequence of tasks, run beside the built-in gap problem; a user's "
       "problem is one data set");
  need(has("reaches the exact posterior"),
       "check: VON and full VOGN reach the exact posterior, the diagonal ones the mean-field "
       "optimum",
       "needs an exact posterior: in closed form for a model linear in θ with the Gaussian "
       "likelihood, or given with the problem; a network's posterior has none (HMC, where it "
       "runs, is the reference instead)");
  return out;
}

}  // namespace ngvi::app::study
