// LearnedHyperparameters: the prior precisions δ_b of the parameter blocks and the noise
// precision τ that a fit learned from the evidence (`--hyperparameters evidence`,
// inference/evidence_hyperparameters.hpp), as the tool reports them: in `ngvi fit`'s output and
// posterior.json, and in `ngvi uci`'s results.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace ngvi::app {

struct LearnedHyperparameters {
  std::string source = "evidence";   // --hyperparameters: "evidence" or "noise"
  std::vector<std::string> blocks;   // the parameter blocks' names ("dense0.weight", ...)
  std::vector<Eigen::Index> sizes;   // their parameter counts P_b
  Eigen::VectorXd prior_precisions;  // δ_b, one per block, in that order
  // τ, standardised units; NaN for a likelihood without one (classification).
  double noise_precision = std::numeric_limits<double>::quiet_NaN();
  // The Laplace evidence at θ*, δ_b and τ; NaN for a VI method (variational EM, no evidence).
  double log_marginal_likelihood = 0.0;
};

}  // namespace ngvi::app
