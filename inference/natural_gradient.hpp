// What the natural-gradient methods with a Gaussian q (VON, VOGN, SLANG) share: checking the
// options they have in common, and drawing the step's Monte-Carlo parameters θₛ ~ q.
//
// Both methods' options carry the rates α (mean_rate) and β (precision_rate, a moving-average
// weight, so at most 1), the KL weight λ, the number S of samples, s₀ (initial_curvature) and an
// optional warm-start mean; validate_natural_gradient_options names the offending field. Both
// methods evaluate their gradients and curvature at S draws θₛ = μ + c·L⁻ᵀεₛ from the factored
// precision (c rescales it: VOGN factors s + λδ/N, whose q has precision (N/λ)(s + λδ/N)), or at
// μ alone when S = 0, drawing ε on the calling thread in a fixed order.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/posterior/factored_precision.hpp>
#include <inference/random.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

// Throws std::invalid_argument naming `who` and the field. p is the model's number of
// parameters. Cost: O(1).
template <class Options>
void validate_natural_gradient_options(const Options& o, Eigen::Index p, const std::string& who) {
  o.mean_rate.validate(who + " mean_rate");
  o.precision_rate.validate(who + " precision_rate");
  if (std::max(o.precision_rate.initial, o.precision_rate.floor) >
      1.0)  // β ≤ 1: a convex combination
    throw std::invalid_argument(who + ": precision_rate must stay at most 1, got initial " +
                                std::to_string(o.precision_rate.initial) + ", floor " +
                                std::to_string(o.precision_rate.floor));
  detail::check_positive_finite(who, "kl_weight", o.kl_weight);
  detail::check_at_least(who, "mc_samples", o.mc_samples, 0);
  detail::check_nonnegative_finite(who, "initial_curvature", o.initial_curvature);
  if (o.initial_mean.size() != 0)
    nn::check_theta_size(o.initial_mean.size(), p, who, "initial_mean");
}

// thetas = [μ] if samples == 0, else `samples` draws μ + scale·factor.sample_offset(ε),
// ε ~ N(0, I): L⁻ᵀε for a FactoredPrecision, or LowRankGaussian's map (SLANG).
// Cost: samples·P normal draws and the factor's sample_offset (P² flops each for full
// covariance, O(P) diagonal, O(P·L) low rank).
template <class Factor>
void draw_parameters(const Eigen::VectorXd& mu, const Factor& factor, double scale, int samples,
                     Rng& rng, std::vector<Eigen::VectorXd>& thetas) {
  thetas.clear();
  if (samples == 0) {
    thetas.push_back(mu);
    return;
  }
  for (int s = 0; s < samples; ++s)
    thetas.push_back(mu + scale * factor.sample_offset(standard_normal(rng, mu.size())));
}

}  // namespace ngvi::vi
