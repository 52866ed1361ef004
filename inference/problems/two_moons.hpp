// Two moons: the study's 2-D binary classification problem, two interleaved noisy half circles.
//
// Data: example i belongs to the upper moon (label 1) if i is even, else to the lower one
// (label 0); with t ~ U(0, π), the upper moon is (cos t, sin t), the lower (1 − cos t, ½ − sin t),
// both shifted by (−½, −¼) to centre the data and perturbed by N(0, noise²) in each coordinate.
// Training set, then test set, from one std::mt19937_64 seeded with options.seed (uniforms from
// vi::uniform_real, normals from Boost.Random: the same on every platform).
// Model: a 2-H-1 tanh MLP with nn::BernoulliLogit, as nn::Supervised (batched routes apply).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/problems/describe.hpp>
#include <inference/random.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::vi::problems {

struct TwoMoonsOptions {
  // N, the training examples (half per moon). 200 as in the curvature study.
  Eigen::Index examples = 200;
  // Held-out examples from the same distribution (0: none).
  Eigen::Index test_examples = 200;
  // Standard deviation of the Gaussian noise on each coordinate. 0.15 makes the moons touch
  // without merging, so a good classifier is accurate but not certain near the boundary.
  double noise = 0.15;
  // H, the hidden units of the 2-H-1 tanh network (P = 4H + 1).
  Eigen::Index hidden_units = 16;
  // Seed of the generator that draws both data sets.
  std::uint64_t seed = 0;
};

struct TwoMoons {
  using model_type = nn::Supervised<nn::Sequential, nn::BernoulliLogit>;

  model_type model;         // ℓᵢ(θ) = log(1 + e^{fᵢ}) − yᵢfᵢ
  model_type test_model;    // the same network and likelihood over the test data
  std::string description;  // one line for tables and JSON
};

// Throws std::invalid_argument naming the option if one is out of range. Cost: O(N + N*).
template <int = 0>  // compiled only where called (docs/architecture.md, "Compile time")
TwoMoons make_two_moons(const TwoMoonsOptions& o = {}) {
  const std::string who = "ngvi::vi::problems::make_two_moons";
  if (o.examples < 1 || o.test_examples < 0 || o.hidden_units < 1)
    throw std::invalid_argument(
        who + ": examples and hidden_units must be >= 1 and test_examples >= 0, got " +
        std::to_string(o.examples) + ", " + std::to_string(o.hidden_units) + " and " +
        std::to_string(o.test_examples));
  detail::check_nonnegative_finite(who, "noise", o.noise);
  Rng rng(o.seed);
  auto draw = [&](Eigen::Index n) {
    nn::Dataset d;
    d.X.resize(n, 2);
    d.Y.resize(n, 1);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double t = uniform_real(rng, 0.0, std::numbers::pi);
      const bool upper = i % 2 == 0;
      const Eigen::VectorXd e = o.noise * standard_normal(rng, 2);
      d.X(i, 0) = (upper ? std::cos(t) : 1.0 - std::cos(t)) - 0.5 + e(0);
      d.X(i, 1) = (upper ? std::sin(t) : 0.5 - std::sin(t)) - 0.25 + e(1);
      d.Y(i, 0) = upper ? 1.0 : 0.0;
    }
    return d;
  };
  nn::Dataset train = draw(o.examples);
  nn::Dataset test = draw(o.test_examples);
  const nn::Sequential net = nn::Sequential::mlp({2, o.hidden_units, 1}, nn::Tanh{});
  return TwoMoons{
      .model = {net, nn::BernoulliLogit(), std::move(train)},
      .test_model = {net, nn::BernoulliLogit(), std::move(test)},
      .description = "two moons, noise " + short_number(o.noise) + "; 2-" +
                     std::to_string(o.hidden_units) + "-1 tanh MLP; Bernoulli-logit",
  };
}

}  // namespace ngvi::vi::problems
