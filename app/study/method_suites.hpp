// The method suite: every method of the study fitted to one problem, from the same seed.
//
// run_methods is the only place the study instantiates vi::fit (method_suite.cpp, compiled with
// the tool's other method instances); it runs the rows of the method table
// (app/methods/method_table.hpp) that have a study mapping.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

// One MethodRecord per study row of the method table, in its order: every row, except the
// full-covariance ones (VON, VOGN full) where setup.full_covariance is false. MAP + Laplace's
// record carries the Hessian-versus-approximations study along the MAP trajectory.
// Cost: per method its fit and the measurements of run_method.hpp — per history row an exact
// full-data Hessian for the curvature checks, and per step an exact minibatch Hessian (VON) or
// per-example curvature (VOGN).
std::vector<MethodRecord> run_methods(const ProblemSetup& setup);

// VON (full covariance) refitted with each remedy for an indefinite Hessian but the study's own
// (clip_eigenvalues): fail, reject_step, damp_step, add_damping and ggn_fallback, in that order,
// with one history row (no curvature checks). Each record is named "von" with its remedy's
// counters; a fit that stops (remedy fail) keeps its status and message. Cost: up to five VON
// fits, each an exact minibatch Hessian and its eigendecomposition per step, and their
// predictives.
std::vector<std::pair<std::string, MethodRecord>> run_von_remedies(const ProblemSetup& setup);

}  // namespace ngvi::app::study
