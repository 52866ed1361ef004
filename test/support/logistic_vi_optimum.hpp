// The Gaussian-VI optimum of 2-D logistic regression
// (inference/problems/logistic_regression_2d.hpp) by a test-side route, for the VON and SLANG
// tests: Gauss–Hermite quadrature (nodes by Golub–Welsch) of the moments of the summed loss under
// q, and the exact-expectation VON iteration run to convergence on them (full covariance or mean
// field).
#pragma once

#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <inference/problems/logistic_regression_2d.hpp>

namespace ngvi::test {

// ---- Gauss–Hermite quadrature for 2-D Gaussian expectations -------------------------------------

// Probabilists' Gauss–Hermite rule (E_{z~N(0,1)} f(z) ≈ Σ wᵢ f(zᵢ)) by Golub–Welsch: the nodes are
// the eigenvalues of the Jacobi matrix of the monic Hermite recurrence (off-diagonals √k), the
// weights the squared first components of its unit eigenvectors.
struct HermiteRule {
  Eigen::VectorXd nodes, weights;
};
inline HermiteRule gauss_hermite(int n) {
  Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n, n);
  for (int k = 1; k < n; ++k) j(k, k - 1) = j(k - 1, k) = std::sqrt(static_cast<double>(k));
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(j);
  return {eig.eigenvalues(), eig.eigenvectors().row(0).transpose().array().square()};
}
inline constexpr int kNodes =
    40;  // per dimension; the integrands are analytic, so this is converged

// Moments of the summed logistic loss L(θ) = Σᵢ ℓᵢ(θ) under q = N(μ, C Cᵀ): E[∇L], E[∇²L], and
// the covariance of ∇L and the variance of each entry of ∇²L (for Monte-Carlo standard errors).
struct LossMoments {
  Eigen::VectorXd grad;
  Eigen::MatrixXd hess;
  Eigen::MatrixXd grad_cov;
  Eigen::MatrixXd hess_var;
};
inline LossMoments logistic_moments(const vi::problems::LogisticRegression2d& p,
                                    const Eigen::VectorXd& mu, const Eigen::MatrixXd& c) {
  static const HermiteRule rule = gauss_hermite(kNodes);
  LossMoments m{Eigen::VectorXd::Zero(2), Eigen::MatrixXd::Zero(2, 2), Eigen::MatrixXd::Zero(2, 2),
                Eigen::MatrixXd::Zero(2, 2)};
  Eigen::MatrixXd h2 = Eigen::MatrixXd::Zero(2, 2);
  for (int a = 0; a < kNodes; ++a)
    for (int b = 0; b < kNodes; ++b) {
      const double w = rule.weights(a) * rule.weights(b);
      const Eigen::VectorXd theta =
          mu + c * (Eigen::VectorXd(2) << rule.nodes(a), rule.nodes(b)).finished();
      Eigen::VectorXd g = Eigen::VectorXd::Zero(2);
      Eigen::MatrixXd h = Eigen::MatrixXd::Zero(2, 2);
      for (Eigen::Index i = 0; i < p.inputs.size(); ++i) {
        const Eigen::VectorXd phi = (Eigen::VectorXd(2) << p.inputs(i), 1.0).finished();
        const double s = 1.0 / (1.0 + std::exp(-phi.dot(theta)));
        g += (s - p.labels(i)) * phi;
        h += s * (1.0 - s) * phi * phi.transpose();
      }
      m.grad += w * g;
      m.hess += w * h;
      m.grad_cov += w * g * g.transpose();
      h2 += w * h.cwiseAbs2();
    }
  m.grad_cov -= m.grad * m.grad.transpose();
  m.hess_var = h2 - m.hess.cwiseAbs2();
  return m;
}

// The Gaussian-VI optimum of the logistic problem by the exact-expectation VON iteration
// Λ ← E_q[∇²L] + δI, μ ← μ − Λ⁻¹(E_q[∇L] + δμ) (mean field: diagonals only), run to convergence.
struct ViOptimum {
  Eigen::VectorXd mean;
  Eigen::MatrixXd precision;  // full 2×2; diagonal for the mean-field optimum
};
inline ViOptimum logistic_vi_optimum(const vi::problems::LogisticRegression2d& p, bool mean_field) {
  const double delta = p.prior_precision;
  ViOptimum q{Eigen::VectorXd::Zero(2),
              (p.inputs.size() + delta) * Eigen::MatrixXd::Identity(2, 2)};
  for (int it = 0; it < 500; ++it) {
    const Eigen::MatrixXd c =
        Eigen::LLT<Eigen::MatrixXd>(q.precision).matrixU().solve(Eigen::MatrixXd::Identity(2, 2));
    const LossMoments m = logistic_moments(p, q.mean, c);
    Eigen::MatrixXd lambda = m.hess + delta * Eigen::MatrixXd::Identity(2, 2);
    if (mean_field) lambda = Eigen::MatrixXd(lambda.diagonal().asDiagonal());
    const Eigen::VectorXd mean = q.mean - lambda.ldlt().solve(m.grad + delta * q.mean);
    const double change = (mean - q.mean).norm() + (lambda - q.precision).norm();
    q = {mean, lambda};
    if (change < 1e-13) break;
  }
  return q;
}

}  // namespace ngvi::test
