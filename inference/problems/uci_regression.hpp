// UCI regression: one standard split of a UCI data set (Boston housing by default) with the
// published protocol's one-hidden-layer network — the benchmark that Zhang et al. 2018 (Table 1)
// and the PyTorch VOGN reference (bench/README.md) report.
//
// Data: the training and test rows of split k of a data set, already read (UciRegressionData;
// io::uci_regression_problem in io/uci_folder.hpp reads them from a folder in the format of
// data/uci/, see data/uci/SOURCE.md — this module reads no files). Inputs and targets are
// standardised with the TRAINING split's mean and standard deviation (nn::DatasetStandardizer),
// the test split with the same statistics; `targets` is the target standardizer that the
// predictive (inference/predictive.hpp) needs to report RMSE and log-likelihood in original
// units. Model: a D-H-1 MLP (H = 50 by default, the protocol's width) with nn::GaussianFixedNoise
// at a noise precision τ given in STANDARDISED units (so σ_orig = scale/√τ), as nn::Supervised.
// Nothing here is random: the split is fixed by the data.
#pragma once

#include <stdexcept>
#include <string>
#include <variant>

#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/problems/describe.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/layer.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::vi::problems {

// One split of a UCI data set, as read from its folder (io::load_uci_split).
struct UciRegressionData {
  nn::Dataset train;  // the training rows, in original units
  nn::Dataset test;   // the test rows, in original units
  std::string name;   // the data set's name for the description, e.g. "bostonHousing"
  int split = 0;      // which of the data set's splits (0-based), for the description
};

struct UciRegressionOptions {
  // H, the hidden units: 50 as in the published protocol and the PyTorch reference.
  Eigen::Index hidden_units = 50;
  // The hidden activation; ReLU as in the protocol (the reference also runs tanh).
  nn::Layer activation = nn::Relu{};
  // τ in standardised units. 10 is the reference's tuned stage-A value for Boston.
  double noise_precision = 10.0;
};

// Throws std::invalid_argument for out-of-range options (hidden_units < 1, a noise precision
// that is not positive and finite, a Dense layer as the activation). Callers that read the data
// first (io::uci_regression_problem) check the options before reading. Cost: O(1).
template <int = 0>
void check_uci_regression_options(const UciRegressionOptions& o) {
  const std::string who = "ngvi::vi::problems::make_uci_regression";
  detail::check_at_least(who, "hidden_units", o.hidden_units, 1);
  detail::check_positive_finite(who, "noise_precision", o.noise_precision);
  if (std::holds_alternative<nn::Dense>(o.activation))
    throw std::invalid_argument(who + ": activation must not be a Dense layer");
}

struct UciRegression {
  using model_type = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;

  model_type model;          // standardised training split
  model_type test_model;     // standardised test split, same network and likelihood
  nn::Standardizer targets;  // the training target statistics: y_orig = y_std·scale + mean
  nn::Standardizer inputs;   // the training input statistics
  std::string description;   // one line for tables and JSON
};

// Throws std::invalid_argument for out-of-range options (check_uci_regression_options).
// Cost: standardising the data, O(N·D).
template <int = 0>  // compiled only where called (docs/architecture.md, "Compile time")
UciRegression make_uci_regression(const UciRegressionData& data,
                                  const UciRegressionOptions& o = {}) {
  check_uci_regression_options(o);
  const nn::DatasetStandardizer st = nn::DatasetStandardizer::fit(data.train);
  const Eigen::Index D = data.train.input_dim();
  const nn::Sequential net = nn::Sequential::mlp({D, o.hidden_units, 1}, o.activation);
  const nn::GaussianFixedNoise lik(o.noise_precision);
  return UciRegression{
      .model = {net, lik, st.transform(data.train)},
      .test_model = {net, lik, st.transform(data.test)},
      .targets = st.y,
      .inputs = st.x,
      .description = data.name + " split " + std::to_string(data.split) +
                     " (N = " + std::to_string(data.train.size()) +
                     ", N* = " + std::to_string(data.test.size()) + "); " + net.describe() +
                     "; Gaussian, precision " + short_number(o.noise_precision) +
                     " (standardised units)",
  };
}

}  // namespace ngvi::vi::problems
