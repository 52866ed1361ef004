// HeteroscedasticGaussian: y ~ N(μ(x), diag(exp(v(x)))): the network predicts the mean and
// the log-variance of each of d outputs.
//
// f = [μ (d entries); v (d entries)] (so the network has 2d outputs, means first), and
//   ℓ(f, y) = Σₖ ½log(2π) + ½vₖ + ½(yₖ − μₖ)² e^{−vₖ}.
// The log-variance keeps the variance positive with an unconstrained output. The exact
// ∂²ℓ/∂f² is indefinite whenever y ≠ μ (cross term (y − μ)e^{−v}); output_fisher,
// diag(e^{−v}, ½), is its PSD expectation over y.
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Eigen/Core>
#include <boost/random/normal_distribution.hpp>

#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>

namespace ngvi::nn {

class HeteroscedasticGaussian : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "heteroscedastic_gaussian";

  explicit HeteroscedasticGaussian(int dim = 1)
      : LikelihoodBase("HeteroscedasticGaussian", 2 * dim, dim), dim_(dim) {}

  // Cost: O(d); one statement per output.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    using std::exp;
    T total(dim_ * detail::half_log_2pi);
    for (int k = 0; k < dim_; ++k)
      total += 0.5 * f(dim_ + k) + 0.5 * ad::square(f(k) - y(k)) * exp(-f(dim_ + k));
    return total;
  }

  // Σ over rows. Cost: B per-example recordings (2 statements each) and one sum.
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    return detail::sum_of_rows(*this, F, Y);
  }

  // Per output k, with r = y − μ and λ = e^{−v}: [[λ, rλ], [rλ, r²λ/2]] on (μₖ, vₖ).
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(2 * dim_, 2 * dim_);
    for (int k = 0; k < dim_; ++k) {
      const double lambda = std::exp(-f(dim_ + k)), r = y(k) - f(k);
      H(k, k) = lambda;
      H(k, dim_ + k) = H(dim_ + k, k) = r * lambda;
      H(dim_ + k, dim_ + k) = 0.5 * r * r * lambda;
    }
    return H;
  }
  // E_y of output_hessian: diag(e^{−v}, ½).
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    check_output("output_fisher", f.size());
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(2 * dim_, 2 * dim_);
    for (int k = 0; k < dim_; ++k) {
      H(k, k) = std::exp(-f(dim_ + k));
      H(dim_ + k, dim_ + k) = 0.5;
    }
    return H;
  }

  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    check_output("sample_target", f.size());
    boost::random::normal_distribution<double> normal(0.0, 1.0);
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k) y(k) = f(k) + std::exp(0.5 * f(dim_ + k)) * normal(rng);
    return y;
  }
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    return f.head(dim_);
  }
  // Var[y | f] per output: e^{vₖ}, the predicted variance.
  Eigen::VectorXd predictive_variance(const Eigen::VectorXd& f) const {
    check_output("predictive_variance", f.size());
    return f.tail(dim_).array().exp().matrix();
  }
  void check_targets(const Eigen::MatrixXd& Y) const { check_finite_targets(Y); }

 private:
  int dim_;
};

}  // namespace ngvi::nn
