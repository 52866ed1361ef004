// The Laplace approximation over a subset S of the parameters — the last layer (Kristiadi, Hein &
// Hennig 2020, "Being Bayesian, Even Just a Bit, Fixes Overconfidence in ReLU Networks") or any
// chosen blocks (Daxberger, Nalisnick, Allingham, Antorán & Hernández-Lobato 2021, "Bayesian Deep
// Learning via Subnetwork Inference") — with the rest of θ fixed at the MAP θ*:
//
//   q(θ_S) = N(θ*_S, Λ_S⁻¹),  Λ_S = H_SS(θ*) + δI,  H_SS = Σᵢ J_S,iᵀ H_L,i J_S,i  (the GGN on S),
//
// J_S,i = ∂fᵢ/∂θ_S the S columns of example i's output Jacobian and H_L,i = ∂²ℓ/∂f² at fᵢ(θ*)
// (or, as an option, H_SS the exact Hessian ∇²_S Σᵢℓᵢ). The linearised (GLM) predictive at x:
//
//   f(x) ~ N(f(x; θ*), J_S(x) Λ_S⁻¹ J_S(x)ᵀ),  y ~ N(μ(f), that + 1/τ) for a Gaussian likelihood;
//
// and the Laplace log marginal likelihood with the prior N(0, δ⁻¹I) on θ_S only (the rest of θ is
// a point estimate, as Daxberger et al.), after Immer, Bauer, Fortuin, Rätsch & Khan 2021,
// "Scalable Marginal Likelihood Estimation for Model Selection in Deep Learning":
//
//   log p(D) ≈ −Σᵢ ℓᵢ(θ*) − ½δ‖θ*_S‖² + (P_S/2) log δ − ½ log det Λ_S.
//
// For the Gaussian likelihood N(f, τ⁻¹I) with d outputs, ℓᵢ = τ/2‖yᵢ − fᵢ‖² + d/2 log(2π/τ) and
// H_SS ∝ τ (both curvatures), so at a fixed θ* the evidence of any (δ, τ) costs one P_S×P_S
// Cholesky (log_marginal_likelihood(la, δ, τ)): the quantity Immer et al. maximise over the
// hyperparameters at the current θ*. With S the last layer and the earlier layers fixed, the
// model is linear in θ_S with the features φ(x) of the last hidden layer: the approximation is
// then the exact Bayesian linear regression posterior on φ (and its evidence, at θ*_S its mean).
//
// Cost: per example one recording of fᵢ with only θ_S as variables and m reverse sweeps (J_S,i,
// m×P_S — the other P − P_S columns are never formed), plus N·(m·P_S² + m²·P_S) flops for H_SS;
// a P_S×P_S Cholesky (P_S³/3 flops); one gradient of the loss on θ_S. Never a P×P matrix.
// The exact Hessian on S: ⌈P_S/8⌉ recordings of the whole loss in Dual<double, 8> arithmetic.
// Functions that would not otherwise be templates are written `template <int = 0>`
// (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/jacobian.hpp>
#include <autodiff/functional/parallel.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/laplace.hpp>
#include <inference/posterior/subnetwork_gaussian.hpp>
#include <inference/predictive.hpp>
#include <nn/curvature/detail/blocked_sum.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>

namespace ngvi::vi {

struct SubnetworkLaplaceOptions {
  // H_SS: LaplaceCurvature::ggn (default; PSD, the papers' choice) or exact_hessian (∇²_S Σᵢℓᵢ,
  // equal to the GGN for the last layer of a network with a linear output and a fixed-noise
  // Gaussian likelihood). K-FAC is refused: on P_S parameters the full matrix is affordable.
  LaplaceCurvature curvature = LaplaceCurvature::ggn;
  // δ of the prior N(0, δ⁻¹I) on θ_S, the δ the MAP was fitted with.
  double prior_precision = 1.0;
  // Threads, examples per task and the deterministic reduction of the sum over examples, as in
  // nn::CurvatureOptions (the result is the same bits for any thread count).
  int threads = 0;
  Eigen::Index grain = 16;
  Eigen::Index reduction_blocks = 16;
};

// The approximation over θ_S and its evidence.
struct SubnetworkLaplace {
  std::vector<Eigen::Index> indices;   // S: positions in θ, in the order of θ_S
  Eigen::VectorXd theta;               // θ*, all P entries (those outside S stay fixed)
  FullGaussian posterior;              // N(θ*_S, Λ_S⁻¹) over θ_S
  Eigen::MatrixXd curvature;           // H_SS (P_S×P_S)
  double log_marginal_likelihood = 0;  // the Laplace evidence (top of this file)
  double log_likelihood = 0;           // −Σᵢ ℓᵢ(θ*)
  double log_prior = 0;                // (P_S/2) log(δ/2π) − ½δ‖θ*_S‖²
  double log_det_precision = 0;        // log det Λ_S
  double gradient_norm = 0;  // ‖∇_S(Σᵢℓᵢ + ½δ‖θ_S‖²)‖ at θ*: 0 at an exact MAP
  double prior_precision = 0;  // δ
  LaplaceCurvature curvature_kind = LaplaceCurvature::ggn;
  // For an nn::GaussianFixedNoise likelihood (or an nn::LikelihoodVariant holding one): its τ,
  // Σᵢ‖yᵢ − fᵢ(θ*)‖² and N·d; NaN and 0 for any other likelihood.
  double noise_precision = std::numeric_limits<double>::quiet_NaN();
  double squared_residuals = std::numeric_limits<double>::quiet_NaN();
  Eigen::Index targets = 0;
};

namespace detail {

// θ with θ_S replaced by theta_s, in theta_s's scalar: the entries outside S are constants, so a
// recording through it has only θ_S as variables. Cost: O(P).
template <class VectorS>
auto with_subnetwork(const Eigen::VectorXd& theta, const std::vector<Eigen::Index>& s,
                     const VectorS& theta_s) {
  using T = typename VectorS::Scalar;
  Eigen::Matrix<T, Eigen::Dynamic, 1> th = theta.cast<T>();
  th(s) = theta_s;
  return th;
}

// J_S,i = ∂fᵢ/∂θ_S (m×P_S), writing fᵢ(θ*). Cost: one recording of fᵢ + m reverse sweeps.
template <class Model>
Eigen::MatrixXd subnetwork_jacobian(const Model& model, const Eigen::VectorXd& theta,
                                    const std::vector<Eigen::Index>& s, Eigen::Index i,
                                    Eigen::VectorXd& f) {
  return ad::jacobian(
      [&](const auto& ts) { return model.example_output(with_subnetwork(theta, s, ts), i); },
      Eigen::VectorXd(theta(s)), &f);
}

// Throws std::invalid_argument naming `who` unless S is non-empty, inside 0..P−1 and without
// repeats.
template <int = 0>
void check_subnetwork(const std::vector<Eigen::Index>& s, Eigen::Index p, const std::string& who) {
  if (s.empty()) throw std::invalid_argument(who + ": the subnetwork S is empty");
  std::vector<bool> seen(static_cast<std::size_t>(p), false);
  for (const Eigen::Index j : s) {
    if (j < 0 || j >= p)
      throw std::invalid_argument(who + ": index " + std::to_string(j) +
                                  " of the subnetwork S is outside 0.." + std::to_string(p - 1));
    if (seen[static_cast<std::size_t>(j)])
      throw std::invalid_argument(who + ": index " + std::to_string(j) +
                                  " appears twice in the subnetwork S");
    seen[static_cast<std::size_t>(j)] = true;
  }
}

// −Σᵢℓᵢ for N·d Gaussian targets of precision τ with squared residuals r².
template <int = 0>
double gaussian_log_likelihood(double tau, double squared_residuals, Eigen::Index targets) {
  return 0.5 * static_cast<double>(targets) * std::log(tau / (2.0 * std::numbers::pi)) -
         0.5 * tau * squared_residuals;
}

// N(mean, (H + δI)⁻¹), or std::nullopt if H + δI is not positive definite. Cost: a Cholesky.
template <int = 0>
std::optional<FullGaussian> subnetwork_posterior(const Eigen::VectorXd& mean,
                                                 const Eigen::MatrixXd& h, double delta) {
  Eigen::MatrixXd lambda = h;
  lambda.diagonal().array() += delta;
  return FullGaussian::from_precision_if_pd(mean, lambda);
}

}  // namespace detail

// S = the last dense layer's weights and bias, in θ's order (nn/sequential.hpp: "dense<k>.weight"
// out×in row-major, then "dense<k>.bias"). Throws std::invalid_argument if the model is not an
// nn::Supervised<nn::Sequential, L> or its network does not end with a dense layer (the last
// layer's parameters would not enter the output linearly: choose the blocks yourself).
// Cost: O(P_S).
template <class Model>
std::vector<Eigen::Index> last_layer_indices(const Model& model) {
  const std::string who = "ngvi::vi::last_layer_indices";
  if constexpr (nn::detail::SequentialModel<Model>) {
    const auto& net = model.net();
    if (!std::holds_alternative<nn::Dense>(net.layers().back()))
      throw std::invalid_argument(who + ": the network " + net.describe() +
                                  " does not end with a dense layer; pass the blocks to "
                                  "subnetwork_indices instead");
    const nn::DenseSlot& d = net.dense_layers().back();
    std::vector<Eigen::Index> s(static_cast<std::size_t>(d.bias.end() - d.weight.offset));
    std::iota(s.begin(), s.end(), d.weight.offset);
    return s;
  } else {
    throw std::invalid_argument(who +
                                ": the model has no dense layers (it is not an "
                                "nn::Supervised<nn::Sequential, L>); pass the indices of S "
                                "to subnetwork_laplace");
  }
}

// S = the named blocks of model.layout() (e.g. {"dense0.bias", "dense1.weight"}), each block's
// entries in θ's order, blocks in the order given. Throws std::invalid_argument for no names or
// a name the layout does not have. Cost: O(P_S).
template <class Model>
std::vector<Eigen::Index> subnetwork_indices(const Model& model,
                                             const std::vector<std::string>& blocks) {
  const std::string who = "ngvi::vi::subnetwork_indices";
  if (blocks.empty()) throw std::invalid_argument(who + ": no blocks named");
  std::vector<Eigen::Index> s;
  for (const std::string& name : blocks) {
    if (!model.layout().contains(name))
      throw std::invalid_argument(who + ": the model has no parameter block \"" + name + "\"");
    const nn::Block& b = model.layout().block(name);
    for (Eigen::Index j = b.offset; j < b.end(); ++j) s.push_back(j);
  }
  return s;
}

// The Laplace approximation over θ_S at theta (see the top of this file). Throws
// std::invalid_argument for an empty model, a θ of the wrong size or non-finite, a bad δ, an
// empty S, an index outside 0..P−1 or repeated, or curvature kfac; std::domain_error if Λ_S is
// not positive definite (naming its smallest eigenvalue). Cost: at the top of this file.
template <class Model>
SubnetworkLaplace subnetwork_laplace(const Model& model, const Eigen::VectorXd& theta,
                                     const std::vector<Eigen::Index>& s,
                                     const SubnetworkLaplaceOptions& options = {}) {
  const std::string who = "ngvi::vi::subnetwork_laplace";
  if (model.num_examples() < 1) throw std::invalid_argument(who + ": the model has no examples");
  nn::check_theta_size(theta.size(), model.num_params(), who);
  if (!theta.allFinite()) throw std::invalid_argument(who + ": theta is not finite");
  detail::check_positive_finite(who, "prior_precision", options.prior_precision);
  detail::check_subnetwork(s, theta.size(), who);
  if (options.curvature == LaplaceCurvature::kfac)
    throw std::invalid_argument(who +
                                ": LaplaceCurvature::kfac is not offered on a subnetwork "
                                "(use ggn or exact_hessian)");
  const double delta = options.prior_precision;
  const Eigen::VectorXd theta_s = theta(s);
  const auto P_S = static_cast<Eigen::Index>(s.size());
  const auto loss_on_s = [&](const auto& ts) {
    return nn::detail::total_loss(model)(detail::with_subnetwork(theta, s, ts));
  };

  SubnetworkLaplace r;
  Eigen::VectorXd g;
  const double loss = ad::value_and_gradient(loss_on_s, theta_s, g);
  if (options.curvature == LaplaceCurvature::exact_hessian) {
    r.curvature = ad::hessian(loss_on_s, theta_s, ad::parallel_options(options));
  } else {
    detail::require_curvature<Model>(LaplaceCurvature::ggn, "subnetwork_laplace");
    if constexpr (nn::OutputLikelihoodModel<Model>) {
      // H_SS = Σᵢ J_S,iᵀ H_L,i J_S,i.
      r.curvature = nn::detail::symmetrised(nn::detail::blocked_sum(
          model.num_examples(), P_S, P_S, nn::curvature_options(options),
          [&](Eigen::Index i, Eigen::MatrixXd& acc) {
            Eigen::VectorXd f;
            const Eigen::MatrixXd J = detail::subnetwork_jacobian(model, theta, s, i, f);
            const Eigen::MatrixXd H_L =
                nn::detail::output_curvature(model, f, i, nn::OutputCurvature::hessian);
            acc.noalias() += J.transpose() * (H_L * J);
          }));
    }
  }
  Eigen::MatrixXd lambda = r.curvature;
  lambda.diagonal().array() += delta;
  FullGaussian q =
      detail::laplace_posterior(theta_s, lambda, options.curvature, std::to_string(delta),
                                who + ": the precision Λ_S = H_SS + δI");
  r.indices = s;
  r.theta = theta;
  r.log_det_precision = q.log_det_precision();
  r.posterior = std::move(q);
  r.log_likelihood = -loss;
  r.log_prior = 0.5 * static_cast<double>(P_S) * std::log(delta / (2.0 * std::numbers::pi)) -
                0.5 * delta * theta_s.squaredNorm();
  r.log_marginal_likelihood = r.log_likelihood + r.log_prior +
                              0.5 * static_cast<double>(P_S) * std::log(2.0 * std::numbers::pi) -
                              0.5 * r.log_det_precision;
  r.gradient_norm = (g + delta * theta_s).norm();
  r.prior_precision = delta;
  r.curvature_kind = options.curvature;
  if (const double tau = detail::fixed_noise_precision(model); !std::isnan(tau)) {
    r.noise_precision = tau;
    r.targets = model.num_examples() * model.output_dim();
    // Σᵢℓᵢ = τ/2 Σ‖r‖² + N·d/2 log(2π/τ), solved for Σ‖r‖².
    r.squared_residuals =
        2.0 / tau *
        (loss - 0.5 * static_cast<double>(r.targets) * std::log(2.0 * std::numbers::pi / tau));
  }
  return r;
}

// The last-layer Laplace approximation (Kristiadi et al. 2020): subnetwork_laplace over
// last_layer_indices(model). Throws as those two. Cost: that of subnetwork_laplace with P_S =
// the last layer's (in + 1)·out parameters.
template <class Model>
SubnetworkLaplace last_layer_laplace(const Model& model, const Eigen::VectorXd& theta,
                                     const SubnetworkLaplaceOptions& options = {}) {
  return subnetwork_laplace(model, theta, last_layer_indices(model), options);
}

// The Laplace evidence of la's θ* under prior precision δ (the likelihood and H_SS unchanged):
// −Σᵢℓᵢ(θ*) − ½δ‖θ*_S‖² + (P_S/2) log δ − ½ log det(H_SS + δI). Throws std::invalid_argument for
// a δ that is not positive and finite, std::domain_error if H_SS + δI is not positive definite.
// Cost: one P_S×P_S Cholesky.
template <int = 0>
double log_marginal_likelihood(const SubnetworkLaplace& la, double delta) {
  const std::string who = "ngvi::vi::log_marginal_likelihood";
  detail::check_positive_finite(who, "prior_precision", delta);
  const Eigen::VectorXd theta_s = la.posterior.mean();
  const std::optional<FullGaussian> q = detail::subnetwork_posterior(theta_s, la.curvature, delta);
  if (!q)
    throw std::domain_error(who +
                            ": H_SS + δI is not positive definite at δ = " + std::to_string(delta));
  const auto P_S = static_cast<double>(theta_s.size());
  return la.log_likelihood - 0.5 * delta * theta_s.squaredNorm() + 0.5 * P_S * std::log(delta) -
         0.5 * q->log_det_precision();
}

// The same under prior precision δ and Gaussian noise precision τ, at the same θ*: −Σᵢℓᵢ and H_SS
// of the fitted τ₀ rescaled, N·d/2 log(τ/2π) − τ/2 Σ‖yᵢ − fᵢ‖² and (τ/τ₀) H_SS. Throws
// std::invalid_argument unless la's likelihood is nn::GaussianFixedNoise and δ, τ are positive
// and finite; std::domain_error as above. Cost: one P_S×P_S Cholesky.
template <int = 0>
double log_marginal_likelihood(const SubnetworkLaplace& la, double delta, double tau) {
  const std::string who = "ngvi::vi::log_marginal_likelihood";
  if (std::isnan(la.noise_precision))
    throw std::invalid_argument(who +
                                ": a noise precision τ needs a model with an "
                                "nn::GaussianFixedNoise likelihood");
  detail::check_positive_finite(who, "noise_precision", tau);
  SubnetworkLaplace scaled;
  scaled.curvature = (tau / la.noise_precision) * la.curvature;
  scaled.posterior = la.posterior;
  scaled.log_likelihood = detail::gaussian_log_likelihood(tau, la.squared_residuals, la.targets);
  return log_marginal_likelihood(scaled, delta);
}

// la's approximation as a distribution over all P parameters: θ_S ~ N(θ*_S, Λ_S⁻¹), the rest at
// θ* (posterior/subnetwork_gaussian.hpp), for the predictives and posterior files that take any
// family. Cost: O(P) and a copy of Λ_S and its factor.
template <int = 0>
SubnetworkGaussian subnetwork_gaussian(const SubnetworkLaplace& la) {
  return SubnetworkGaussian(la.theta, la.indices, la.posterior);
}

// la at another prior precision δ and, if τ is not NaN, noise precision τ, at the same θ*: H_SS
// and −Σᵢℓᵢ(θ*) rescaled to τ (as log_marginal_likelihood(la, δ, τ)), Λ_S = H_SS + δI, the
// evidence and the log prior at (δ, τ). gradient_norm is left as la's (θ* is no longer a MAP of
// the new objective unless (δ, τ) are the fitted ones). Throws as log_marginal_likelihood.
// Cost: one P_S×P_S Cholesky.
template <int = 0>
SubnetworkLaplace at_hyperparameters(const SubnetworkLaplace& la, double delta, double tau) {
  const std::string who = "ngvi::vi::at_hyperparameters";
  detail::check_positive_finite(who, "prior_precision", delta);
  SubnetworkLaplace r = la;
  if (!std::isnan(tau)) {
    if (std::isnan(la.noise_precision))
      throw std::invalid_argument(who +
                                  ": a noise precision τ needs a model with an "
                                  "nn::GaussianFixedNoise likelihood");
    detail::check_positive_finite(who, "noise_precision", tau);
    r.curvature = (tau / la.noise_precision) * la.curvature;
    r.log_likelihood = detail::gaussian_log_likelihood(tau, la.squared_residuals, la.targets);
    r.noise_precision = tau;
  }
  const Eigen::VectorXd theta_s = la.posterior.mean();
  std::optional<FullGaussian> q = detail::subnetwork_posterior(theta_s, r.curvature, delta);
  if (!q)
    throw std::domain_error(who +
                            ": H_SS + δI is not positive definite at δ = " + std::to_string(delta));
  const auto P_S = static_cast<double>(theta_s.size());
  r.log_det_precision = q->log_det_precision();
  r.posterior = std::move(*q);
  r.prior_precision = delta;
  r.log_prior =
      0.5 * P_S * std::log(delta / (2.0 * std::numbers::pi)) - 0.5 * delta * theta_s.squaredNorm();
  r.log_marginal_likelihood = r.log_likelihood + r.log_prior +
                              0.5 * P_S * std::log(2.0 * std::numbers::pi) -
                              0.5 * r.log_det_precision;
  return r;
}

// The prior and noise precisions that maximise la's evidence at its θ*, and what it found.
struct SubnetworkEvidenceOptimum {
  double prior_precision = 0.0;                                       // δ
  double noise_precision = std::numeric_limits<double>::quiet_NaN();  // τ; NaN: not learned
  double log_marginal_likelihood = 0.0;                               // at (δ, τ)
  int iterations = 0;
};

// MacKay's fixed point (MacKay 1992, evidence_hyperparameters.hpp) for the evidence over θ_S at
// la's θ* (the post-hoc optimisation of Immer et al. 2021 and laplace-torch): with Σ_S = Λ_S⁻¹ at
// the current (δ, τ) and γ = P_S − δ tr Σ_S the effective number of parameters,
//   δ ← γ / ‖θ*_S‖²,   τ ← (N·d − γ) / Σᵢ‖yᵢ − fᵢ(θ*)‖²   (τ for an nn::GaussianFixedNoise
// likelihood only), from la's (δ, τ) until both change by less than `tolerance` relatively; each
// update sets the evidence's gradient in (log δ, log τ) to zero with Σ_S held fixed. Throws
// std::domain_error if an update is not positive and finite (θ*_S = 0, zero residuals) or the
// iteration has not converged after max_iterations. Cost: per iteration one P_S×P_S Cholesky
// and its inverse factor (2P_S³/3 flops).
template <int = 0>
SubnetworkEvidenceOptimum optimize_subnetwork_evidence(const SubnetworkLaplace& la,
                                                       int max_iterations = 1000,
                                                       double tolerance = 1e-12) {
  const std::string who = "ngvi::vi::optimize_subnetwork_evidence";
  const bool gaussian = !std::isnan(la.noise_precision);
  const Eigen::VectorXd theta_s = la.posterior.mean();
  const auto P_S = static_cast<double>(theta_s.size());
  const double norm2 = theta_s.squaredNorm();
  SubnetworkEvidenceOptimum r{la.prior_precision, la.noise_precision, 0.0, 0};
  for (r.iterations = 1; r.iterations <= max_iterations; ++r.iterations) {
    const SubnetworkLaplace at = at_hyperparameters(la, r.prior_precision, r.noise_precision);
    const double gamma = P_S - r.prior_precision * at.posterior.marginal_variances().sum();
    const double delta = gamma / norm2;
    const double tau = gaussian ? (static_cast<double>(la.targets) - gamma) / la.squared_residuals
                                : r.noise_precision;
    if (!(delta > 0.0) || !std::isfinite(delta) ||
        (gaussian && (!(tau > 0.0) || !std::isfinite(tau))))
      throw std::domain_error(who + ": the update of (δ, τ) is (" + std::to_string(delta) + ", " +
                              std::to_string(tau) + "), not positive and finite");
    const bool converged = std::abs(delta - r.prior_precision) <= tolerance * delta &&
                           (!gaussian || std::abs(tau - r.noise_precision) <= tolerance * tau);
    r.prior_precision = delta;
    r.noise_precision = tau;
    if (converged) {
      r.log_marginal_likelihood = at_hyperparameters(la, delta, tau).log_marginal_likelihood;
      return r;
    }
  }
  throw std::domain_error(who + ": MacKay's updates did not converge in " +
                          std::to_string(max_iterations) +
                          " iterations (last δ = " + std::to_string(r.prior_precision) +
                          ", τ = " + std::to_string(r.noise_precision) + ")");
}

// Linearised (GLM) regression predictive of la on a test model (the trained network and
// likelihood over the test data, as in predictive.hpp): per test example mean μ(fᵢ(θ*)), variance
// diag(J_S,i Λ_S⁻¹ J_S,iᵀ) over the mean outputs + σ²(fᵢ(θ*)) (1/τ for a fixed-noise Gaussian),
// and log p(yᵢ) of that Gaussian; all in original units (`targets`: the training target
// standardizer). Throws std::invalid_argument for an empty test set, a test model of another
// parameter count or a standardizer of another width. Cost: N* recordings of fᵢ with θ_S as the
// variables + N*·m reverse sweeps, Λ_S⁻¹ (P_S³ flops) and N*·(m·P_S² + m²·P_S) flops.
template <class TestModel>
RegressionPredictive subnetwork_glm_predictive(const TestModel& test, const SubnetworkLaplace& la,
                                               const nn::Standardizer& targets,
                                               const PredictiveOptions& options = {}) {
  static_assert(detail::require_test_model<TestModel>());
  const auto& lik = test.likelihood();
  static_assert(
      requires(const Eigen::VectorXd& f) { lik.predictive_variance(f); },
      "ngvi::vi::subnetwork_glm_predictive: the likelihood needs predictive_variance(f) (a "
      "Gaussian likelihood)");
  const std::string who = "ngvi::vi::subnetwork_glm_predictive";
  if (test.num_examples() < 1)
    throw std::invalid_argument(who + ": the test model has no examples");
  if (test.num_params() != la.theta.size())
    throw std::invalid_argument(
        who + ": the approximation is over a θ of " + std::to_string(la.theta.size()) +
        " parameters, the test model has " + std::to_string(test.num_params()));
  const Eigen::Index n = test.num_examples(), d = lik.target_dim();
  detail::check_target_scaling(targets, d, "subnetwork_glm_predictive");
  const Eigen::MatrixXd Sigma = la.posterior.covariance();
  const Eigen::MatrixXd& Y = test.data().Y;
  RegressionPredictive r;
  r.mean.resize(n, d);
  r.variance.resize(n, d);
  r.log_likelihood.resize(n);
  ad::parallel_blocks(n, ad::parallel_options(options), [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index i = begin; i < end; ++i) {
      Eigen::VectorXd f;
      const Eigen::MatrixXd J = detail::subnetwork_jacobian(test, la.theta, la.indices, i, f);
      const Eigen::VectorXd mu = lik.predictive_mean(f);
      const Eigen::VectorXd var =
          (J * Sigma * J.transpose()).diagonal().head(d) + lik.predictive_variance(f);
      r.mean.row(i) = mu.transpose();
      r.variance.row(i) = var.transpose();
      const Eigen::ArrayXd z2 = (Y.row(i).transpose() - mu).array().square() / var.array();
      r.log_likelihood(i) =
          -0.5 * (z2 + var.array().log() + std::log(2.0 * std::numbers::pi)).sum();
    }
  });
  detail::finish_regression(r, Y, targets);
  return r;
}

}  // namespace ngvi::vi
