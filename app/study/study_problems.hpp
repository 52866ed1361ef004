// The study's problems: each built from inference/problems.hpp with the study's sizes, fitted by
// both method suites from the same seed, and returned as a ProblemRecord with its references.
//
//   regression_1d_gap           sin(2x) + noise with a gap in the inputs, 1-16-1 tanh MLP
//   two_moons                   2-D binary classification, 2-16-1 tanh MLP
//   bayesian_linear_regression  conjugate: the exact posterior in closed form
//   logistic_regression_2d      θ = (w, b): the exact posterior by quadrature on a grid
//   uci_boston                  Boston housing split 0 (shipped in data/uci), 13-10-1 ReLU MLP
// StudySettings::quick shrinks epochs, grids and Monte-Carlo sample counts so the whole study
// takes seconds (what the tests run); the problems and methods stay the same. A problem of the
// user's own (study_problem.hpp) runs through the same code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/study/study_problem.hpp>
#include <app/study/study_records.hpp>

#include <autodiff/functional/parallel.hpp>

namespace ngvi::app::study {

struct StudySettings {
  // Seed of every draw: data, initial values, Monte-Carlo samples.
  std::uint64_t seed = 1;
  // The short version (fewer epochs, coarser grids, fewer samples); see the top of the file.
  bool quick = false;
  // A progress bar per fit on stderr (ProblemSetup::progress).
  bool progress = true;
  // Threads and examples per task of the per-example work inside each fit; results are the
  // same for any thread count.
  int threads = 0;
  Eigen::Index grain = 16;
  // The Boston housing folder (UCI format). Empty: the study runs without that problem.
  std::filesystem::path boston;
};

// The problem keys in the order the study runs and reports them.
inline const std::vector<std::string>& problem_names() {
  static const std::vector<std::string> names = {"regression_1d_gap", "two_moons",
                                                 "bayesian_linear_regression",
                                                 "logistic_regression_2d", "uci_boston"};
  return names;
}

// Runs one problem (a key of problem_names()). Throws std::invalid_argument for an unknown key,
// nn::DataError for unreadable Boston data. Cost: both method suites on the problem.
ProblemRecord run_problem(const std::string& name, const StudySettings& settings);

// Runs a user's problem (study_problem.hpp) like the built-in ones, from settings.seed (the
// data stay the same; the initial weights and Monte-Carlo draws follow the seed). A model linear
// in θ gets its exact ELBO and, when not given, its exact posterior (Gaussian likelihood) and
// Gaussian VI optimum; HMC runs when P·N ≤ hmc_work_limit and no exact posterior is known, and
// the record says why not otherwise. Throws std::invalid_argument for an invalid problem (the
// name, missing or mismatched models, an unsupported likelihood, labels other than 0 and 1) or
// one with more than curvature_parameter_limit parameters. Cost: both method suites, the
// references, and the HMC reference if it runs.
ProblemRecord run_problem(const Problem& problem, const StudySettings& settings);

// The checks of run_problem(const Problem&, …) alone, so that a caller can refuse a problem
// before fitting anything. Throws std::invalid_argument. Cost: O(examples) for the labels.
void check_problem(const Problem& problem);

}  // namespace ngvi::app::study
