// GaussianFixedNoise: y ~ N(f, τ⁻¹ I) with a known noise precision τ.
//
// ℓ(f, y) = d/2·log(2π) − d/2·log τ + τ/2·‖y − f‖² for d outputs. The Gauss-Newton matrix of
// this likelihood is exact for linear models (H_L = τI does not depend on y), which is why it
// is the reference case for checking GGN code. With τ = 1 the gradient is that of the peers'
// ½Σ(y − f)² workloads.
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Eigen/Core>
#include <boost/random/normal_distribution.hpp>

#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>

namespace ngvi::nn {

class GaussianFixedNoise : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "gaussian_fixed_noise";

  // precision τ > 0; dim = number of outputs d (independent, each with precision τ).
  explicit GaussianFixedNoise(double precision = 1.0, int dim = 1)
      : LikelihoodBase("GaussianFixedNoise", dim, dim), tau_(precision), dim_(dim) {
    if (!(precision > 0.0) || !std::isfinite(precision))
      throw std::invalid_argument(
          "ngvi::nn::GaussianFixedNoise: precision must be positive and finite, got " +
          std::to_string(precision));
  }

  double precision() const { return tau_; }

  // Cost: O(d); one tape statement per output.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    T total(dim_ * constant());
    for (int k = 0; k < dim_; ++k) total += (0.5 * tau_) * ad::square(f(k) - y(k));
    return total;
  }

  // Σ over rows. Cost: O(B·d); on Var two fused entries (difference node, squared norm).
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    const double c = static_cast<double>(F.rows()) * dim_ * constant();
    return T(c + (0.5 * tau_) * ad::squared_norm(ad::cwise_difference(F, Y)));
  }

  // τ I. Cost: O(d²).
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    return tau_ * Eigen::MatrixXd::Identity(dim_, dim_);
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    check_output("output_fisher", f.size());
    return tau_ * Eigen::MatrixXd::Identity(dim_, dim_);
  }

  // f + ε/√τ, ε ~ N(0, I). Cost: d normal draws.
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    check_output("sample_target", f.size());
    boost::random::normal_distribution<double> normal(0.0, 1.0 / std::sqrt(tau_));
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k) y(k) = f(k) + normal(rng);
    return y;
  }
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    return f;
  }
  // Var[y | f] per output: 1/τ, whatever f is (the noise of a regression predictive).
  Eigen::VectorXd predictive_variance(const Eigen::VectorXd& f) const {
    check_output("predictive_variance", f.size());
    return Eigen::VectorXd::Constant(dim_, 1.0 / tau_);
  }
  void check_targets(const Eigen::MatrixXd& Y) const { check_finite_targets(Y); }

 private:
  // The per-output constant ½log(2π) − ½log τ.
  double constant() const { return detail::half_log_2pi - 0.5 * std::log(tau_); }

  double tau_;
  int dim_;
};

}  // namespace ngvi::nn
