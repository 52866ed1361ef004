// Active learning by predictive variance: the protocol of Hernández-Lobato & Adams 2015
// ("Probabilistic Backpropagation for Scalable Learning of Bayesian Neural Networks", §5.3) as
// Zhang, Sun, Duvenaud & Grosse 2018 ("Noisy Natural Gradient as Variational Inference", §5.2 and
// Appendix C.2) ran it for their Table 2.
//
// In each trial the rows of the data set are shuffled: the first 20 are labelled training rows,
// the next 100 the test rows, the rest the pool. Each round fits a network with one hidden layer
// of 10 ReLU units FROM SCRATCH on the training rows (inputs and targets standardised with their
// statistics), scores it on the test rows (RMSE and mean log-likelihood, original units) and then
// moves one pool row into the training rows:
//   active   x* = argmax_{x ∈ pool} Var[y | x, D], the predictive variance of the fitted posterior
//            (under Gaussian noise the point of largest information gain about the weights,
//            MacKay 1992, "Information-Based Objective Functions for Active Data Selection");
//   random   a pool row drawn uniformly (the control; the paper's "_R" columns).
// Ten rounds, so nine rows are added. Both arms of a trial start from the same rows and the same
// first fit, and draw their fits from the same streams; only the rows they add differ.
//
// Where this differs from the paper, by choice: the noise precision τ is fixed (standardised
// units) rather than learned under a Gamma prior; the method's own options come from the tool's
// method table (app/methods/method_table.hpp) at the epochs, minibatch and step size given. For a
// point estimate (map) every pool row has the same predictive variance 1/τ up to round-off, so
// its "active" choice is arbitrary: in effect a second random arm.
//
// With compare_hmc, each trial also runs HMC on its first 20 training rows (NUTS, every chain
// started at the method's first posterior mean) and records the Pearson correlation between the
// method's predictive variances on the test rows and HMC's, the statistic of Zhang et al. 2018's
// Table 3 (which treats HMC as the ground truth; max R-hat and divergences are recorded with it).
//
// Every draw comes from the stream uci::stream(seed, trial, purpose, round)
// (app/uci/split_fits.hpp) with purpose 0 the shuffle (round 0), 1 the fit, 2 the test predictive,
// 3 the pool's and 4 the random arm's draw of its row, 5 HMC and its predictive (uniform_index over
// the pool in its order: the shuffled pool with the rows added so far removed). Trials run in
// parallel: the result is the same bits for any number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/methods/method_settings.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/uci_protocol.hpp>

#include <nn/dataset.hpp>

namespace ngvi::app {

struct ActiveLearningOptions {
  // The method and its settings (epochs, minibatch, step size, δ); threads is the per-fit count
  // and stays 1 (the trials run in parallel instead). `ngvi active` sets the paper's 1000 epochs
  // and minibatch 10 (Zhang et al., Appendix C.1).
  MethodSettings settings{};
  Eigen::Index initial_train = 20;  // labelled rows at the first round
  Eigen::Index test = 100;          // test rows, fixed for the trial
  int rounds = 10;                  // fits per arm; rounds − 1 rows are added
  int trials = 10;                  // independent shuffles
  Eigen::Index hidden_units = 10;   // one hidden layer of ReLU units
  double noise_precision = 4.0;     // τ of the Gaussian likelihood, standardised units
  int predictive_samples = 100;     // Monte-Carlo draws of each predictive
  std::uint64_t seed = 1;
  // Table 3: the correlation of the first round's predictive variances with HMC's.
  bool compare_hmc = false;
  HmcPredictOptions hmc{};  // its prior precision is set from settings.prior_precision
};

struct ActiveRound {
  Eigen::Index train_size = 0;
  double rmse = 0.0;            // on the test rows, original units
  double log_likelihood = 0.0;  // mean test log-likelihood, original units
  // The data row (0-based in the data set) added after this round and its predictive variance
  // (original units²); -1 and NaN after the last round.
  Eigen::Index added_row = -1;
  double added_variance = std::numeric_limits<double>::quiet_NaN();
  // The largest predictive variance over the pool (the active arm adds that row).
  double max_pool_variance = std::numeric_limits<double>::quiet_NaN();
};

struct ActiveArm {
  std::vector<ActiveRound> rounds;  // the rounds run (all of them unless a fit failed)
  bool ok = true;
  std::string message;  // why a fit failed ("round r: ..."); empty otherwise
};

// compare_hmc: the first round's predictive variances on the test rows against HMC's.
struct HmcComparison {
  // Pearson; NaN where the method's variances are the same at every test row (a point estimate).
  double correlation = std::numeric_limits<double>::quiet_NaN();
  double max_rhat = std::numeric_limits<double>::quiet_NaN();
  Eigen::Index divergences = 0;
};

struct ActiveTrial {
  std::vector<Eigen::Index> initial_train_rows, test_rows;  // data rows, 0-based
  ActiveArm random, active;
  HmcComparison hmc;  // NaN without compare_hmc or when the first fit failed
};

struct ActiveLearningRun {
  std::string dataset;
  Eigen::Index rows = 0, inputs = 0;
  ActiveLearningOptions options;
  std::vector<ActiveTrial> trials;
  // Per round, over the trials whose arm reached it: mean ± standard error.
  std::vector<MeanAndError> random_rmse, active_rmse, random_log_likelihood, active_log_likelihood;
  // Per round, the paired difference active − random of the test RMSE (the same trial's test
  // rows and first fit), over the trials whose two arms reached it: negative favours active.
  std::vector<MeanAndError> rmse_difference;
  MeanAndError hmc_correlation;  // over the trials that have one
  int hmc_trials = 0;            // how many have one
  double seconds = 0.0;          // wall time
};

// Throws std::invalid_argument for options out of range or a data set with fewer than
// initial_train + test + rounds − 1 rows (naming the numbers), UsageError for a method the tool
// does not run. A failed fit stops its arm (ok = false) without stopping the run. `progress`, if
// set, is called after each trial (from the thread that ran it). Cost: trials × (2·rounds − 1)
// fits of the method on at most initial_train + rounds − 1 rows, and as many predictives on the
// test rows and the pool; with compare_hmc, one HMC run per trial (HmcPredictOptions).
ActiveLearningRun run_active_learning(const nn::Dataset& data, const std::string& dataset,
                                      const ActiveLearningOptions& options,
                                      const std::function<void(int)>& progress = {});

// The index of the largest entry of `variances` (the first of equal ones); the active choice.
// Throws std::invalid_argument for an empty vector or a NaN entry. Cost: O(n).
Eigen::Index largest_variance(const Eigen::VectorXd& variances);

}  // namespace ngvi::app
