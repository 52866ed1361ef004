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

#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>

namespace ngvi::nn {

class SoftmaxCategorical {
 public:
  static constexpr std::string_view name = "softmax_categorical";

  explicit SoftmaxCategorical(int num_classes) : k_(num_classes) {
    if (num_classes < 2)
      throw std::invalid_argument("ngvi::nn::SoftmaxCategorical: need at least 2 classes, got " +
                                  std::to_string(num_classes));
  }

  int num_classes() const { return k_; }
  int output_dim() const { return k_; }
  int net_output_dim() const { return k_; }
  int num_params() const { return 0; }
  int target_dim() const { return 1; }
  void add_parameter_blocks(ParameterLayout&) const {}
  void init_parameters(Eigen::VectorXd&, const ParameterLayout&) const {}

  // Cost: O(K); two statements (log-sum-exp, difference).
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    detail::check_example_shapes("SoftmaxCategorical::nll", f.size(), y.size(), k_, 1);
    const T lse = ad::log_sum_exp(f);
    return T(lse - f(class_of(y(0))));
  }

  // Σ over rows. Cost: O(B·K); two statements per row and one sum.
  template <class T>
  T batch_nll(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& F,
              const Eigen::MatrixXd& Y) const {
    detail::check_batch_shapes("SoftmaxCategorical::batch_nll", F.rows(), F.cols(), Y.rows(),
                               Y.cols(), k_, 1);
    return detail::sum_of_rows(*this, F, Y);
  }

  // diag(p) − p pᵀ.
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    detail::check_example_shapes("SoftmaxCategorical::output_hessian", f.size(), y.size(), k_, 1);
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
    detail::check_example_shapes("SoftmaxCategorical::predictive_mean", f.size(), 1, k_, 1);
    const Eigen::VectorXd e = (f.array() - f.maxCoeff()).exp().matrix();
    return e / e.sum();
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    if (Y.cols() != 1)
      throw std::invalid_argument("ngvi::nn::SoftmaxCategorical: targets have " +
                                  std::to_string(Y.cols()) +
                                  " columns, expected 1 (the class index)");
    for (Eigen::Index i = 0; i < Y.rows(); ++i)
      if (!is_class(Y(i, 0)))
        throw std::invalid_argument(detail::target_error(
            "SoftmaxCategorical", i, 0, Y(i, 0), "a class index 0.." + std::to_string(k_ - 1)));
  }

 private:
  bool is_class(double c) const { return c >= 0.0 && c < k_ && std::floor(c) == c; }
  Eigen::Index class_of(double c) const {
    if (!is_class(c))
      throw std::invalid_argument(detail::target_error(
          "SoftmaxCategorical::nll", 0, 0, c, "a class index 0.." + std::to_string(k_ - 1)));
    return static_cast<Eigen::Index>(c);
  }

  int k_;
};

}  // namespace ngvi::nn
