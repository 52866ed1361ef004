// The evidence lower bound of a Gaussian posterior, estimated as every method's history reports it.
//
// ELBO(q) = E_q[log p(D|θ)] − λ·KL(q ‖ p₀), p₀ = N(0, δ⁻¹I) or a general Gaussian prior
// (gaussian_prior.hpp) (λ = 1 is proper VI; tempered variants, e.g. Zhang et al. 2018, Eqn. 1,
// use λ < 1). The KL is the closed form of q's family (and the prior's); the
// expected log-likelihood E_q[−Σᵢ ℓᵢ(θ)] is a Monte-Carlo average over S draws θₛ ~ q, or the
// plug-in value at the mean when S = 0 (the "expectations at the mean" of VON with S = 0). The data
// term runs through the model's batched total_loss when it has one.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/gaussian_prior.hpp>
#include <inference/posterior/posterior_concept.hpp>
#include <inference/random.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

// Σᵢ ℓᵢ(θ) over all N examples, in double. Cost: one batched forward pass if the model has
// total_loss, else N example_loss calls.
template <class Model>
double total_nll(const Model& model, const Eigen::VectorXd& theta) {
  static_assert(nn::require_separable_model<Model>());
  if constexpr (requires {
                  { model.total_loss(theta) } -> std::convertible_to<double>;
                }) {
    return model.total_loss(theta);
  } else {
    double s = 0.0;
    for (Eigen::Index i = 0; i < model.num_examples(); ++i) s += model.example_loss(theta, i);
    return s;
  }
}

struct ElboEstimate {
  double elbo = 0.0;          // −expected_nll − λ·kl
  double expected_nll = 0.0;  // E_q[Σᵢ ℓᵢ(θ)] (Monte Carlo, or at the mean when S = 0)
  double kl = 0.0;            // KL(q ‖ p₀), closed form
};

namespace detail {

// E_q[Σᵢ ℓᵢ(θ)] by S draws (at the mean when S = 0). Cost: max(S, 1) total-loss evaluations.
template <class Model, class Posterior>
double expected_nll(const Model& model, const Posterior& q, int samples, Rng& rng) {
  static_assert(require_gaussian_posterior<Posterior>());
  if (samples < 0)
    throw std::invalid_argument("ngvi::vi::estimate_elbo: samples must be >= 0, got " +
                                std::to_string(samples));
  if (samples == 0) return total_nll(model, q.mean());
  double e = 0.0;
  for (int s = 0; s < samples; ++s) e += total_nll(model, q.sample(rng));
  return e / samples;
}

}  // namespace detail

// The ELBO with the prior N(0, δ⁻¹I). Cost: max(S, 1) total-loss evaluations, S draws from q and
// one KL.
template <class Model, class Posterior>
ElboEstimate estimate_elbo(const Model& model, const Posterior& q, double prior_precision,
                           double kl_weight, int samples, Rng& rng) {
  ElboEstimate e;
  e.expected_nll = detail::expected_nll(model, q, samples, rng);
  e.kl = q.kl_to_prior(prior_precision);
  e.elbo = -e.expected_nll - kl_weight * e.kl;
  return e;
}

// The ELBO with a general Gaussian prior. Cost: as above, with the prior's KL
// (gaussian_prior.hpp).
template <class Model, class Posterior>
ElboEstimate estimate_elbo(const Model& model, const Posterior& q, const GaussianPrior& prior,
                           double kl_weight, int samples, Rng& rng) {
  ElboEstimate e;
  e.expected_nll = detail::expected_nll(model, q, samples, rng);
  e.kl = prior.kl(q);
  e.elbo = -e.expected_nll - kl_weight * e.kl;
  return e;
}

}  // namespace ngvi::vi
