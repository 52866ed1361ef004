// What a program that asks for a predictive must see, and no more: the options and results of
// the predictives of predictive.hpp, and the declarations of its four functions with their
// default arguments. predictive.hpp defines (and documents) them; a program that only calls
// predictives compiled into a library (ngvi::instances, inference/instances.hpp) includes this
// header instead and so compiles none of them.
#pragma once

#include <Eigen/Core>

#include <inference/classification_metrics.hpp>
#include <inference/random.hpp>
#include <nn/dataset.hpp>

namespace ngvi::vi {

struct PredictiveOptions {
  // S: draws θₛ ~ q for the Monte-Carlo predictive (per example draws of fᵢ for the GLM
  // classification predictive). 100 makes the Monte-Carlo error of a test log-likelihood small
  // against its spread over UCI splits, at 100 forward passes over the test set.
  int samples = 100;
  // Equal-width confidence bins of the expected calibration error (classification_metrics.hpp).
  int calibration_bins = 10;
  // Threads and examples per task of the GLM predictive's per-example Jacobians (bitwise
  // identical for any thread count).
  int threads = 0;
  Eigen::Index grain = 16;
};

// Regression predictive on the test examples, all in ORIGINAL units.
struct RegressionPredictive {
  Eigen::MatrixXd mean;              // N*×d: E[y | D]
  Eigen::MatrixXd variance;          // N*×d: Var[y | D]
  Eigen::VectorXd log_likelihood;    // N*: log p(yᵢ | D)
  double test_log_likelihood = 0.0;  // mean of log_likelihood, nats per example
  double rmse = 0.0;                 // √(mean over examples and outputs of (y − mean)²)
};

// Classification predictive on the test examples.
struct ClassificationPredictive {
  Eigen::MatrixXd probabilities;  // N*×C: p(yᵢ = c | D); Bernoulli-logit gives C = 2 (1 − p, p)
  Eigen::VectorXd log_likelihood;  // N*: log p(yᵢ | D), by log-mean-exp of the S likelihoods
  ClassificationMetrics metrics;   // accuracy, NLL (= −mean log_likelihood), ECE
};

// The Monte-Carlo predictives: S draws θₛ ~ q and a forward pass over the test set for each.
template <class TestModel, class Posterior>
RegressionPredictive mc_regression_predictive(const TestModel& test, const Posterior& q,
                                              const nn::Standardizer& targets, Rng& rng,
                                              const PredictiveOptions& options = {});
template <class TestModel, class Posterior>
ClassificationPredictive mc_classification_predictive(const TestModel& test, const Posterior& q,
                                                      Rng& rng,
                                                      const PredictiveOptions& options = {});

// The linearised (GLM) predictives: the test model's per-example Jacobians and q's covariance.
template <class TestModel, class Posterior>
RegressionPredictive glm_regression_predictive(const TestModel& test, const Posterior& q,
                                               const nn::Standardizer& targets,
                                               const PredictiveOptions& options = {});
template <class TestModel, class Posterior>
ClassificationPredictive glm_classification_predictive(const TestModel& test, const Posterior& q,
                                                       Rng& rng,
                                                       const PredictiveOptions& options = {});

}  // namespace ngvi::vi
