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
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>

namespace ngvi::nn {

class BernoulliLogit : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "bernoulli_logit";

  explicit BernoulliLogit(int dim = 1) : LikelihoodBase("BernoulliLogit", dim, dim), dim_(dim) {}

  // Cost: O(d); one statement per output.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    T total(0.0);
    for (int k = 0; k < dim_; ++k) total += ad::log1p_exp(f(k)) - y(k) * f(k);
    return total;
  }

  // Σ over rows. Cost: O(B·d); on Var three fused entries (softplus node, sum, dot).
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    return T(ad::sum(ad::log1p_exp(F)) - ad::dot(F, Y));
  }

  // diag(σ(f)(1 − σ(f))).
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    return output_fisher(f);
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    check_output("output_fisher", f.size());
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(dim_, dim_);
    for (int k = 0; k < dim_; ++k) {
      const double p = ad::logistic(f(k));
      H(k, k) = p * (1.0 - p);
    }
    return H;
  }

  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    check_output("sample_target", f.size());
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k)
      y(k) = boost::random::bernoulli_distribution<double>(ad::logistic(f(k)))(rng) ? 1.0 : 0.0;
    return y;
  }
  // P(y = 1) = σ(f).
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    return f.unaryExpr([](double x) { return ad::logistic(x); });
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    check_target_values(
        Y, [](double y) { return y == 0.0 || y == 1.0; }, "0 or 1");
  }

 private:
  int dim_;
};

}  // namespace ngvi::nn
