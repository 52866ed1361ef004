// predict_regression / predict_classification: the predictive distribution of a fitted posterior
// (any family the tool's methods return) on held-out examples.
//
// Monte-Carlo by default (inference/predictive.hpp: S draws θₛ ~ q, the mixture's mean and
// variance, log p(y | D) by log-mean-exp); `linearised` uses the GLM predictive at E_q[θ]
// instead, which is the natural predictive of the Laplace approximation (Immer et al. 2021). For
// regression every number is in original units (the TRAINING target standardizer is passed in).
// Instantiated in predict.cpp only.
#pragma once

#include <app/methods/any_posterior.hpp>
#include <app/methods/fit_method.hpp>

#include <inference/predictive.hpp>
#include <inference/random.hpp>
#include <nn/dataset.hpp>

namespace ngvi::app {

struct PredictOptions {
  // S, posterior draws of the Monte-Carlo predictive (100, as the published UCI protocols).
  int samples = 100;
  // The linearised (GLM) predictive instead of Monte Carlo (the Laplace method's).
  bool linearised = false;
  // Threads for the per-example Jacobians of the linearised predictive (results do not
  // depend on it).
  int threads = 1;
};

// Throws std::invalid_argument for a posterior of another dimension than the model, an empty
// test set, or a test model whose likelihood is not a regression one (Gaussian or Student-t).
// Cost: S forward passes over the test set (Monte Carlo), or q's covariance and the per-example
// Jacobians (linearised). A Student-t model has the Monte-Carlo predictive only
// (options.linearised throws std::invalid_argument): its log-likelihood is that of the mixture of
// Student-t densities, the variance ν/((ν − 2)τ) + Var[f] (infinite for ν ≤ 2).
vi::RegressionPredictive predict_regression(const AnyPosterior& q, const NetworkModel& test,
                                            const nn::Standardizer& targets, vi::Rng& rng,
                                            const PredictOptions& options);
// The reference predictive of HMC (inference/hmc.hpp: NUTS, diagonal mass matrix adapted in
// warmup) on the posterior of `train`'s network under the prior N(0, 1/δ): every chain starts at
// `start` (a fitted posterior's mean, say), and the Monte-Carlo predictive on `test` draws from
// the pooled draws (vi::DrawsPosterior). Gaussian likelihood only (throws std::invalid_argument
// otherwise).
struct HmcPredictOptions {
  int chains = 4;
  int warmup = 500;
  int draws = 500;
  int max_tree_depth = 8;  // at most 2^depth − 1 leapfrog steps per draw
  double prior_precision = 1.0;
  int samples = 400;  // predictive draws from the pooled draws
};
struct HmcPredictive {
  vi::RegressionPredictive predictive;
  double max_rhat = 0.0;  // over the parameters (Vehtari et al. 2021); converged at <= 1.01
  Eigen::Index divergences = 0;
};
// Cost: chains × (warmup + draws) transitions of at most 2^max_tree_depth − 1 gradients of the
// training loss (the chains on the oneTBB threads), then `samples` forward passes over `test`.
HmcPredictive hmc_predict_regression(const NetworkModel& train, const NetworkModel& test,
                                     const nn::Standardizer& targets, const Eigen::VectorXd& start,
                                     vi::Rng& rng, const HmcPredictOptions& options);

// The same for a softmax classifier (throws std::invalid_argument for another likelihood).
vi::ClassificationPredictive predict_classification(const AnyPosterior& q, const NetworkModel& test,
                                                    vi::Rng& rng, const PredictOptions& options);

}  // namespace ngvi::app
