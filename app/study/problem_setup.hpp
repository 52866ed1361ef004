// ProblemSetup: one study problem as the method suites see it — the training and test models,
// the loop and step sizes every method uses on it, and what to measure along the way.
//
// The problem files (study_problems.cpp) build the models from inference/problems.hpp and fill a
// ProblemSetup; the method suites (method_suites.hpp) fit every method to it from the same seed.
// Every problem's networks are the tool's one model type, app::NetworkModel (a regression
// problem's with the Gaussian likelihood, a classification problem's with the Bernoulli-logit),
// so each method is compiled once for the whole study, and for `ngvi fit` and `ngvi uci` too.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <Eigen/Core>
#include <app/methods/network_model.hpp>

#include <inference/loop_options.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>

namespace ngvi::app::study {

// A classification problem's networks have the Bernoulli-logit likelihood; the others are
// regressions with the Gaussian likelihood.
inline bool is_classification(const NetworkModel& model) {
  return model.likelihood().holds<nn::BernoulliLogit>();
}

// Step sizes of the methods on one problem. Each default is the method's own documented default
// or the value the study found stable on its small networks; problems override what they need.
struct StepSizes {
  // α = β of VON and VOGN (mean rate and precision rate), the pure natural-gradient rule.
  double natural = 0.1;
  // Their decay: α(t) = β(t) = natural / (1 + natural_decay·(t − 1)) (vi::Schedule, power 1);
  // 0 keeps them constant. The networks decay them so that the minibatch noise settles.
  double natural_decay = 0.0;
  // S of VON and VOGN; 0 evaluates the expectations at the mean (exact for a quadratic loss).
  int natural_mc_samples = 1;
  // Adam's step for MAP and Bayes-by-backprop.
  double adam = 1e-2;
  // Noisy Adam's α: Adam's published default (its preconditioner √(f + γ) starts at √γ, tiny,
  // so the larger steps of MAP diverge on the regression networks).
  double noisy_adam = 1e-3;
  // IVON's α (its h₀ and, for "ivon", β₂ stay at the package defaults: the study shows what
  // they do). With h near h₀ = 1 the mean's step is about α times the gradient of the mean
  // loss, so the networks with a sharp likelihood need a small α.
  double ivon = 0.1;
  // Noisy K-FAC's α and its factors' moving-average weight β.
  double kfac = 0.02;
  double kfac_beta = 0.05;
};

struct ProblemSetup {
  std::string name;                           // key in results.json and in file names
  std::shared_ptr<const NetworkModel> train;  // the training data's model
  std::shared_ptr<const NetworkModel> test;   // the same network and likelihood over held-out data
  nn::Standardizer targets = nn::Standardizer::identity(1);  // training target scaling
  std::uint64_t seed = 1;  // every method starts from the same generator state
  // Draw a progress bar per fit on stderr (when it is a terminal); off for all but one of the
  // seeds that run at the same time, so that their bars do not overwrite each other.
  bool progress = true;
  vi::LoopOptions loop{};        // epochs, minibatch, history rows
  double prior_precision = 1.0;  // δ
  StepSizes steps{};
  // Run the full-covariance methods (VON, VOGN with the GGN); off when P×P work per step would
  // dominate the run.
  bool full_covariance = true;
  // Measure curvature against the exact Hessian: each method's running curvature at every
  // history row, and the MAP run's curvature study (the GGN, empirical and MC Fisher and K-FAC
  // with their spectra). Off when P×P Hessians at every row would dominate the run; the fits,
  // their metrics and the other references are unchanged.
  bool curvature_study = true;
  // Draws θ ~ q for the test metrics of each history row, and for the final ones.
  int history_predictive_samples = 10;
  int final_predictive_samples = 100;
  // Draws θ ~ q for the final ELBO's Monte-Carlo estimate and its standard error (unless the
  // ELBO is exact).
  int final_elbo_samples = 200;
  // Inputs (rows) at which each posterior's predictive is drawn for the plots; empty: none.
  Eigen::MatrixXd grid{};
  // A few fixed inputs (rows) where each method's function-space predictive is scored against the
  // HMC reference's (hmc_reference.hpp), from point_predictive_samples draws θ ~ q; empty: none.
  Eigen::MatrixXd evaluation_points{};
  int point_predictive_samples = 1000;
  // The training loss is quadratic in θ (a model linear in θ with the Gaussian likelihood): the
  // expected loss is then exact, E_q[Σᵢℓᵢ(θ)] = Σᵢℓᵢ(μ) + ½ tr(HΣ) with the constant Hessian H,
  // and every history row's ELBO is computed so instead of by Monte Carlo.
  bool quadratic_loss = false;
  // Non-empty: the network's output is Φθ with the Bernoulli-logit likelihood (a logistic GLM,
  // N×P design Φ), and the history rows' ELBO is exact by quadrature (exact_elbo.hpp).
  Eigen::MatrixXd logistic_design{};

  bool exact_elbo() const { return quadratic_loss || logistic_design.size() > 0; }
};

}  // namespace ngvi::app::study
