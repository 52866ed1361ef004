// GaussianPosterior: what the fit loop, the ELBO, prediction and the summaries need of q(θ).
//
// Every family in inference/posterior/ (DiagonalGaussian, FullGaussian, KroneckerGaussian)
// satisfies it, so code that only samples, evaluates or summarises a posterior is written once.
// require_gaussian_posterior<Q>() names a missing member in plain English instead of a page of
// template diagnostics.
#pragma once

#include <concepts>

#include <Eigen/Core>

#include <inference/random.hpp>

namespace ngvi::vi {

template <class Q>
concept GaussianPosterior = requires(const Q& q, Rng& rng, const Eigen::VectorXd& theta,
                                     double delta) {
  { q.dim() } -> std::convertible_to<Eigen::Index>;
  { q.mean() } -> std::convertible_to<Eigen::VectorXd>;
  { q.sample(rng) } -> std::convertible_to<Eigen::VectorXd>;
  { q.marginal_variances() } -> std::convertible_to<Eigen::VectorXd>;
  { q.log_density(theta) } -> std::convertible_to<double>;
  { q.entropy() } -> std::convertible_to<double>;
  { q.kl_to_prior(delta) } -> std::convertible_to<double>;
};

template <class Q>
constexpr bool require_gaussian_posterior() {
  static_assert(
      requires(const Q& q) {
        q.dim();
        q.mean();
      },
      "ngvi::vi: a posterior needs dim() and mean() (the length of θ and E_q[θ])");
  static_assert(
      requires(const Q& q, Rng& rng) { q.sample(rng); },
      "ngvi::vi: a posterior needs sample(rng), returning one θ ~ q as an Eigen::VectorXd");
  static_assert(
      requires(const Q& q) {
        q.marginal_variances();
        q.entropy();
      },
      "ngvi::vi: a posterior needs marginal_variances() and entropy()");
  static_assert(
      requires(const Q& q, const Eigen::VectorXd& t) { q.log_density(t); },
      "ngvi::vi: a posterior needs log_density(theta)");
  static_assert(
      requires(const Q& q) { q.kl_to_prior(1.0); },
      "ngvi::vi: a posterior needs kl_to_prior(delta), the KL to the prior N(0, δ⁻¹I)");
  return true;
}

}  // namespace ngvi::vi
