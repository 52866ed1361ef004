// StudentT: y ~ t_ν(f, τ⁻¹) per output — a location-scale Student-t with ν degrees of freedom,
// location f and scale σ = 1/√τ — for regression whose residuals have heavier tails than a
// Gaussian's.
//
// With r = y − f and a = τ/ν, for d independent outputs,
//   ℓ(f, y) = Σₖ c + (ν + 1)/2·log(1 + a·rₖ²),
//   c = log Γ(ν/2) − log Γ((ν + 1)/2) + ½log(νπ) − ½log τ.
// τ plays the role of GaussianFixedNoise's precision (as ν → ∞ the density tends to N(f, τ⁻¹)),
// but the variance is ν/((ν − 2)τ), finite only for ν > 2. Large residuals cost O(log r²)
// instead of O(r²), so a few outliers neither drag the fit nor, in a predictive, make every other
// prediction wider. The exact ∂²ℓ/∂f² = (ν + 1)·a·(1 − a r²)/(1 + a r²)² is negative where
// a r² > 1 (the loss is not convex in f); output_fisher, (ν + 1)/(ν + 3)·τ, is its PSD
// expectation over y.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Eigen/Core>
#include <boost/random/student_t_distribution.hpp>

#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>

namespace ngvi::nn {

class StudentT : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "student_t";

  // precision τ > 0 (the scale is 1/√τ), degrees of freedom ν > 0; dim = number of outputs d
  // (independent, each with the same τ and ν).
  explicit StudentT(double precision = 1.0, double degrees_of_freedom = 4.0, int dim = 1)
      : LikelihoodBase("StudentT", dim, dim), tau_(precision), nu_(degrees_of_freedom), dim_(dim) {
    if (!(precision > 0.0) || !std::isfinite(precision))
      throw std::invalid_argument(
          "ngvi::nn::StudentT: precision must be positive and finite, got " +
          std::to_string(precision));
    if (!(degrees_of_freedom > 0.0) || !std::isfinite(degrees_of_freedom))
      throw std::invalid_argument(
          "ngvi::nn::StudentT: degrees_of_freedom must be positive and finite, got " +
          std::to_string(degrees_of_freedom));
    constant_ = std::lgamma(0.5 * nu_) - std::lgamma(0.5 * (nu_ + 1.0)) +
                0.5 * std::log(nu_ * std::numbers::pi) - 0.5 * std::log(tau_);
  }

  double precision() const { return tau_; }
  double degrees_of_freedom() const { return nu_; }

  // Cost: O(d); two statements per output.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    using std::log1p;
    T total(dim_ * constant_);
    for (int k = 0; k < dim_; ++k)
      total += (0.5 * (nu_ + 1.0)) * log1p((tau_ / nu_) * ad::square(f(k) - y(k)));
    return total;
  }

  // Σ over rows. Cost: B per-example recordings and one sum.
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    return detail::sum_of_rows(*this, F, Y);
  }

  // Diagonal, (ν + 1)·a·(1 − a rₖ²)/(1 + a rₖ²)² with a = τ/ν: indefinite where a rₖ² > 1.
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    const double a = tau_ / nu_;
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(dim_, dim_);
    for (int k = 0; k < dim_; ++k) {
      const double ar2 = a * (y(k) - f(k)) * (y(k) - f(k));
      H(k, k) = (nu_ + 1.0) * a * (1.0 - ar2) / ((1.0 + ar2) * (1.0 + ar2));
    }
    return H;
  }
  // E_y of output_hessian: (ν + 1)/(ν + 3)·τ I.
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    check_output("output_fisher", f.size());
    return ((nu_ + 1.0) / (nu_ + 3.0) * tau_) * Eigen::MatrixXd::Identity(dim_, dim_);
  }

  // f + t/√τ, t ~ Student-t with ν degrees of freedom. Cost: d Student-t draws.
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    check_output("sample_target", f.size());
    boost::random::student_t_distribution<double> t(nu_);
    const double scale = 1.0 / std::sqrt(tau_);
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k) y(k) = f(k) + scale * t(rng);
    return y;
  }
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    return f;
  }
  // Var[y | f] per output: ν/((ν − 2)τ) for ν > 2, +∞ otherwise. (The regression predictive
  // reports it; its log-likelihood and RMSE do not use it.)
  Eigen::VectorXd predictive_variance(const Eigen::VectorXd& f) const {
    check_output("predictive_variance", f.size());
    return Eigen::VectorXd::Constant(
        dim_, nu_ > 2.0 ? nu_ / ((nu_ - 2.0) * tau_) : std::numeric_limits<double>::infinity());
  }
  void check_targets(const Eigen::MatrixXd& Y) const { check_finite_targets(Y); }

 private:
  double tau_;
  double nu_;
  double constant_;  // the per-output c of the header comment
  int dim_;
};

}  // namespace ngvi::nn
