// 1-D regression with a gap: the study's sine problem, where a posterior should grow uncertain
// between the two clouds of training inputs.
//
// Data: training inputs x ~ U([−2, 2] minus the centred gap (−g/2, g/2)), drawn as
// u ~ U(−2, 2 − g) and x = u if u < −g/2 else u + g (uniform on the two pieces); test inputs
// x ~ U(−2, 2) over the whole range, gap included, so held-out metrics see the in-between
// region; targets y = sin(2x) + σε, ε ~ N(0, 1). Training set, then test set, from one
// std::mt19937_64 seeded with options.seed, so with g = 0 the training set is the same for any
// number of test examples. Uniforms come from vi::uniform_real and normals from Boost.Random
// (random.hpp), the same on every platform.
// Model: a 1-H-1 tanh MLP (nn::Sequential::mlp) with nn::GaussianFixedNoise at the true noise
// precision τ = 1/σ², as nn::Supervised, so the batched per-example and curvature routes apply.
// The targets are not standardised (they are O(1) already): `targets` is the identity.
// examples/curvature_study.cpp runs it with g = 0 (its original U(−2, 2) inputs).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/problems/describe.hpp>
#include <inference/random.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::vi::problems {

struct Regression1dGapOptions {
  // N, the training examples. 100: enough to pin the sine down on both sides of the gap while
  // exact 49×49 Hessians stay instant.
  Eigen::Index examples = 100;
  // Held-out examples over the whole input range (0: none).
  Eigen::Index test_examples = 100;
  // Width g of the centred interval without training inputs, in [0, 4). 1 leaves a gap of a
  // quarter of the range, wide enough for the predictive variance to grow visibly inside it.
  double gap_width = 1.0;
  // σ, the noise standard deviation; the likelihood uses the true precision 1/σ².
  double noise_sd = 0.2;
  // H, the hidden units of the 1-H-1 tanh network (P = 3H + 1).
  Eigen::Index hidden_units = 16;
  // Seed of the generator that draws both data sets.
  std::uint64_t seed = 0;
};

struct Regression1dGap {
  using model_type = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;

  model_type model;       // the training data: ℓᵢ(θ) = τ/2 (yᵢ − f(xᵢ; θ))² + const
  model_type test_model;  // the same network and likelihood over the test data
  nn::Standardizer targets;    // identity (targets are in original units)
  double noise_precision = 0;  // τ = 1/σ²
  std::string description;     // one line for tables and JSON
};

// Throws std::invalid_argument naming the option if one is out of range. Cost: O(N + N*).
template <int = 0>  // compiled only where called (docs/architecture.md, "Compile time")
Regression1dGap make_regression_1d_gap(const Regression1dGapOptions& o = {}) {
  const std::string who = "ngvi::vi::problems::make_regression_1d_gap";
  if (o.examples < 1 || o.test_examples < 0 || o.hidden_units < 1)
    throw std::invalid_argument(
        who + ": examples and hidden_units must be >= 1 and test_examples >= 0, got " +
        std::to_string(o.examples) + ", " + std::to_string(o.hidden_units) + " and " +
        std::to_string(o.test_examples));
  if (!(o.gap_width >= 0.0 && o.gap_width < 4.0))
    throw std::invalid_argument(who + ": gap_width must be in [0, 4), got " +
                                std::to_string(o.gap_width));
  detail::check_positive_finite(who, "noise_sd", o.noise_sd);
  Rng rng(o.seed);
  const double g = o.gap_width;
  auto draw = [&](Eigen::Index n, bool with_gap) {
    nn::Dataset d;
    d.X.resize(n, 1);
    d.Y.resize(n, 1);
    for (Eigen::Index i = 0; i < n; ++i) {
      double x = uniform_real(rng, -2.0, with_gap ? 2.0 - g : 2.0);
      if (with_gap && x >= -0.5 * g) x += g;
      d.X(i, 0) = x;
      d.Y(i, 0) = std::sin(2.0 * x) + o.noise_sd * standard_normal(rng, 1)(0);
    }
    return d;
  };
  nn::Dataset train = draw(o.examples, true);
  nn::Dataset test = draw(o.test_examples, false);
  const double tau = 1.0 / (o.noise_sd * o.noise_sd);
  const nn::Sequential net = nn::Sequential::mlp({1, o.hidden_units, 1}, nn::Tanh{});
  const nn::GaussianFixedNoise lik(tau);
  return Regression1dGap{
      .model = {net, lik, std::move(train)},
      .test_model = {net, lik, std::move(test)},
      .targets = nn::Standardizer::identity(1),
      .noise_precision = tau,
      .description =
          "sin(2x) + N(0, " + short_number(o.noise_sd) + "²), x ~ U(−2, 2)" +
          (g > 0.0 ? " without (−" + short_number(0.5 * g) + ", " + short_number(0.5 * g) + ")"
                   : "") +
          "; 1-" + std::to_string(o.hidden_units) + "-1 tanh MLP; Gaussian, precision " +
          short_number(tau),
  };
}

}  // namespace ngvi::vi::problems
