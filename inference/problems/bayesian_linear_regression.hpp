// Bayesian linear regression: a seeded conjugate problem whose posterior, evidence and mean-field
// optimum are known in closed form — the exact reference for VON, VOGN and Laplace.
//
// Model: y = Φθ + ε, ε ~ N(0, τ⁻¹I), prior θ ~ N(0, δ⁻¹I), with the design Φ = [X | 1] (the
// inputs and an intercept column). It is built as the network it is — nn::Supervised with one
// Dense(D, 1) layer and no activation, and nn::GaussianFixedNoise(τ) — so the batched
// per-example and curvature routes of nn/ apply. The Dense layer stores θ = [w (1×D) | b], so
// column j of Φ multiplies θⱼ: the model's parameters ARE the regression weights, in Φ's order
// (bayesian_linear_regression_test checks Σᵢℓᵢ(θ) = τ/2‖y − Φθ‖² + const and its gradient).
//
// Closed forms (P = D + 1 parameters):
//   posterior  Λ = τΦᵀΦ + δI,  μ = Λ⁻¹τΦᵀy;
//   evidence   log p(y) = N/2 log τ + P/2 log δ − N/2 log 2π − ½ log det Λ − τ/2‖y − Φμ‖² −
//   δ/2‖μ‖²; mean field q = Πⱼ N(mⱼ, 1/sⱼ) minimising KL(q‖posterior): m = μ and sⱼ = Λⱼⱼ (for a
//   Gaussian
//              target the mean-field optimum keeps the exact means and takes the diagonal of the
//              exact precision).
// Data: X ~ N(0, 1) entries, θ_true ~ N(0, δ⁻¹I) (a draw from the prior), y = Φθ_true + ε, all from
// one std::mt19937_64 seeded with options.seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/random.hpp>
#include <nn/dataset.hpp>
#include <nn/dense.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::vi::problems {

struct BayesianLinearRegressionOptions {
  // N. 40 is enough for a well-determined posterior yet keeps full-batch Hessians cheap.
  Eigen::Index examples = 40;
  // D; the model has P = D + 1 parameters (the weights and the intercept).
  Eigen::Index inputs = 3;
  // τ, the known noise precision. 4 (noise sd 0.5) gives a posterior neither flat nor a point.
  double noise_precision = 4.0;
  // δ of the prior N(0, δ⁻¹I). 1: the standard-normal prior.
  double prior_precision = 1.0;
  // Seed of the generator that draws X, θ_true and the noise.
  std::uint64_t seed = 0;
};

struct BayesianLinearRegression {
  using model_type = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;

  model_type model;         // ℓᵢ(θ) = τ/2 (yᵢ − φᵢᵀθ)² − ½ log τ + ½ log 2π
  Eigen::MatrixXd design;   // Φ = [X | 1], N×P, columns in θ's order
  Eigen::VectorXd targets;  // y
  double noise_precision = 0.0;          // τ
  double prior_precision = 0.0;          // δ
  Eigen::VectorXd true_parameters;       // θ_true the targets were drawn from
  Eigen::MatrixXd posterior_precision;   // Λ = τΦᵀΦ + δI
  Eigen::VectorXd posterior_mean;        // μ = Λ⁻¹τΦᵀy
  Eigen::MatrixXd posterior_covariance;  // Λ⁻¹
  double log_evidence = 0.0;             // log p(y) (δ, τ given)

  // The exact posterior N(μ, Λ⁻¹). Cost: one P×P Cholesky.
  FullGaussian posterior() const { return FullGaussian(posterior_mean, posterior_precision); }
  // The mean-field optimum N(μ, diag(1/Λⱼⱼ)). Cost: O(P).
  DiagonalGaussian mean_field_optimum() const {
    return DiagonalGaussian(posterior_mean, posterior_precision.diagonal());
  }
};

// Throws std::invalid_argument naming the field if an option is out of range.
// Cost: O(N·P²) to form ΦᵀΦ plus a P×P Cholesky.
template <int = 0>  // compiled only where called (docs/architecture.md, "Compile time")
BayesianLinearRegression make_bayesian_linear_regression(
    const BayesianLinearRegressionOptions& o = {}) {
  const std::string who = "ngvi::vi::problems::make_bayesian_linear_regression";
  detail::check_at_least(who, "examples", o.examples, 1);
  detail::check_at_least(who, "inputs", o.inputs, 1);
  detail::check_positive_finite(who, "noise_precision", o.noise_precision);
  detail::check_positive_finite(who, "prior_precision", o.prior_precision);
  const Eigen::Index n = o.examples, d = o.inputs, p = d + 1;
  const double tau = o.noise_precision, delta = o.prior_precision;

  Rng rng(o.seed);
  Eigen::MatrixXd phi(n, p);
  phi.leftCols(d) = standard_normal(rng, n, d);
  phi.col(d).setOnes();
  const Eigen::VectorXd theta_true = standard_normal(rng, p) / std::sqrt(delta);
  const Eigen::VectorXd y = phi * theta_true + standard_normal(rng, n) / std::sqrt(tau);

  Eigen::MatrixXd lambda = tau * phi.transpose() * phi;
  lambda.diagonal().array() += delta;
  const Eigen::LLT<Eigen::MatrixXd> llt(lambda);
  const Eigen::VectorXd mu = llt.solve(tau * phi.transpose() * y);
  const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  const double log_evidence = 0.5 * static_cast<double>(n) * std::log(tau) +
                              0.5 * static_cast<double>(p) * std::log(delta) -
                              0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi) -
                              0.5 * log_det - 0.5 * tau * (y - phi * mu).squaredNorm() -
                              0.5 * delta * mu.squaredNorm();
  nn::Dataset data{phi.leftCols(d), y};
  return BayesianLinearRegression{
      .model = {nn::Sequential{nn::Dense(d, 1)}, nn::GaussianFixedNoise(tau), std::move(data)},
      .design = phi,
      .targets = y,
      .noise_precision = tau,
      .prior_precision = delta,
      .true_parameters = theta_true,
      .posterior_precision = lambda,
      .posterior_mean = mu,
      .posterior_covariance = llt.solve(Eigen::MatrixXd::Identity(p, p)),
      .log_evidence = log_evidence,
  };
}

}  // namespace ngvi::vi::problems
