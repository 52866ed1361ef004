// What an approximation A of the Hessian does to the posterior built from it: the curvature
// study (run_method.hpp's ApproximationTracker) reports, besides ‖A − H‖_F / ‖H‖_F and the
// spectra, two errors that matter for a Laplace-type posterior N(θ, (A + δI)⁻¹) at the point θ,
// against the one from the exact Hessian H of Σᵢℓᵢ, N(θ, (H + δI)⁻¹), where H + δI is positive
// definite (Martens 2020; Kunstner, Balles & Hennig 2019; Immer, Korzepa & Bauer 2021 for the
// linearised predictive):
//
//   KL(N(θ, (A + δI)⁻¹) ‖ N(θ, (H + δI)⁻¹))
//       = ½ [tr((H + δI)(A + δI)⁻¹) − P − log det(H + δI) + log det(A + δI)],
//
//   the linearised (GLM) predictive variance of the network output f(x) at inputs xₖ,
//   σ²(xₖ) = Jₖ (A + δI)⁻¹ Jₖᵀ with Jₖ = ∂f(xₖ)/∂θ, as the mean over k of log σ²_A(xₖ) − log
//   σ²_H(xₖ) (0: the same variances; < 0: A's posterior is too narrow in function space).
//
// Where H + δI is not positive definite (a non-convex point) neither exists: the study reports NaN
// there. Both are computed through Cholesky factors, never an inverse.
#pragma once

#include <limits>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

namespace ngvi::app::study {

// The exact Hessian's side, computed once per point and shared by every approximation: H + δI
// and its Cholesky factor (`positive_definite` false when it has none), and Jᵀ's columns solved
// against it, giving σ²_H at each input.
class HessianPosterior {
 public:
  // h: the exact Hessian of Σᵢℓᵢ (P×P); delta: the prior precision δ > 0; jacobians: K×P, the
  // rows Jₖ. Throws std::invalid_argument naming the sizes when they disagree. Cost: one P×P
  // Cholesky factorisation and K triangular solves, O(P³ + KP²).
  HessianPosterior(const Eigen::MatrixXd& h, double delta, const Eigen::MatrixXd& jacobians)
      : precision_(h), jacobians_(jacobians) {
    if (h.rows() != h.cols() || jacobians.cols() != h.rows() || !(delta > 0.0))
      throw std::invalid_argument(fmt::format(
          "ngvi::app::study::HessianPosterior: h is {}×{} and the jacobians {}×{} (need P×P and "
          "K×P), delta = {} (need > 0)",
          h.rows(), h.cols(), jacobians.rows(), jacobians.cols(), delta));
    precision_.diagonal().array() += delta;
    delta_ = delta;
    llt_.compute(precision_);
    positive_definite_ = llt_.info() == Eigen::Success && precision_.allFinite();
    if (positive_definite_) {
      factor_ = llt_.matrixL();
      log_det_ = 2.0 * factor_.diagonal().array().log().sum();
      log_variance_ = column_log_variances(llt_, jacobians_);
    }
  }

  bool positive_definite() const { return positive_definite_; }

  struct Errors {
    // KL(N(θ, (A + δI)⁻¹) ‖ N(θ, (H + δI)⁻¹))
    double kl = std::numeric_limits<double>::quiet_NaN();
    // the mean over the inputs of log σ²_A(xₖ) − log σ²_H(xₖ) (NaN without inputs)
    double log_variance_ratio = std::numeric_limits<double>::quiet_NaN();
  };

  // Both errors of the approximation a (P×P, symmetric positive semi-definite); NaN when H + δI
  // or A + δI is not positive definite. Cost: one Cholesky factorisation of A + δI (P³/3 flops)
  // and triangular solves with P + K right-hand sides (P³ + KP²).
  Errors errors(const Eigen::MatrixXd& a) const {
    if (a.rows() != precision_.rows() || a.cols() != precision_.cols())
      throw std::invalid_argument(
          fmt::format("ngvi::app::study::HessianPosterior: the approximation is {}×{}, the "
                      "Hessian {}×{}",
                      a.rows(), a.cols(), precision_.rows(), precision_.cols()));
    Errors e;
    if (!positive_definite_) return e;
    Eigen::MatrixXd pa = a;
    pa.diagonal().array() += delta_;
    const Eigen::LLT<Eigen::MatrixXd> la(pa);
    if (la.info() != Eigen::Success || !pa.allFinite()) return e;
    // tr((H + δI)(A + δI)⁻¹) = ‖L_A⁻¹ L_H‖_F², with A + δI = L_A L_Aᵀ and H + δI = L_H L_Hᵀ.
    const double trace = la.matrixL().solve(factor_).squaredNorm();
    const double log_det_a = 2.0 * la.matrixLLT().diagonal().array().log().sum();
    const double p = static_cast<double>(a.rows());
    e.kl = 0.5 * (trace - p - log_det_ + log_det_a);
    if (jacobians_.rows() > 0)
      e.log_variance_ratio = (column_log_variances(la, jacobians_) - log_variance_).mean();
    return e;
  }

 private:
  // log(Jₖ Σ Jₖᵀ) = log ‖L⁻¹Jₖᵀ‖² per row k, Σ⁻¹ = LLᵀ.
  static Eigen::VectorXd column_log_variances(const Eigen::LLT<Eigen::MatrixXd>& llt,
                                              const Eigen::MatrixXd& jacobians) {
    const Eigen::MatrixXd z = llt.matrixL().solve(Eigen::MatrixXd(jacobians.transpose()));
    return z.colwise().squaredNorm().transpose().array().log().matrix();
  }

  Eigen::MatrixXd precision_;  // H + δI
  Eigen::MatrixXd jacobians_;
  double delta_ = 0.0;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::MatrixXd factor_;  // L_H, lower triangular
  bool positive_definite_ = false;
  double log_det_ = 0.0;
  Eigen::VectorXd log_variance_;
};

}  // namespace ngvi::app::study
