// The method suites: every method of the study fitted to one problem, from the same seed.
//
// These two functions are the only place the study instantiates vi::fit, each in its own .cpp
// (natural_gradient_suite.cpp, baseline_suite.cpp), so the two cores compile them in parallel and
// no other file pays for them. Each returns one
// MethodRecord per method it ran, in the catalog's order (method_catalog.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

// VON (full when setup.full_covariance, and diagonal), VOGN full with the GGN (when
// full_covariance) and diagonal VOGN with the GGN, the empirical Fisher and the MC Fisher.
// Cost: per step an exact minibatch Hessian (VON) or per-example curvature (VOGN), plus an exact
// full-data Hessian per history row for the curvature checks.
std::vector<MethodRecord> run_natural_gradient_methods(const ProblemSetup& setup);

// VON (full covariance) refitted with each remedy for an indefinite Hessian but the study's own
// (clip_eigenvalues): fail, reject_step, damp_step, add_damping and ggn_fallback, in that order,
// with one history row (no curvature checks). Each record is named "von" with its remedy's
// counters; a fit that stops (remedy fail) keeps its status and message. Cost: up to five VON
// fits, each an exact minibatch Hessian and its eigendecomposition per step, and their
// predictives.
std::vector<std::pair<std::string, MethodRecord>> run_von_remedies(const ProblemSetup& setup);

// IVON (with the package's β₂ and with β₂ = 0.999), noisy Adam, noisy K-FAC, Bayes-by-backprop and
// MAP + Laplace (whose record carries the Hessian-versus-approximations study along the MAP
// trajectory).
std::vector<MethodRecord> run_baseline_methods(const ProblemSetup& setup);

}  // namespace ngvi::app::study
