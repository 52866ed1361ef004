// PointEstimate: the degenerate Gaussian N(θ*, 0), the "posterior" of MAP estimation.
//
// MAP (map.hpp) fits a point, not a distribution, yet it runs in the shared fit loop and its
// result goes wherever a posterior goes (the predictive, the summaries, the first stage of the
// Laplace approximation). Rather than dressing the point up as a Gaussian with a huge made-up
// precision, PointEstimate is what it is: the limit of N(θ*, εI) as ε → 0, with every member
// taking that limit's value. Samples are θ* itself (no draw is consumed, so predictive code
// gives the plug-in predictive), marginal variances and the covariance are 0, the entropy is −∞
// and the KL to any Gaussian prior +∞, so the ELBO a history row reports for MAP is −∞: the
// ELBO of a point mass, not a stand-in value. The history's expected NLL is then the exact
// training NLL at θ* (an expectation under a point mass), and the MAP objective itself is
// map_objective() in map.hpp. log_density is the limit too: +∞ at θ*, −∞ elsewhere.
// Cost: O(P) per member unless noted.
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/random.hpp>

namespace ngvi::vi {

class PointEstimate {
 public:
  PointEstimate() = default;
  // Throws std::invalid_argument if θ* has a non-finite entry.
  explicit PointEstimate(Eigen::VectorXd theta) : mean_(std::move(theta)) {
    for (Eigen::Index i = 0; i < mean_.size(); ++i)
      if (!std::isfinite(mean_(i)))
        throw std::invalid_argument("ngvi::vi::PointEstimate: θ(" + std::to_string(i) +
                                    ") is not finite");
  }

  Eigen::Index dim() const { return mean_.size(); }
  const Eigen::VectorXd& mean() const { return mean_; }
  // θ* (a point mass draws nothing; rng is left as it is).
  Eigen::VectorXd sample(Rng&) const { return mean_; }
  Eigen::VectorXd sample_from(const Eigen::VectorXd&) const { return mean_; }
  Eigen::VectorXd marginal_variances() const { return Eigen::VectorXd::Zero(dim()); }
  // The P×P zero matrix. Cost: O(P²).
  Eigen::MatrixXd covariance() const { return Eigen::MatrixXd::Zero(dim(), dim()); }
  double log_density(const Eigen::VectorXd& theta) const {
    return theta == mean_ ? std::numeric_limits<double>::infinity()
                          : -std::numeric_limits<double>::infinity();
  }
  double entropy() const { return -std::numeric_limits<double>::infinity(); }
  double kl_to_prior(double) const { return std::numeric_limits<double>::infinity(); }

 private:
  Eigen::VectorXd mean_;
};

}  // namespace ngvi::vi
