// LowRankGaussian: q(θ) = N(μ, Λ⁻¹) with a low-rank-plus-diagonal precision Λ = UUᵀ + diag(d),
// U of P×L (rank L ≪ P) and d > 0, the family of SLANG (slang.hpp; Mishkin, Kunstner, Nielsen,
// Schmidt & Khan 2018).
//
// Everything is derived from one L×L eigendecomposition, never a P×P matrix. With D = diag(d)
// and V = D^{-1/2}U, Λ = D^{1/2}(I + VVᵀ)D^{1/2}; write VᵀV = Q diag(σ²) Qᵀ (the L×L Gram matrix,
// SelfAdjointEigenSolver). Then
//   Λ⁻¹v = D⁻¹v − D^{-1/2}VQ diag(1/(1+σ²)) QᵀVᵀD^{-1/2}v                 (Woodbury)
//   θ = μ + D^{-1/2}(I + VVᵀ)^{-1/2}ε,  (I + VVᵀ)^{-1/2} = I + VQ diag(φ(σ²)) QᵀVᵀ,
//       φ(s) = ((1+s)^{-1/2} − 1)/s = −1/(√(1+s)(1+√(1+s)))  (finite at s = 0: a rank-deficient
//       U is fine), so θ − μ has covariance D^{-1/2}(I + VVᵀ)⁻¹D^{-1/2} = Λ⁻¹
//   log det Λ = Σᵢ log dᵢ + Σₖ log(1 + σₖ²)
//   diag Λ⁻¹ = d⁻¹ ⊙ (1 − Σₖ (VQ)ᵢₖ²/(1 + σₖ²))
// (SLANG's "fast" sampling and inversion, here through the eigendecomposition of the Gram matrix
// rather than its Cholesky factor.) With L = 0 every formula is the diagonal one of
// DiagonalGaussian, operation for operation. KL is to the isotropic prior N(0, δ⁻¹I).
// Cost: the constructor O(P·L²) + O(L³); members as noted.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <inference/random.hpp>

namespace ngvi::vi {

class LowRankGaussian {
 public:
  LowRankGaussian() = default;
  // Throws std::invalid_argument if the sizes differ, U is not finite or an entry of d is not
  // positive and finite. Cost: O(P·L²) + O(L³).
  template <int = 0>
  LowRankGaussian(Eigen::VectorXd mean, Eigen::MatrixXd low_rank, Eigen::VectorXd diagonal)
      : mean_(std::move(mean)), u_(std::move(low_rank)), d_(std::move(diagonal)) {
    const std::string who = "ngvi::vi::LowRankGaussian";
    if (d_.size() != mean_.size() || u_.rows() != mean_.size())
      throw std::invalid_argument(who + ": mean has " + std::to_string(mean_.size()) +
                                  " entries, the diagonal " + std::to_string(d_.size()) +
                                  " and the low-rank factor " + std::to_string(u_.rows()) +
                                  " rows");
    for (Eigen::Index i = 0; i < d_.size(); ++i)
      if (!(d_(i) > 0.0) || !std::isfinite(d_(i)))
        throw std::invalid_argument(who + ": diagonal(" + std::to_string(i) +
                                    ") = " + std::to_string(d_(i)) + " is not positive and finite");
    if (!u_.allFinite())
      throw std::invalid_argument(who + ": the low-rank factor U has a non-finite entry");
    inv_sqrt_d_ = d_.cwiseSqrt().cwiseInverse();
    vq_ = inv_sqrt_d_.asDiagonal() * u_;  // V, then VQ
    sigma2_.resize(0);
    if (rank() == 0) return;  // (Eigen's eigensolver does not take a 0×0 matrix)
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> gram(vq_.transpose() * vq_);
    sigma2_ = gram.eigenvalues().cwiseMax(0.0);
    vq_ = vq_ * gram.eigenvectors();
  }

  Eigen::Index dim() const { return mean_.size(); }
  Eigen::Index rank() const { return u_.cols(); }
  const Eigen::VectorXd& mean() const { return mean_; }
  // U (P×L) and d (P) of Λ = UUᵀ + diag(d).
  const Eigen::MatrixXd& low_rank_factor() const { return u_; }
  const Eigen::VectorXd& diagonal() const { return d_; }
  // Λ as a dense P×P matrix (for comparisons and small P). Cost: O(P²·L).
  template <int = 0>
  Eigen::MatrixXd precision() const {
    Eigen::MatrixXd lambda = u_ * u_.transpose();
    lambda.diagonal() += d_;
    return lambda;
  }
  // Σ = Λ⁻¹ as a dense P×P matrix, by Woodbury. Cost: O(P²·L).
  template <int = 0>
  Eigen::MatrixXd covariance() const {
    const Eigen::MatrixXd w = vq_ * one_plus_sigma2().cwiseSqrt().cwiseInverse().asDiagonal();
    Eigen::MatrixXd c = -w * w.transpose();
    c.diagonal().array() += 1.0;
    return inv_sqrt_d_.asDiagonal() * c * inv_sqrt_d_.asDiagonal();
  }

  // Λ⁻¹v by Woodbury. Cost: O(P·L).
  template <int = 0>
  Eigen::VectorXd solve(const Eigen::VectorXd& v) const {
    const Eigen::VectorXd z =
        (vq_.transpose() * v.cwiseProduct(inv_sqrt_d_)).cwiseQuotient(one_plus_sigma2());
    return v.cwiseQuotient(d_) - (vq_ * z).cwiseProduct(inv_sqrt_d_);
  }
  // diag Λ⁻¹. Cost: O(P·L).
  template <int = 0>
  Eigen::VectorXd marginal_variances() const {
    const Eigen::VectorXd k =
        vq_.cwiseAbs2() * one_plus_sigma2().cwiseInverse();  // Σₖ (VQ)ᵢₖ²/(1+σₖ²)
    return (1.0 - k.array()).matrix().cwiseQuotient(d_);
  }
  template <int = 0>
  Eigen::VectorXd marginal_stddevs() const {
    return marginal_variances().cwiseSqrt();
  }
  // log det Λ = Σ log dᵢ + Σ log(1 + σₖ²). Cost: O(P + L).
  template <int = 0>
  double log_det_precision() const {
    return d_.array().log().sum() + sigma2_.array().log1p().sum();
  }

  // θ = μ + D^{-1/2}(I + VVᵀ)^{-1/2}ε, ε ~ N(0, I). Cost: P normal draws + O(P·L).
  template <int = 0>
  Eigen::VectorXd sample(Rng& rng) const {
    return mean_ + sample_offset(standard_normal(rng, dim()));
  }
  // The same map for a given ε.
  template <int = 0>
  Eigen::VectorXd sample_from(const Eigen::VectorXd& eps) const {
    return mean_ + sample_offset(eps);
  }
  // D^{-1/2}(I + VVᵀ)^{-1/2}ε: a draw from N(0, Λ⁻¹) for ε ~ N(0, I). For L = 0 exactly
  // ε/√d, DiagonalGaussian's map. Cost: O(P·L).
  template <int = 0>
  Eigen::VectorXd sample_offset(const Eigen::VectorXd& eps) const {
    const Eigen::ArrayXd r = (1.0 + sigma2_.array()).sqrt();
    const Eigen::VectorXd phi = -(r * (1.0 + r)).inverse();  // φ(σ²)
    const Eigen::VectorXd x = eps + vq_ * (vq_.transpose() * eps).cwiseProduct(phi);
    return (x.array() / d_.array().sqrt()).matrix();
  }

  // log q(θ) = −½ ((θ−μ)ᵀΛ(θ−μ) − log det Λ + P log 2π). Cost: O(P·L).
  template <int = 0>
  double log_density(const Eigen::VectorXd& theta) const {
    const Eigen::VectorXd r = theta - mean_;
    const double quad = (u_.transpose() * r).squaredNorm() + r.cwiseAbs2().dot(d_);
    return -0.5 * (quad - log_det_precision() +
                   static_cast<double>(dim()) * std::log(2.0 * std::numbers::pi));
  }
  // H[q] = ½ (P (1 + log 2π) − log det Λ).
  template <int = 0>
  double entropy() const {
    return 0.5 * (static_cast<double>(dim()) * (1.0 + std::log(2.0 * std::numbers::pi)) -
                  log_det_precision());
  }
  // KL(q ‖ N(0, δ⁻¹I)) = ½ (δ tr Λ⁻¹ + δ μᵀμ − P − P log δ + log det Λ). Cost: O(P·L).
  template <int = 0>
  double kl_to_prior(double prior_precision) const {
    const double delta = prior_precision;
    const double p = static_cast<double>(dim());
    return 0.5 * (delta * marginal_variances().sum() + delta * mean_.squaredNorm() - p -
                  p * std::log(delta) + log_det_precision());
  }

 private:
  template <int = 0>
  Eigen::VectorXd one_plus_sigma2() const {
    return (1.0 + sigma2_.array()).matrix();
  }

  Eigen::VectorXd mean_;
  Eigen::MatrixXd u_;
  Eigen::VectorXd d_;
  Eigen::VectorXd inv_sqrt_d_;  // D^{-1/2}
  Eigen::MatrixXd vq_;          // VQ, P×L
  Eigen::VectorXd sigma2_;      // σ², the eigenvalues of VᵀV
};

}  // namespace ngvi::vi
