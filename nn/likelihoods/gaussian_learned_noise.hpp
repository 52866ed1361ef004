// GaussianLearnedNoise: y ~ N(f, τ⁻¹ I) with the noise precision learned as s = log τ.
//
// s is a parameter block of θ named "log_precision" (1×1), placed after the network's blocks
// and initialised to log(initial_precision). Supervised appends it to the network output, so
// the likelihood sees f = [μ (d entries); s] and
//   ℓ(f, y) = d/2·log(2π) − d/2·s + e^s/2·‖y − μ‖².
// Working on the log scale keeps τ positive without constraints and makes s a plain
// real-valued coordinate for Gaussian posteriors over θ. The exact ∂²ℓ/∂f² has the cross
// term −τ(y − μ) and is indefinite whenever y ≠ μ (for d = 1 its determinant is
// −τ²(y − μ)²/2); output_fisher, diag(τ, …, τ, d/2), is its PSD expectation over y.
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

class GaussianLearnedNoise : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "gaussian_learned_noise";
  static constexpr const char* block_name = "log_precision";

  explicit GaussianLearnedNoise(double initial_precision = 1.0, int dim = 1)
      : LikelihoodBase("GaussianLearnedNoise", dim + 1, dim, 1),
        tau0_(initial_precision),
        dim_(dim) {
    if (!(initial_precision > 0.0) || !std::isfinite(initial_precision))
      throw std::invalid_argument(
          "ngvi::nn::GaussianLearnedNoise: initial precision must be positive and finite, got " +
          std::to_string(initial_precision));
  }

  void add_parameter_blocks(ParameterLayout& layout) const { layout.add(block_name, 1, 1); }
  void init_parameters(Eigen::VectorXd& theta, const ParameterLayout& layout) const {
    theta(layout.block(block_name).offset) = std::log(tau0_);
  }

  // Cost: O(d).
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    using std::exp;
    T ss(0.0);
    for (int k = 0; k < dim_; ++k) ss += ad::square(f(k) - y(k));
    const T& s = f(dim_);
    return T(dim_ * detail::half_log_2pi - (0.5 * dim_) * s + 0.5 * exp(s) * ss);
  }

  // Σ over rows of F = [M | s] (B×(d+1)). Cost: O(B·d); on Var a handful of fused entries
  // for d = 1, one recording per row otherwise.
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    if (dim_ != 1) return detail::sum_of_rows(*this, F, Y);
    const auto m = F.col(0);
    const auto s = F.col(1);
    const Eigen::VectorXd yv = Y.col(0);
    const auto r2 = ad::square(ad::cwise_difference(m, yv));
    const double c = static_cast<double>(F.rows()) * detail::half_log_2pi;
    return T(c - 0.5 * ad::sum(s) + 0.5 * ad::dot(ad::exp(s), r2));
  }

  // With r = y − μ and τ = e^s: ∂²ℓ/∂μ² = τI, ∂²ℓ/∂μ∂s = −τr, ∂²ℓ/∂s² = τ/2·‖r‖².
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    const double tau = std::exp(f(dim_));
    const Eigen::VectorXd r = y - f.head(dim_);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(dim_ + 1, dim_ + 1);
    H.topLeftCorner(dim_, dim_).diagonal().setConstant(tau);
    H.col(dim_).head(dim_) = -tau * r;
    H.row(dim_).head(dim_) = -tau * r.transpose();
    H(dim_, dim_) = 0.5 * tau * r.squaredNorm();
    return H;
  }
  // E_y of output_hessian: diag(τ, …, τ, d/2).
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    check_output("output_fisher", f.size());
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(dim_ + 1, dim_ + 1);
    H.topLeftCorner(dim_, dim_).diagonal().setConstant(std::exp(f(dim_)));
    H(dim_, dim_) = 0.5 * dim_;
    return H;
  }

  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    check_output("sample_target", f.size());
    boost::random::normal_distribution<double> normal(0.0, std::exp(-0.5 * f(dim_)));
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k) y(k) = f(k) + normal(rng);
    return y;
  }
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    return f.head(dim_);
  }
  // Var[y | f] per output: e^{−s}, the inverse of the learned precision.
  Eigen::VectorXd predictive_variance(const Eigen::VectorXd& f) const {
    check_output("predictive_variance", f.size());
    return Eigen::VectorXd::Constant(dim_, std::exp(-f(dim_)));
  }
  void check_targets(const Eigen::MatrixXd& Y) const { check_finite_targets(Y); }

 private:
  double tau0_;
  int dim_;
};

}  // namespace ngvi::nn
