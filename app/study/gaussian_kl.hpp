// The Kullback–Leibler divergence between two multivariate Gaussians: the distance of a method's
// q from a full-covariance reference in the study's findings (sample_size_study.hpp, and noisy
// K-FAC against noisy Adam in study_verdicts.cpp).
//
//   KL(N(μ₀, Σ₀) ‖ N(μ₁, Σ₁)) = ½ [tr(Σ₁⁻¹Σ₀) + (μ₁ − μ₀)ᵀΣ₁⁻¹(μ₁ − μ₀) − P + log det Σ₁ − log det
//   Σ₀]
//
// in closed form, computed through the Cholesky factors of Σ₀ and Σ₁, never an inverse.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

namespace ngvi::app::study {

// Throws std::invalid_argument naming the argument when the sizes differ or a covariance is not
// symmetric positive definite. Cost: two P×P Cholesky factorisations and a triangular solve
// with P right-hand sides, O(P³).
inline double gaussian_kl(const Eigen::VectorXd& mean0, const Eigen::MatrixXd& covariance0,
                          const Eigen::VectorXd& mean1, const Eigen::MatrixXd& covariance1) {
  const Eigen::Index p = mean0.size();
  if (mean1.size() != p || covariance0.rows() != p || covariance0.cols() != p ||
      covariance1.rows() != p || covariance1.cols() != p)
    throw std::invalid_argument(fmt::format(
        "ngvi::app::study::gaussian_kl: mean0 has {} entries, covariance0 is {}×{}, mean1 has {}, "
        "covariance1 is {}×{} (need P, P×P, P, P×P)",
        p, covariance0.rows(), covariance0.cols(), mean1.size(), covariance1.rows(),
        covariance1.cols()));
  const Eigen::LLT<Eigen::MatrixXd> l0(covariance0), l1(covariance1);
  if (l0.info() != Eigen::Success || !covariance0.allFinite())
    throw std::invalid_argument(
        "ngvi::app::study::gaussian_kl: covariance0 is not symmetric positive definite");
  if (l1.info() != Eigen::Success || !covariance1.allFinite())
    throw std::invalid_argument(
        "ngvi::app::study::gaussian_kl: covariance1 is not symmetric positive definite");
  // With Σ₁ = L₁L₁ᵀ and Σ₀ = L₀L₀ᵀ: tr(Σ₁⁻¹Σ₀) = ‖L₁⁻¹L₀‖_F², the Mahalanobis term ‖L₁⁻¹(μ₁ −
  // μ₀)‖².
  const Eigen::MatrixXd a = l1.matrixL().solve(Eigen::MatrixXd(l0.matrixL()));
  const Eigen::VectorXd d = l1.matrixL().solve(mean1 - mean0);
  const double log_det1 = 2.0 * Eigen::MatrixXd(l1.matrixL()).diagonal().array().log().sum();
  const double log_det0 = 2.0 * Eigen::MatrixXd(l0.matrixL()).diagonal().array().log().sum();
  return 0.5 * (a.squaredNorm() + d.squaredNorm() - static_cast<double>(p) + log_det1 - log_det0);
}

}  // namespace ngvi::app::study
