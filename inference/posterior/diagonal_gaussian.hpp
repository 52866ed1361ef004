// DiagonalGaussian: the mean-field posterior q(θ) = N(μ, diag(1/λ)) kept as mean and precision.
//
// This is the family of diagonal VON, VOGN, IVON, noisy Adam and Bayes-by-backprop. It is stored
// by its precision λ (what the natural-gradient updates act on) rather than its variances, so an
// update never inverts anything. All quantities are closed forms; KL is to the isotropic prior
// p₀ = N(0, δ⁻¹I) that every method in ngvi::vi shares. Cost: O(P) per member unless noted.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/random.hpp>

namespace ngvi::vi {

class DiagonalGaussian {
 public:
  DiagonalGaussian() = default;
  // Throws std::invalid_argument if the sizes differ or a precision is not positive and finite.
  template <int = 0>
  DiagonalGaussian(Eigen::VectorXd mean, Eigen::VectorXd precision)
      : mean_(std::move(mean)), precision_(std::move(precision)) {
    if (mean_.size() != precision_.size())
      throw std::invalid_argument("ngvi::vi::DiagonalGaussian: mean has " +
                                  std::to_string(mean_.size()) + " entries but precision has " +
                                  std::to_string(precision_.size()));
    for (Eigen::Index i = 0; i < precision_.size(); ++i)
      if (!(precision_(i) > 0.0) || !std::isfinite(precision_(i)))
        throw std::invalid_argument("ngvi::vi::DiagonalGaussian: precision(" + std::to_string(i) +
                                    ") = " + std::to_string(precision_(i)) +
                                    " is not positive and finite");
  }

  Eigen::Index dim() const { return mean_.size(); }
  const Eigen::VectorXd& mean() const { return mean_; }
  const Eigen::VectorXd& precision() const { return precision_; }
  template <int = 0>
  Eigen::VectorXd marginal_variances() const {
    return precision_.cwiseInverse();
  }
  template <int = 0>
  Eigen::VectorXd marginal_stddevs() const {
    return precision_.cwiseInverse().cwiseSqrt();
  }
  // The covariance as a dense P×P matrix (for comparisons and small P). Cost: O(P²).
  template <int = 0>
  Eigen::MatrixXd covariance() const {
    return marginal_variances().asDiagonal();
  }

  // θ = μ + λ^{-1/2} ⊙ ε, ε ~ N(0, I). Cost: P normal draws.
  template <int = 0>
  Eigen::VectorXd sample(Rng& rng) const {
    return sample_from(standard_normal(rng, dim()));
  }
  // The same map for a given ε (reparameterisation: θ is differentiable in μ and λ).
  template <int = 0>
  Eigen::VectorXd sample_from(const Eigen::VectorXd& eps) const {
    return mean_ + (eps.array() / precision_.array().sqrt()).matrix();
  }

  // log q(θ) = −½ Σ (λᵢ(θᵢ − μᵢ)² − log λᵢ + log 2π).
  template <int = 0>
  double log_density(const Eigen::VectorXd& theta) const {
    const auto d = (theta - mean_).array();
    return -0.5 * ((precision_.array() * d.square()).sum() - precision_.array().log().sum() +
                   static_cast<double>(dim()) * std::log(2.0 * std::numbers::pi));
  }
  // H[q] = ½ Σ (1 + log 2π − log λᵢ).
  template <int = 0>
  double entropy() const {
    return 0.5 * (static_cast<double>(dim()) * (1.0 + std::log(2.0 * std::numbers::pi)) -
                  precision_.array().log().sum());
  }
  // KL(q ‖ N(0, δ⁻¹I)) = ½ Σ (δ/λᵢ + δμᵢ² − 1 − log(δ/λᵢ)).
  template <int = 0>
  double kl_to_prior(double prior_precision) const {
    const double delta = prior_precision;
    const auto r = delta / precision_.array();
    return 0.5 * (r + delta * mean_.array().square() - 1.0 - r.log()).sum();
  }

 private:
  Eigen::VectorXd mean_;
  Eigen::VectorXd precision_;
};

}  // namespace ngvi::vi
