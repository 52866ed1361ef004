// Exact moments of a natural-gradient method's mean iterates on a linear-Gaussian model, the
// reference for "with Monte-Carlo samples and decaying step sizes the estimates converge".
//
// On Bayesian linear regression (Λ = A + δI, A = τΦᵀΦ, μ* = Λ⁻¹τΦᵀy) with the full batch, the
// gradient at a sample is linear in it: N ĝ(θ) + δμ = Λ(μ − μ*) + A(θ − μ). Once the curvature is
// exact (after a first β = 1 step; the Hessian, GGN and its diagonal do not depend on θ here), VON
// and VOGN update the mean as
//   e_t = (I − α_t K Λ) e_{t−1} − α_t K A η_t,   e_t = μ_t − μ*,   η_t ~ N(0, Σ_t / S),
// with K the inverse of the preconditioner (Λ⁻¹ for full covariance, diag(Λ)⁻¹ for mean field),
// Σ_t the covariance of q at the start of step t (Σ₁ that of the initial q, then K) and S the
// Monte-Carlo samples averaged per step. The noise is Gaussian and independent across steps, so
// e_T is Gaussian with the mean and covariance propagated below — exact, no asymptotics — and a
// run's μ_T can be checked component-wise with NGVI_CHECK_MC against μ* + E[e_T] with standard
// error √Cov(e_T)ⱼⱼ.
#pragma once

#include <Eigen/Core>

#include <inference/schedule.hpp>

namespace ngvi::test {

struct IterateMoments {
  Eigen::VectorXd mean;        // E[μ_T − μ*]
  Eigen::MatrixXd covariance;  // Cov[μ_T]
};

// Cost: O(T·P³).
inline IterateMoments linear_gaussian_iterate_moments(
    const Eigen::MatrixXd& lambda, const Eigen::MatrixXd& a, const Eigen::MatrixXd& k,
    const Eigen::MatrixXd& sigma_first, const Eigen::VectorXd& e0, const ngvi::vi::Schedule& alpha,
    Eigen::Index steps, int samples) {
  const Eigen::Index p = lambda.rows();
  IterateMoments m{e0, Eigen::MatrixXd::Zero(p, p)};
  const Eigen::MatrixXd ka = k * a;
  for (Eigen::Index t = 1; t <= steps; ++t) {
    const double at = alpha.at(t);
    const Eigen::MatrixXd contraction = Eigen::MatrixXd::Identity(p, p) - at * k * lambda;
    const Eigen::MatrixXd& sigma = t == 1 ? sigma_first : k;
    m.mean = contraction * m.mean;
    m.covariance = contraction * m.covariance * contraction.transpose() +
                   (at * at / samples) * ka * sigma * ka.transpose();
  }
  return m;
}

}  // namespace ngvi::test
