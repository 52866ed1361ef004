// NetworkModel: the one model type of the `ngvi` tool — an MLP (nn::Sequential) with the
// likelihood chosen at run time among those the tool offers (nn::LikelihoodVariant).
//
// `ngvi fit`, `ngvi uci` and `ngvi study` all build their networks as this type, so each method,
// the curvature drivers and the fit loop are compiled once for the whole tool rather than once
// per likelihood (docs/architecture.md, "Building"). The likelihoods:
//   GaussianFixedNoise  regression with fixed precision τ (standardised units), as the UCI
//                       protocol (inference/problems/uci_regression.hpp) and the study's;
//   StudentT            regression with fixed τ and ν degrees of freedom
//                       (`ngvi uci --likelihood student-t`);
//   SoftmaxCategorical  C-class classification (`ngvi fit --task classification`, C = 2
//                       included);
//   BernoulliLogit      binary classification with one output (the study's two-moons and 2-D
//                       logistic problems).
#pragma once

#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/likelihoods/likelihood_variant.hpp>
#include <nn/likelihoods/softmax_categorical.hpp>
#include <nn/likelihoods/student_t.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::app {

using NetworkLikelihood = nn::LikelihoodVariant<nn::GaussianFixedNoise, nn::StudentT,
                                                nn::SoftmaxCategorical, nn::BernoulliLogit>;
using NetworkModel = nn::Supervised<nn::Sequential, NetworkLikelihood>;

// The same network, data and likelihood as `model`, with the likelihood's concrete type Lik (a
// predictive's formulas depend on it). The two models share the data (and its window). Cost: a
// copy of the network and one pass over the data to check them against Lik.
template <class Lik>
nn::Supervised<nn::Sequential, Lik> with_likelihood(const NetworkModel& model, const Lik& lik) {
  return {model.net(), lik, model.shared_data(), model.window()};
}

}  // namespace ngvi::app
