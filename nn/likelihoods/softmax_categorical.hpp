// SoftmaxCategorical: y ∈ {0, …, K−1} with P(y = c) = softmax(f)_c, f the K logits.
//
// The target is the class INDEX stored as a 1-vector (y = (c)), not a one-hot vector: it is
// what data files hold, and it makes target_dim() = 1 whatever K is. Values must be exact
// integers in [0, K).  ℓ(f, y) = log Σⱼ e^{fⱼ} − f_c, computed stably. Canonical link:
// ∂²ℓ/∂f² = diag(p) − p pᵀ with p = softmax(f), independent of y (rank K−1, PSD).
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <boost/random/discrete_distribution.hpp>

#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>

namespace ngvi::nn {

class SoftmaxCategorical : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "softmax_categorical";

  explicit SoftmaxCategorical(int num_classes)
      : LikelihoodBase("SoftmaxCategorical", num_classes, 1), k_(num_classes) {
    if (num_classes < 2)
      throw std::invalid_argument("ngvi::nn::SoftmaxCategorical: need at least 2 classes, got " +
                                  std::to_string(num_classes));
  }

  int num_classes() const { return k_; }

  // Cost: O(K); two statements (log-sum-exp, difference).
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    const T lse = ad::log_sum_exp(f);
    return T(lse - f(class_of(y(0))));
  }

  // Σᵢ (log Σⱼ e^{Fᵢⱼ} − F(i, cᵢ)) = Σ rowwise_log_sum_exp(F) − ⟨F, one-hot(Y)⟩. Throws
  // std::invalid_argument naming the row of a target that is not a class index.
  // Cost: O(B·K); on the tape three fused entries (row log-sum-exps, their sum, the dot).
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    Eigen::MatrixXd one_hot = Eigen::MatrixXd::Zero(F.rows(), k_);
    for (Eigen::Index i = 0; i < Y.rows(); ++i) one_hot(i, class_of(Y(i, 0), i)) = 1.0;
    return T(ad::sum(ad::rowwise_log_sum_exp(F)) - ad::dot(F, one_hot));
  }

  // diag(p) − p pᵀ.
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    return output_fisher(f);
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    const Eigen::VectorXd p = predictive_mean(f);
    Eigen::MatrixXd H = -p * p.transpose();
    H.diagonal() += p;
    return H;
  }

  // A class index c ~ Categorical(softmax(f)), as a 1-vector.
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    const Eigen::VectorXd p = predictive_mean(f);
    boost::random::discrete_distribution<int, double> dist(p.data(), p.data() + p.size());
    return Eigen::VectorXd::Constant(1, static_cast<double>(dist(rng)));
  }
  // The class probabilities softmax(f) (K entries).
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    const Eigen::VectorXd e = (f.array() - f.maxCoeff()).exp().matrix();
    return e / e.sum();
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    check_target_values(
        Y, [this](double c) { return is_class(c); }, "a class index 0.." + std::to_string(k_ - 1));
  }

 private:
  bool is_class(double c) const { return c >= 0.0 && c < k_ && std::floor(c) == c; }
  // row: the target's row in a batch (0 for nll's single example).
  Eigen::Index class_of(double c, Eigen::Index row = 0) const {
    if (!is_class(c))
      throw std::invalid_argument(detail::target_error(
          "SoftmaxCategorical::nll", row, 0, c, "a class index 0.." + std::to_string(k_ - 1)));
    return static_cast<Eigen::Index>(c);
  }

  int k_;
};

}  // namespace ngvi::nn
