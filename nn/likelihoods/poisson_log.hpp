// PoissonLog: counts y ∈ {0, 1, 2, …} with rate e^f (log link, d independent outputs).
//
// ℓ(f, y) = Σₖ e^{fₖ} − yₖ fₖ + log(yₖ!), the last term included so log-likelihoods are
// complete. Canonical link: ∂²ℓ/∂f² = diag(e^f), independent of y.
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Eigen/Core>
#include <boost/random/poisson_distribution.hpp>

#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>

namespace ngvi::nn {

class PoissonLog {
 public:
  static constexpr std::string_view name = "poisson_log";

  explicit PoissonLog(int dim = 1) : dim_(dim) {
    if (dim < 1) throw std::invalid_argument("ngvi::nn::PoissonLog: dim must be >= 1");
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
    detail::check_example_shapes("PoissonLog::nll", f.size(), y.size(), dim_, dim_);
    using std::exp;
    T total(0.0);
    for (int k = 0; k < dim_; ++k) total += exp(f(k)) - y(k) * f(k) + std::lgamma(y(k) + 1.0);
    return total;
  }

  // Σ over rows. Cost: O(B·d); on Var three fused entries (exp node, sum, dot).
  template <class T>
  T batch_nll(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& F,
              const Eigen::MatrixXd& Y) const {
    detail::check_batch_shapes("PoissonLog::batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols(),
                               dim_, dim_);
    double c = 0.0;
    for (Eigen::Index j = 0; j < Y.cols(); ++j)
      for (Eigen::Index i = 0; i < Y.rows(); ++i) c += std::lgamma(Y(i, j) + 1.0);
    return T(c + ad::sum(ad::exp(F)) - ad::dot(F, Y));
  }

  // diag(e^f).
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    detail::check_example_shapes("PoissonLog::output_hessian", f.size(), y.size(), dim_, dim_);
    return output_fisher(f);
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    detail::check_example_shapes("PoissonLog::output_fisher", f.size(), dim_, dim_, dim_);
    return f.array().exp().matrix().asDiagonal();
  }

  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    detail::check_example_shapes("PoissonLog::sample_target", f.size(), dim_, dim_, dim_);
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k)
      y(k) = static_cast<double>(
          boost::random::poisson_distribution<long long, double>(std::exp(f(k)))(rng));
    return y;
  }
  // The rate e^f.
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    detail::check_example_shapes("PoissonLog::predictive_mean", f.size(), dim_, dim_, dim_);
    return f.array().exp().matrix();
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    if (Y.cols() != dim_)
      throw std::invalid_argument("ngvi::nn::PoissonLog: targets have " + std::to_string(Y.cols()) +
                                  " columns, expected " + std::to_string(dim_));
    for (Eigen::Index i = 0; i < Y.rows(); ++i)
      for (Eigen::Index j = 0; j < Y.cols(); ++j)
        if (!(Y(i, j) >= 0.0) || std::floor(Y(i, j)) != Y(i, j) || !std::isfinite(Y(i, j)))
          throw std::invalid_argument(
              detail::target_error("PoissonLog", i, j, Y(i, j), "a non-negative integer count"));
  }

 private:
  int dim_;
};

}  // namespace ngvi::nn
