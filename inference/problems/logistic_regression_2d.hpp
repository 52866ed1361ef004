// 2-D Bayesian logistic regression: a seeded non-conjugate problem small enough to integrate
// on a grid, the reference for checking a Gaussian-VI fixed point by Gauss–Hermite quadrature.
//
// "2-D" is the parameter space: θ = (w, b), P(yᵢ = 1 | θ) = σ(w xᵢ + b) with scalar inputs xᵢ,
// prior θ ~ N(0, δ⁻¹I). The posterior has no closed form, but every Gaussian expectation
// E_q[f(θ)] over two dimensions is a cheap tensor-product quadrature, so the full-covariance and
// mean-field VI optima can be characterised exactly (E_q[∇ log p(D|θ)] = δμ and
// Λ = E_q[−∇² log p(D|θ)] + δI, resp. their diagonals) and checked in the tests. It is built as
// nn::Supervised with one Dense(1, 1) layer and nn::BernoulliLogit, so θ = [dense0.weight |
// dense0.bias] = (w, b) and the batched routes of nn/ apply.
// Data: xᵢ ~ N(0, input_scale²), yᵢ ~ Bernoulli(σ(w_true xᵢ + b_true)), from one std::mt19937_64
// seeded with options.seed (Bernoulli draws by comparing vi::uniform_real, which is
// platform-independent).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/random.hpp>
#include <nn/dataset.hpp>
#include <nn/dense.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::vi::problems {

struct LogisticRegression2dOptions {
  // N. 30 keeps the posterior visibly non-Gaussian (skewed) while quadrature stays cheap.
  Eigen::Index examples = 30;
  // The generating slope and intercept (w_true, b_true).
  double true_weight = 1.5;
  double true_bias = -0.5;
  // Standard deviation of the inputs xᵢ.
  double input_scale = 1.0;
  // δ of the prior N(0, δ⁻¹I).
  double prior_precision = 1.0;
  // Seed of the generator that draws x and y.
  std::uint64_t seed = 0;
};

struct LogisticRegression2d {
  using model_type = nn::Supervised<nn::Sequential, nn::BernoulliLogit>;

  model_type model;              // ℓᵢ(θ) = log(1 + e^{fᵢ}) − yᵢfᵢ, fᵢ = w xᵢ + b
  Eigen::VectorXd inputs;        // x (N)
  Eigen::VectorXd labels;        // y ∈ {0, 1} (N)
  double prior_precision = 0.0;  // δ
  Eigen::Vector2d true_parameters = Eigen::Vector2d::Zero();  // (w_true, b_true)
};

// Throws std::invalid_argument naming the field if an option is out of range. Cost: O(N).
template <int = 0>  // compiled only where called (docs/architecture.md, "Compile time")
LogisticRegression2d make_logistic_regression_2d(const LogisticRegression2dOptions& o = {}) {
  const std::string who = "ngvi::vi::problems::make_logistic_regression_2d";
  detail::check_at_least(who, "examples", o.examples, 1);
  detail::check_positive_finite(who, "prior_precision", o.prior_precision);
  if (!(o.input_scale > 0.0) || !std::isfinite(o.input_scale) || !std::isfinite(o.true_weight) ||
      !std::isfinite(o.true_bias))
    throw std::invalid_argument(who +
                                ": input_scale must be positive and the true parameters finite");
  const Eigen::Index n = o.examples;
  Rng rng(o.seed);
  const Eigen::VectorXd x = o.input_scale * standard_normal(rng, n);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double u = uniform_real(rng, 0.0, 1.0);
    const double p1 = 1.0 / (1.0 + std::exp(-(o.true_weight * x(i) + o.true_bias)));
    y(i) = u < p1 ? 1.0 : 0.0;
  }
  nn::Dataset data{x, y};
  return LogisticRegression2d{
      .model = {nn::Sequential{nn::Dense(1, 1)}, nn::BernoulliLogit(), std::move(data)},
      .inputs = x,
      .labels = y,
      .prior_precision = o.prior_precision,
      .true_parameters = Eigen::Vector2d(o.true_weight, o.true_bias),
  };
}

}  // namespace ngvi::vi::problems
