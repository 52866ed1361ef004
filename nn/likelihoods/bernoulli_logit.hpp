// BernoulliLogit: y ∈ {0, 1} with P(y = 1) = σ(f), f the logit (d independent outputs).
//
// ℓ(f, y) = Σₖ log(1 + e^{fₖ}) − yₖ fₖ, computed with log1p_exp so large |f| neither
// overflows nor loses digits. The logit is the canonical link, so ∂²ℓ/∂f² = σ(1 − σ) does
// not depend on y and the Gauss-Newton matrix equals the Fisher.
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Eigen/Core>
#include <boost/random/bernoulli_distribution.hpp>

#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>

namespace ngvi::nn {

class BernoulliLogit {
 public:
  static constexpr std::string_view name = "bernoulli_logit";

  explicit BernoulliLogit(int dim = 1) : dim_(dim) {
    if (dim < 1) throw std::invalid_argument("ngvi::nn::BernoulliLogit: dim must be >= 1");
  }

  int output_dim() const { return dim_; }
  int net_output_dim() const { return dim_; }
  int num_params() const { return 0; }
  int target_dim() const { return dim_; }
  void add_parameter_blocks(ParameterLayout&) const {}
  void init_parameters(Eigen::VectorXd&, const ParameterLayout&) const {}

  // Cost: O(d); one statement per output.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    detail::check_example_shapes("BernoulliLogit::nll", f.size(), y.size(), dim_, dim_);
    T total(0.0);
    for (int k = 0; k < dim_; ++k) total += ad::log1p_exp(f(k)) - y(k) * f(k);
    return total;
  }

  // Σ over rows. Cost: O(B·d); on Var three fused entries (softplus node, sum, dot).
  template <class T>
  T batch_nll(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& F,
              const Eigen::MatrixXd& Y) const {
    detail::check_batch_shapes("BernoulliLogit::batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols(),
                               dim_, dim_);
    return T(ad::sum(ad::log1p_exp(F)) - ad::dot(F, Y));
  }

  // diag(σ(f)(1 − σ(f))).
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    detail::check_example_shapes("BernoulliLogit::output_hessian", f.size(), y.size(), dim_, dim_);
    return output_fisher(f);
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    detail::check_example_shapes("BernoulliLogit::output_fisher", f.size(), dim_, dim_, dim_);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(dim_, dim_);
    for (int k = 0; k < dim_; ++k) {
      const double p = ad::logistic(f(k));
      H(k, k) = p * (1.0 - p);
    }
    return H;
  }

  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    detail::check_example_shapes("BernoulliLogit::sample_target", f.size(), dim_, dim_, dim_);
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k)
      y(k) = boost::random::bernoulli_distribution<double>(ad::logistic(f(k)))(rng) ? 1.0 : 0.0;
    return y;
  }
  // P(y = 1) = σ(f).
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    detail::check_example_shapes("BernoulliLogit::predictive_mean", f.size(), dim_, dim_, dim_);
    return f.unaryExpr([](double x) { return ad::logistic(x); });
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    if (Y.cols() != dim_)
      throw std::invalid_argument("ngvi::nn::BernoulliLogit: targets have " +
                                  std::to_string(Y.cols()) + " columns, expected " +
                                  std::to_string(dim_));
    for (Eigen::Index i = 0; i < Y.rows(); ++i)
      for (Eigen::Index j = 0; j < Y.cols(); ++j)
        if (Y(i, j) != 0.0 && Y(i, j) != 1.0)
          throw std::invalid_argument(
              detail::target_error("BernoulliLogit", i, j, Y(i, j), "0 or 1"));
  }

 private:
  int dim_;
};

}  // namespace ngvi::nn
