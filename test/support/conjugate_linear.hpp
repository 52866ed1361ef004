// A conjugate linear-Gaussian regression with its closed forms, written independently of the
// library's inference code, for the predictive, MAP and Laplace tests.
//
// y = Φθ + ε, ε ~ N(0, τ⁻¹I), θ ~ N(0, δ⁻¹I), Φ = [X | 1]; the model is nn::Supervised with one
// Dense(D, 1) layer (θ = [w | b], Φ's column order) and nn::GaussianFixedNoise(τ). Closed forms:
//   posterior  Λ = τΦᵀΦ + δI, μ = Λ⁻¹τΦᵀy (= the ridge-regression MAP);
//   evidence   log N(y; 0, τ⁻¹I + δ⁻¹ΦΦᵀ), from an LLT of that N×N covariance (the data-space
//              form, a different route from the parameter-space formula the Laplace code uses);
//   predictive at x*: mean φ*ᵀμ, variance 1/τ + φ*ᵀΛ⁻¹φ*.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <inference/random.hpp>
#include <nn/dense.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::test {

using LinearModel = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;

// Φ = [X | 1].
inline Eigen::MatrixXd design_of(const Eigen::MatrixXd& X) {
  Eigen::MatrixXd Phi(X.rows(), X.cols() + 1);
  Phi << X, Eigen::VectorXd::Ones(X.rows());
  return Phi;
}

struct ConjugateLinear {
  Eigen::MatrixXd X, Y;  // training data (N×D, N×1)
  double tau = 4.0;      // noise precision
  double delta = 1.0;    // prior precision

  Eigen::MatrixXd Phi() const { return design_of(X); }
  LinearModel model() const { return model_over(X, Y); }
  LinearModel model_over(const Eigen::MatrixXd& Xs, const Eigen::MatrixXd& Ys) const {
    return LinearModel(nn::Sequential{nn::Dense(X.cols(), 1)}, nn::GaussianFixedNoise(tau),
                       nn::Dataset{Xs, Ys});
  }
  Eigen::MatrixXd precision() const {
    const Eigen::MatrixXd P = Phi();
    return tau * P.transpose() * P + delta * Eigen::MatrixXd::Identity(P.cols(), P.cols());
  }
  Eigen::MatrixXd covariance() const {
    const Eigen::MatrixXd L = precision();
    return L.llt().solve(Eigen::MatrixXd::Identity(L.rows(), L.cols()));
  }
  Eigen::VectorXd mean() const {
    return precision().llt().solve(tau * Phi().transpose() * Y.col(0));
  }
  // log N(y; 0, τ⁻¹I + δ⁻¹ΦΦᵀ).
  double log_evidence() const {
    const Eigen::MatrixXd P = Phi();
    const Eigen::Index n = P.rows();
    const Eigen::MatrixXd C = Eigen::MatrixXd::Identity(n, n) / tau + P * P.transpose() / delta;
    const Eigen::LLT<Eigen::MatrixXd> llt(C);
    const Eigen::VectorXd y = Y.col(0);
    const double logdet = 2.0 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
    return -0.5 * (y.dot(llt.solve(y)) + logdet +
                   static_cast<double>(n) * std::log(2.0 * std::numbers::pi));
  }
};

// N examples with D inputs: X ~ N(0, 1), θ_true ~ N(0, I), y = Φθ_true + N(0, 1/τ).
inline ConjugateLinear make_conjugate_linear(Eigen::Index n, Eigen::Index d, double tau,
                                             double delta, std::uint64_t seed) {
  vi::Rng rng(seed);
  ConjugateLinear c;
  c.tau = tau;
  c.delta = delta;
  c.X = vi::standard_normal(rng, n, d);
  const Eigen::VectorXd theta = vi::standard_normal(rng, d + 1);
  c.Y = design_of(c.X) * theta + vi::standard_normal(rng, n) / std::sqrt(tau);
  return c;
}

}  // namespace ngvi::test
