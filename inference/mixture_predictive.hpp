// The regression predictive of an equally weighted mixture of K fitted posteriors — a deep
// ensemble of independently initialised networks (Lakshminarayanan et al. 2017), or a mixture
// of Laplace approximations (Eschenhagen et al. 2021) — from the K members' own predictives
// (predictive.hpp) on the same test examples.
//
// Each member k gives, per test example i, its predictive mean μₖᵢ, variance vₖᵢ and log density
// log pₖ(yᵢ | D). The mixture p(yᵢ | D) = (1/K) Σₖ pₖ(yᵢ | D) has
//   log p(yᵢ | D) = log-mean-exp over k of log pₖ(yᵢ | D)   (stable in log space),
//   mean (1/K) Σₖ μₖᵢ,   variance (1/K) Σₖ vₖᵢ + (1/K) Σₖ (μₖᵢ − mean)²   (law of total variance),
// and the RMSE is that of the mixture mean against the targets Y. Members must be in the same
// units as Y (predictive.hpp reports ORIGINAL units; pass the test targets in those). Members'
// own hyperparameters (noise precision, prior precision) may differ: only their predictives are
// combined.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/predictive.hpp>

namespace ngvi::vi {

// Throws std::invalid_argument if `members` is empty, a member's mean, variance or
// log_likelihood does not match Y's shape (N*×d, N* log densities) or Y is empty. Cost:
// O(K·N*·d).
template <int = 0>
RegressionPredictive mixture_regression_predictive(std::span<const RegressionPredictive> members,
                                                   const Eigen::Ref<const Eigen::MatrixXd>& Y) {
  const std::string who = "ngvi::vi::mixture_regression_predictive: ";
  if (members.empty()) throw std::invalid_argument(who + "no members");
  if (Y.size() == 0) throw std::invalid_argument(who + "no test targets");
  const Eigen::Index n = Y.rows(), d = Y.cols();
  for (std::size_t k = 0; k < members.size(); ++k) {
    const RegressionPredictive& m = members[k];
    if (m.mean.rows() != n || m.mean.cols() != d || m.variance.rows() != n ||
        m.variance.cols() != d || m.log_likelihood.size() != n)
      throw std::invalid_argument(
          who + "member " + std::to_string(k) + " has a " + std::to_string(m.mean.rows()) + "x" +
          std::to_string(m.mean.cols()) + " mean, a " + std::to_string(m.variance.rows()) + "x" +
          std::to_string(m.variance.cols()) + " variance and " +
          std::to_string(m.log_likelihood.size()) + " log densities; the targets are " +
          std::to_string(n) + "x" + std::to_string(d));
  }
  const auto k = static_cast<double>(members.size());
  RegressionPredictive r;
  r.mean = Eigen::MatrixXd::Zero(n, d);
  for (const RegressionPredictive& m : members) r.mean += m.mean / k;
  r.variance = Eigen::MatrixXd::Zero(n, d);
  for (const RegressionPredictive& m : members)
    r.variance.array() += (m.variance.array() + (m.mean - r.mean).array().square()) / k;
  r.log_likelihood.resize(n);
  Eigen::VectorXd per_member(static_cast<Eigen::Index>(members.size()));
  for (Eigen::Index i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < members.size(); ++j)
      per_member(static_cast<Eigen::Index>(j)) = members[j].log_likelihood(i);
    r.log_likelihood(i) = log_mean_exp(per_member);
  }
  r.test_log_likelihood = r.log_likelihood.mean();
  r.rmse = std::sqrt((Y - r.mean).squaredNorm() / static_cast<double>(Y.size()));
  return r;
}

}  // namespace ngvi::vi
