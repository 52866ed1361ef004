// The expected training loss of a Gaussian q for a logistic GLM, by one-dimensional quadrature:
// the study's exact ELBO where the network is linear in θ with the Bernoulli-logit likelihood.
//
// With fᵢ = φᵢᵀθ and θ ~ q = N(μ, Σ), each fᵢ is N(mᵢ, vᵢ), mᵢ = φᵢᵀμ, vᵢ = φᵢᵀΣφᵢ, and the loss
// ℓᵢ = log(1 + e^{fᵢ}) − yᵢfᵢ has
//   E_q[ℓᵢ] = E[softplus(mᵢ + √vᵢ z)] − yᵢmᵢ,  z ~ N(0, 1),
// a smooth one-dimensional integral, computed by Boost.Math's adaptive Gauss–Kronrod rule over
// the whole real line to a relative error of 1e-12. (A quadratic loss needs no quadrature: the
// study uses Σᵢℓᵢ(μ) + ½ tr(HΣ) there.)
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <autodiff/expr/elementary.hpp>

namespace ngvi::app::study {

// E[softplus(m + s z)], z ~ N(0, 1), s ≥ 0, softplus(f) = log(1 + eᶠ) (the engine's ad::softplus).
// Cost: an adaptive 31-point Gauss–Kronrod rule, typically a few hundred evaluations.
inline double expected_softplus(double m, double s) {
  if (s == 0.0) return ad::softplus(m);
  const double inf = std::numeric_limits<double>::infinity();
  const double norm = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  auto integrand = [&](double z) {
    return ad::softplus(m + s * z) * norm * std::exp(-0.5 * z * z);
  };
  return boost::math::quadrature::gauss_kronrod<double, 31>::integrate(integrand, -inf, inf, 15,
                                                                       1e-12);
}

// Σᵢ E_q[ℓᵢ] for the logistic GLM with design Φ (N×P, rows φᵢ), labels y ∈ {0, 1} and q =
// N(μ, Σ). Throws std::invalid_argument for mismatched shapes. Cost: O(N·P²) and N quadratures.
inline double logistic_glm_expected_nll(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y,
                                        const Eigen::VectorXd& mu, const Eigen::MatrixXd& sigma) {
  if (y.size() != phi.rows() || mu.size() != phi.cols() || sigma.rows() != phi.cols() ||
      sigma.cols() != phi.cols())
    throw std::invalid_argument("ngvi::app::study::logistic_glm_expected_nll: Φ is " +
                                std::to_string(phi.rows()) + "×" + std::to_string(phi.cols()) +
                                ", y has " + std::to_string(y.size()) + " rows, μ " +
                                std::to_string(mu.size()) + ", Σ is " +
                                std::to_string(sigma.rows()) + "×" + std::to_string(sigma.cols()));
  const Eigen::VectorXd m = phi * mu;
  const Eigen::VectorXd v = (phi * sigma).cwiseProduct(phi).rowwise().sum();
  double total = 0.0;
  for (Eigen::Index i = 0; i < phi.rows(); ++i)
    total += expected_softplus(m(i), std::sqrt(std::max(v(i), 0.0))) - y(i) * m(i);
  return total;
}

}  // namespace ngvi::app::study
