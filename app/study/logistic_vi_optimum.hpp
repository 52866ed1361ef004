// The Gaussian VI optimum of a logistic GLM, full-covariance and mean-field, by the
// exact-expectation natural-gradient fixed-point iteration: the reference of the study's
// Monte-Carlo findings on the 2-D logistic problem (sample_size_study.hpp), where no closed form
// exists.
//
// For L(θ) = Σᵢ ℓᵢ(θ), ℓᵢ = log(1 + e^{fᵢ}) − yᵢfᵢ, fᵢ = φᵢᵀθ, prior N(0, δ⁻¹I) and q = N(μ, Λ⁻¹),
// the ELBO's stationary point satisfies E_q[∇L] + δμ = 0 and Λ = E_q[∇²L] + δI (Opper &
// Archambeau 2009; VON's fixed point, Khan et al. 2018), iterated as
//   Λ ← E_q[∇²L] + δI,  μ ← μ − Λ⁻¹(E_q[∇L] + δμ)
// (the mean-field optimum: the same with diag Λ). With fᵢ ~ N(mᵢ, vᵢ), mᵢ = φᵢᵀμ, vᵢ = φᵢᵀΣφᵢ,
//   E_q[∇L] = Σᵢ φᵢ (E[σ(fᵢ)] − yᵢ),  E_q[∇²L] = Σᵢ φᵢφᵢᵀ E[σ(fᵢ)(1 − σ(fᵢ))],
// each expectation one-dimensional, by Boost.Math's adaptive Gauss–Kronrod rule over the real line
// to a relative error of 1e-12 — the route of the exact ELBO (exact_elbo.hpp), not the library's
// Monte-Carlo one.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <app/study/study_records.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {

// E[σ(m + s z)] and E[σ'(m + s z)], z ~ N(0, 1), s ≥ 0, σ the logistic function. Cost: two
// adaptive 31-point Gauss–Kronrod rules.
struct LogisticMoments {
  double mean = 0.0, slope = 0.0;
};
inline LogisticMoments expected_logistic(double m, double s) {
  auto sigmoid = [](double f) {
    return f >= 0.0 ? 1.0 / (1.0 + std::exp(-f)) : std::exp(f) / (1.0 + std::exp(f));
  };
  if (s == 0.0) return {sigmoid(m), sigmoid(m) * (1.0 - sigmoid(m))};
  const double inf = std::numeric_limits<double>::infinity();
  const double norm = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  using rule = boost::math::quadrature::gauss_kronrod<double, 31>;
  LogisticMoments e;
  e.mean =
      rule::integrate([&](double z) { return sigmoid(m + s * z) * norm * std::exp(-0.5 * z * z); },
                      -inf, inf, 15, 1e-12);
  e.slope = rule::integrate(
      [&](double z) {
        const double g = sigmoid(m + s * z);
        return g * (1.0 - g) * norm * std::exp(-0.5 * z * z);
      },
      -inf, inf, 15, 1e-12);
  return e;
}

// The full-covariance (mean_field = false) or mean-field optimum's mean and precision (P×P; for
// the mean field diagonal) for the design Φ (N×P), labels y ∈ {0, 1} and prior precision δ > 0,
// iterated from μ = 0, Λ = (N + δ)I until a step changes μ and Λ by less than 1e-12 (relative to
// their size). Throws std::invalid_argument for mismatched shapes or δ ≤ 0, std::runtime_error if
// 2000 iterations do not converge. Cost per iteration: O(N·P²) and 2N quadratures.
struct LogisticOptimum {
  Eigen::VectorXd mean;
  Eigen::MatrixXd precision;
  int iterations = 0;
};
inline LogisticOptimum logistic_vi_optimum(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y,
                                           double prior_precision, bool mean_field) {
  const Eigen::Index n = phi.rows(), p = phi.cols();
  if (y.size() != n || p == 0 || !(prior_precision > 0.0))
    throw std::invalid_argument(fmt::format(
        "ngvi::app::study::logistic_vi_optimum: Φ is {}×{}, y has {} rows, δ = {} (need N rows of "
        "y, P ≥ 1, δ > 0)",
        n, p, y.size(), prior_precision));
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(p, p);
  LogisticOptimum q{Eigen::VectorXd::Zero(p), (static_cast<double>(n) + prior_precision) * identity,
                    0};
  constexpr int max_iterations = 2000;
  for (int it = 1; it <= max_iterations; ++it) {
    const Eigen::MatrixXd sigma = q.precision.llt().solve(identity);
    const Eigen::VectorXd m = phi * q.mean;
    const Eigen::VectorXd v = (phi * sigma).cwiseProduct(phi).rowwise().sum();
    Eigen::VectorXd grad = prior_precision * q.mean;
    Eigen::MatrixXd hess = prior_precision * identity;
    for (Eigen::Index i = 0; i < n; ++i) {
      const LogisticMoments e = expected_logistic(m(i), std::sqrt(std::max(v(i), 0.0)));
      grad += phi.row(i).transpose() * (e.mean - y(i));
      hess += e.slope * phi.row(i).transpose() * phi.row(i);
    }
    if (mean_field) hess = Eigen::MatrixXd(hess.diagonal().asDiagonal());
    const Eigen::VectorXd step = hess.llt().solve(grad);
    const double change =
        step.norm() / (1.0 + q.mean.norm()) + (hess - q.precision).norm() / q.precision.norm();
    q.mean -= step;
    q.precision = hess;
    q.iterations = it;
    if (change < 1e-12) return q;
  }
  throw std::runtime_error(fmt::format(
      "ngvi::app::study::logistic_vi_optimum: no convergence in {} iterations (mean_field = {})",
      max_iterations, mean_field));
}

// Both optima as the study's GaussianOptimum (study_records.hpp). Cost: two logistic_vi_optimum.
inline GaussianOptimum logistic_gaussian_optimum(const Eigen::MatrixXd& phi,
                                                 const Eigen::VectorXd& y, double prior_precision) {
  const LogisticOptimum full = logistic_vi_optimum(phi, y, prior_precision, false);
  const LogisticOptimum diag = logistic_vi_optimum(phi, y, prior_precision, true);
  GaussianOptimum g;
  g.how = fmt::format(
      "the fixed point of Λ = E_q[∇²L] + δI, E_q[∇L] + δμ = 0 with the expectations by "
      "one-dimensional quadrature (full: {} iterations, mean field: {})",
      full.iterations, diag.iterations);
  g.mean = full.mean;
  g.covariance = full.precision.llt().solve(Eigen::MatrixXd::Identity(phi.cols(), phi.cols()));
  g.mean_field_mean = diag.mean;
  g.mean_field_sd = diag.precision.diagonal().cwiseInverse().cwiseSqrt();
  return g;
}

}  // namespace ngvi::app::study
