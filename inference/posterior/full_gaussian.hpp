// FullGaussian: the full-covariance posterior q(θ) = N(μ, Λ⁻¹) kept as precision Λ = L Lᵀ.
//
// Full-covariance VON and VOGN, and the Laplace approximation, update or produce the precision
// Λ (VON's Λ ← (1−β)Λ + β(N Ĥ + δI), von.hpp), never the covariance, so this class stores Λ and
// its Cholesky factor L and derives everything else from L: samples θ = μ + L⁻ᵀε (whose
// covariance is L⁻ᵀL⁻¹ = Λ⁻¹), log det Λ = 2 Σ log Lᵢᵢ, the natural-gradient solve Λ⁻¹v by two
// triangular solves. A precision that is not symmetric positive definite (Cholesky fails) is
// rejected: from_precision_if_pd() says so without throwing, for the callers that have a remedy
// (see von.hpp), and the constructor throws. KL is to the isotropic prior N(0, δ⁻¹I).
// Cost: the constructor is one Cholesky factorisation, P³/3 flops; members as noted.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <inference/random.hpp>

namespace ngvi::vi {

class FullGaussian {
 public:
  FullGaussian() = default;
  // Throws std::invalid_argument on a size mismatch or a precision that is not finite,
  // symmetric positive definite.
  template <int = 0>
  FullGaussian(Eigen::VectorXd mean, Eigen::MatrixXd precision) {
    if (auto q = from_precision_if_pd(std::move(mean), std::move(precision))) {
      *this = std::move(*q);
      return;
    }
    throw std::invalid_argument(
        "ngvi::vi::FullGaussian: the precision matrix is not finite, symmetric positive definite "
        "(its Cholesky factorisation failed)");
  }

  // The posterior, or nullopt if Λ is not finite and positive definite (Cholesky fails). Only
  // Λ's lower triangle is read, as by Eigen::LLT. Throws std::invalid_argument on a size mismatch.
  // Cost: P³/3 flops.
  template <int = 0>
  static std::optional<FullGaussian> from_precision_if_pd(Eigen::VectorXd mean,
                                                          Eigen::MatrixXd precision) {
    if (precision.rows() != mean.size() || precision.cols() != mean.size())
      throw std::invalid_argument("ngvi::vi::FullGaussian: mean has " +
                                  std::to_string(mean.size()) + " entries but the precision is " +
                                  std::to_string(precision.rows()) + "×" +
                                  std::to_string(precision.cols()));
    if (!precision.allFinite() || !mean.allFinite()) return std::nullopt;
    FullGaussian q;
    q.mean_ = std::move(mean);
    q.precision_ = precision.selfadjointView<Eigen::Lower>();
    q.llt_.compute(q.precision_);
    if (q.llt_.info() != Eigen::Success) return std::nullopt;
    return q;
  }

  Eigen::Index dim() const { return mean_.size(); }
  const Eigen::VectorXd& mean() const { return mean_; }
  // Λ, exactly symmetric (its lower triangle mirrored).
  const Eigen::MatrixXd& precision() const { return precision_; }
  // The lower-triangular Cholesky factor L of Λ = L Lᵀ.
  template <int = 0>
  Eigen::MatrixXd cholesky_factor() const {
    return llt_.matrixL();
  }

  // Λ⁻¹v by two triangular solves (the natural-gradient direction of VON). Cost: 2P² flops.
  template <int = 0>
  Eigen::VectorXd solve(const Eigen::VectorXd& v) const {
    return llt_.solve(v);
  }
  // Σ = Λ⁻¹. Cost: P³ flops.
  template <int = 0>
  Eigen::MatrixXd covariance() const {
    return llt_.solve(Eigen::MatrixXd::Identity(dim(), dim()));
  }
  // diag Σ = the squared column norms of L⁻¹. Cost: P³/3 flops.
  template <int = 0>
  Eigen::VectorXd marginal_variances() const {
    return inverse_factor().colwise().squaredNorm().transpose();
  }
  template <int = 0>
  Eigen::VectorXd marginal_stddevs() const {
    return marginal_variances().cwiseSqrt();
  }
  // log det Λ = 2 Σ log Lᵢᵢ. Cost: O(P).
  template <int = 0>
  double log_det_precision() const {
    return 2.0 * llt_.matrixLLT().diagonal().array().log().sum();
  }

  // θ = μ + L⁻ᵀε, ε ~ N(0, I). Cost: P normal draws and one triangular solve (P² flops).
  template <int = 0>
  Eigen::VectorXd sample(Rng& rng) const {
    return sample_from(standard_normal(rng, dim()));
  }
  template <int = 0>
  Eigen::VectorXd sample_from(const Eigen::VectorXd& eps) const {
    return mean_ + llt_.matrixU().solve(eps);
  }

  // log q(θ) = −½ ((θ−μ)ᵀΛ(θ−μ) − log det Λ + P log 2π). Cost: P² flops.
  template <int = 0>
  double log_density(const Eigen::VectorXd& theta) const {
    const Eigen::VectorXd z = llt_.matrixU() * (theta - mean_);  // ‖Lᵀ(θ−μ)‖² = (θ−μ)ᵀΛ(θ−μ)
    return -0.5 * (z.squaredNorm() - log_det_precision() +
                   static_cast<double>(dim()) * std::log(2.0 * std::numbers::pi));
  }
  // H[q] = ½ (P (1 + log 2π) − log det Λ).
  template <int = 0>
  double entropy() const {
    return 0.5 * (static_cast<double>(dim()) * (1.0 + std::log(2.0 * std::numbers::pi)) -
                  log_det_precision());
  }
  // KL(q ‖ N(0, δ⁻¹I)) = ½ (δ tr Λ⁻¹ + δ μᵀμ − P − P log δ + log det Λ). Cost: P³/3 flops.
  template <int = 0>
  double kl_to_prior(double prior_precision) const {
    const double delta = prior_precision;
    const double p = static_cast<double>(dim());
    return 0.5 * (delta * inverse_factor().squaredNorm() + delta * mean_.squaredNorm() - p -
                  p * std::log(delta) + log_det_precision());
  }

 private:
  template <int = 0>
  Eigen::MatrixXd inverse_factor() const {
    return llt_.matrixL().solve(Eigen::MatrixXd::Identity(dim(), dim()));
  }

  Eigen::VectorXd mean_;
  Eigen::MatrixXd precision_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
};

}  // namespace ngvi::vi
