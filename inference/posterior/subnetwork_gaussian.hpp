// SubnetworkGaussian: a Gaussian over a subset S of the parameters with the rest fixed,
//
//   θ_S ~ N(μ_S, Λ_S⁻¹),   θ_j = θ*_j for j ∉ S,
//
// the posterior of a last-layer or subnetwork Laplace approximation (subnetwork_laplace.hpp;
// Kristiadi, Hein & Hennig 2020; Daxberger et al. 2021) as a distribution over all P parameters,
// so that it goes wherever the other families go (the Monte-Carlo and linearised predictives, the
// tool's posterior files). Over θ it is degenerate: the limit of N(θ*_{∖S}, εI) × q_S as ε → 0,
// as PointEstimate is for S = ∅. Every member takes that limit's value: samples draw θ_S from q_S
// (|S| normal draws) and copy the rest, the marginal variances and the covariance are 0 outside
// S, the entropy is −∞ and the KL to any Gaussian prior +∞, and log_density is −∞ off the
// subspace θ_{∖S} = θ*_{∖S} and +∞ on it.
// Members that would not otherwise be templates are written `template <int = 0>` (called as
// usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/posterior/full_gaussian.hpp>
#include <inference/random.hpp>

namespace ngvi::vi {

class SubnetworkGaussian {
 public:
  SubnetworkGaussian() = default;
  // θ* (all P entries; those in S are replaced by q_S's mean), S as positions in θ in the order
  // of q_S's coordinates, and q_S = N(μ_S, Λ_S⁻¹). Throws std::invalid_argument for a θ* that is
  // not finite, an empty S, an index outside 0..P−1 or repeated, or a q_S of another dimension
  // than |S|. Cost: O(P).
  template <int = 0>
  SubnetworkGaussian(Eigen::VectorXd theta, std::vector<Eigen::Index> indices, FullGaussian q_s)
      : theta_(std::move(theta)), indices_(std::move(indices)), q_s_(std::move(q_s)) {
    const std::string who = "ngvi::vi::SubnetworkGaussian: ";
    if (!theta_.allFinite()) throw std::invalid_argument(who + "θ* is not finite");
    if (indices_.empty()) throw std::invalid_argument(who + "the subnetwork S is empty");
    if (q_s_.dim() != static_cast<Eigen::Index>(indices_.size()))
      throw std::invalid_argument(who + "S has " + std::to_string(indices_.size()) +
                                  " indices but q_S is over " + std::to_string(q_s_.dim()) +
                                  " parameters");
    std::vector<bool> seen(static_cast<std::size_t>(theta_.size()), false);
    for (const Eigen::Index j : indices_) {
      if (j < 0 || j >= theta_.size())
        throw std::invalid_argument(who + "index " + std::to_string(j) + " of S is outside 0.." +
                                    std::to_string(theta_.size() - 1));
      if (seen[static_cast<std::size_t>(j)])
        throw std::invalid_argument(who + "index " + std::to_string(j) + " appears twice in S");
      seen[static_cast<std::size_t>(j)] = true;
    }
    theta_(indices_) = q_s_.mean();
  }

  Eigen::Index dim() const { return theta_.size(); }
  // θ* with θ_S = μ_S.
  const Eigen::VectorXd& mean() const { return theta_; }
  // S, positions in θ in the order of q_S's coordinates.
  const std::vector<Eigen::Index>& indices() const { return indices_; }
  // q_S = N(μ_S, Λ_S⁻¹) over θ_S.
  const FullGaussian& subnetwork() const { return q_s_; }

  // θ* with θ_S ~ q_S. Cost: |S| normal draws and q_S's triangular solve (|S|² flops).
  template <int = 0>
  Eigen::VectorXd sample(Rng& rng) const {
    Eigen::VectorXd theta = theta_;
    theta(indices_) = q_s_.sample(rng);
    return theta;
  }
  // Var[θⱼ]: q_S's marginal variances on S, 0 elsewhere. Cost: |S|³/3 flops.
  template <int = 0>
  Eigen::VectorXd marginal_variances() const {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(dim());
    v(indices_) = q_s_.marginal_variances();
    return v;
  }
  // The P×P covariance: Λ_S⁻¹ on S×S, 0 elsewhere. Cost: |S|³ flops and O(P²) memory.
  template <int = 0>
  Eigen::MatrixXd covariance() const {
    Eigen::MatrixXd c = Eigen::MatrixXd::Zero(dim(), dim());
    c(indices_, indices_) = q_s_.covariance();
    return c;
  }
  // The limit's log density: −∞ unless θ agrees with θ* outside S, +∞ if it does. Cost: O(P).
  template <int = 0>
  double log_density(const Eigen::VectorXd& theta) const {
    Eigen::VectorXd outside = theta - theta_;
    outside(indices_).setZero();
    return outside.isZero(0.0) ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity();
  }
  double entropy() const { return -std::numeric_limits<double>::infinity(); }
  double kl_to_prior(double) const { return std::numeric_limits<double>::infinity(); }

 private:
  Eigen::VectorXd theta_;
  std::vector<Eigen::Index> indices_;
  FullGaussian q_s_;
};

}  // namespace ngvi::vi
