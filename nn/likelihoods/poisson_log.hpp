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
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/functions.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>

namespace ngvi::nn {

class PoissonLog : public LikelihoodBase {
 public:
  static constexpr std::string_view name = "poisson_log";

  explicit PoissonLog(int dim = 1) : LikelihoodBase("PoissonLog", dim, dim), dim_(dim) {}

  // Cost: O(d); one statement per output.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    check_example("nll", f.size(), y.size());
    using std::exp;
    T total(0.0);
    for (int k = 0; k < dim_; ++k) total += exp(f(k)) - y(k) * f(k) + std::lgamma(y(k) + 1.0);
    return total;
  }

  // Σ over rows. Cost: O(B·d); on Var three fused entries (exp node, sum, dot).
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    check_batch("batch_nll", F.rows(), F.cols(), Y.rows(), Y.cols());
    double c = 0.0;
    for (Eigen::Index j = 0; j < Y.cols(); ++j)
      for (Eigen::Index i = 0; i < Y.rows(); ++i) c += std::lgamma(Y(i, j) + 1.0);
    return T(c + ad::sum(ad::exp(F)) - ad::dot(F, Y));
  }

  // diag(e^f).
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    check_example("output_hessian", f.size(), y.size());
    return output_fisher(f);
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    check_output("output_fisher", f.size());
    return f.array().exp().matrix().asDiagonal();
  }

  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    check_output("sample_target", f.size());
    Eigen::VectorXd y(dim_);
    for (int k = 0; k < dim_; ++k)
      y(k) = static_cast<double>(
          boost::random::poisson_distribution<long long, double>(std::exp(f(k)))(rng));
    return y;
  }
  // The rate e^f.
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    check_output("predictive_mean", f.size());
    return f.array().exp().matrix();
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    check_target_values(
        Y, [](double y) { return y >= 0.0 && std::floor(y) == y && std::isfinite(y); },
        "a non-negative integer count");
  }

 private:
  int dim_;
};

}  // namespace ngvi::nn
