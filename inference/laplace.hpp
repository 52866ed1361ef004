// The Laplace approximation at the MAP θ*, its log marginal likelihood, and the choice of the
// prior (and noise) precision by that evidence.
//
//   q(θ) = N(θ*, Λ⁻¹),  Λ = H(θ*) + δI,
//   log p(D) ≈ log p(D|θ*) + log p₀(θ*) + (P/2) log 2π − ½ log det Λ
//            = −Σᵢ ℓᵢ(θ*) − ½δ‖θ*‖² + (P/2) log δ − ½ log det Λ          (p₀ = N(0, δ⁻¹I)),
// the second-order expansion of log p(D, θ) around its maximum, integrated (MacKay 1992;
// Immer et al. 2021 for networks). With a prior precision per parameter, p₀ = N(0, D⁻¹) and
// D = diag(δ₁, …, δ_P) (LaplaceOptions::prior_precisions; one δ per named block of θ is what
// evidence_hyperparameters.hpp learns), δI becomes D, ½δ‖θ*‖² becomes ½Σⱼδⱼθ*ⱼ² and (P/2) log δ
// becomes ½Σⱼ log δⱼ. With a general Gaussian prior p₀ = N(μ₀, Λ₀⁻¹) (LaplaceOptions::prior,
// gaussian_prior.hpp; e.g. an earlier posterior, continual learning), Λ = H + Λ₀ (diag Λ₀ for
// diagonal_laplace) and
//   log p(D) ≈ −Σᵢ ℓᵢ(θ*) − ½(θ* − μ₀)ᵀΛ₀(θ* − μ₀) + ½ log det Λ₀ − ½ log det Λ,
// exact for a linear-Gaussian model, where it is log p(D₂ | D₁) when Λ₀ is the posterior of D₁.
// θ* comes from MAP (map.hpp) or anywhere else; the formula
// assumes it is a stationary point of the MAP objective, so the result reports that objective's
// gradient norm at θ* for the caller to check. The evidence is exact for a model linear in θ
// with a Gaussian likelihood (the log joint is then exactly quadratic).
//
// H, the curvature of the data term Σᵢ ℓᵢ at θ*, is chosen by name (LaplaceCurvature):
//   exact_hessian  ∇²Σᵢℓᵢ by forward-over-reverse (nn::exact_hessian) — may be indefinite
//                  away from a minimum of the data term; Λ not positive definite is then an
//                  error naming Λ's smallest eigenvalue (use the GGN, which is PSD);
//   ggn            the generalized Gauss-Newton Σᵢ JᵢᵀH_LJᵢ (nn::ggn): PSD for the convex
//                  likelihoods; the usual choice for networks, equal to the Hessian for a
//                  model linear in θ;
//   kfac           K-FAC's block-diagonal Kronecker approximation of the GGN, N·(S ⊗ A) per
//                  dense layer with S the expected-Fisher (Gauss-Newton) factor (nn::kfac_factors,
//                  KfacS::expected_fisher); parameters outside every dense layer get curvature 0
//                  (only δ). Kept as the dense block-diagonal precision of a FullGaussian.
// laplace() returns the full-covariance FullGaussian; diagonal_laplace() keeps only diag(H) (the
// exact Hessian's diagonal, the GGN's diagonal, or K-FAC's diagonal) in a DiagonalGaussian, with
// log det Λ = Σ log Λⱼⱼ — the evidence of that factorised approximation.
//
// Choosing δ (and τ) by evidence: select_by_evidence() evaluates a caller-given function over a
// grid of prior precisions δ (and, for a likelihood with a noise precision τ, a grid of τ) and
// keeps the maximum. Each grid point is expected to REFIT the MAP for its (δ, τ) and return its
// Laplace log marginal likelihood, so the comparison is between proper evidences (θ* depends on
// δ); this is the grid search, not MacKay's fixed-point updates, chosen because it needs no
// eigendecomposition, works for every curvature above, and for a linear-Gaussian model selects
// exactly the maximiser of the exact evidence on the grid.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/batch_reducer.hpp>
#include <inference/elbo.hpp>
#include <inference/fit.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/curvature/kfac.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>

namespace ngvi::vi {

// Which curvature of the data term H is (see the top of this file).
enum class LaplaceCurvature {
  exact_hessian,
  ggn,
  kfac,
};

inline const char* to_string(LaplaceCurvature c) {
  switch (c) {
    case LaplaceCurvature::exact_hessian:
      return "exact_hessian";
    case LaplaceCurvature::ggn:
      return "ggn";
    case LaplaceCurvature::kfac:
      return "kfac";
  }
  return "unknown";
}

struct LaplaceOptions {
  // H. The GGN by default: PSD at any θ*, and what networks' Laplace approximations use.
  LaplaceCurvature curvature = LaplaceCurvature::ggn;
  // δ of the prior N(0, δ⁻¹I), the same δ the MAP was fitted with.
  double prior_precision = 1.0;
  // Empty (the default): every parameter has prior precision δ above. Else P entries δⱼ, the
  // prior N(0, diag(δ₁, …, δ_P)⁻¹), which replaces δ (e.g. one δ per parameter block,
  // per_parameter_precisions in evidence_hyperparameters.hpp).
  Eigen::VectorXd prior_precisions{};
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp), e.g. prior_from(an earlier fit's
  // posterior); the MAP must have been fitted under it too. Empty (the default): the prior above.
  // When set it replaces δ (prior_precisions must then be empty).
  std::optional<GaussianPrior> prior{};
  // Threads, examples per task and the deterministic reduction of the per-example sums, as in
  // nn::CurvatureOptions (the exact Hessian's sweeps run on the same threads).
  int threads = 0;
  Eigen::Index grain = 16;
  Eigen::Index reduction_blocks = 16;
  // How the sums over the N examples are formed (batch_reducer.hpp): empty, on this process as
  // above; a reducer (distributed::MpiReducer, say), over its fixed blocks of the examples — the
  // data term's gradient and its exact Hessian or GGN, each block's on the threads above.
  // K-FAC is formed on this process either way.
  std::shared_ptr<const BatchReducer> reducer{};
};

// The approximation and its evidence.
template <class Posterior>
struct Laplace {
  Posterior posterior;                 // N(θ*, Λ⁻¹)
  double log_marginal_likelihood = 0;  // the Laplace evidence log p(D) (top of this file)
  double log_likelihood = 0;           // log p(D|θ*) = −Σᵢ ℓᵢ(θ*)
  double log_prior = 0;  // log p₀(θ*) = (P/2) log(δ/2π) − ½δ‖θ*‖² (gaussian_prior.hpp's in general)
  double log_det_precision = 0;  // log det Λ
  double gradient_norm = 0;    // ‖∇(Σᵢℓᵢ − log p₀(θ))‖ at θ*: 0 at an exact MAP
  double prior_precision = 0;  // δ; NaN when per-parameter precisions or a prior were given
  Eigen::VectorXd prior_precisions{};  // the δⱼ given in LaplaceOptions::prior_precisions, or empty
  LaplaceCurvature curvature = LaplaceCurvature::ggn;
};

namespace detail {

// The nn::GaussianFixedNoise likelihood of a model (or the one an nn::LikelihoodVariant holds),
// nullptr for any other model.
template <class Model>
const nn::GaussianFixedNoise* fixed_noise_likelihood(const Model& model) {
  if constexpr (requires { model.likelihood(); }) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(model.likelihood())>,
                                 nn::GaussianFixedNoise>)
      return &model.likelihood();
    else if constexpr (requires { model.likelihood().template get_if<nn::GaussianFixedNoise>(); })
      return model.likelihood().template get_if<nn::GaussianFixedNoise>();
  }
  return nullptr;
}

// τ₀ of that likelihood; NaN for any other model.
template <class Model>
double fixed_noise_precision(const Model& model) {
  const nn::GaussianFixedNoise* g = fixed_noise_likelihood(model);
  return g != nullptr ? g->precision() : std::numeric_limits<double>::quiet_NaN();
}

template <class Model>
void check_laplace_inputs(const Model& model, const Eigen::VectorXd& theta, const LaplaceOptions& o,
                          const char* who) {
  const std::string w = std::string("ngvi::vi::") + who;
  if (model.num_examples() < 1) throw std::invalid_argument(w + ": the model has no examples");
  nn::check_theta_size(theta.size(), model.num_params(), w);
  if (!theta.allFinite()) throw std::invalid_argument(w + ": theta is not finite");
  detail::check_positive_finite(w, "prior_precision", o.prior_precision);
  if (o.prior) {
    o.prior->check_dim(theta.size(), w);
    if (o.prior_precisions.size() != 0)
      throw std::invalid_argument(w + ": both prior and prior_precisions (" +
                                  std::to_string(o.prior_precisions.size()) +
                                  " entries) are set; give one prior");
  }
  if (o.prior_precisions.size() == 0) return;
  if (o.prior_precisions.size() != theta.size())
    throw std::invalid_argument(
        w + ": prior_precisions has " + std::to_string(o.prior_precisions.size()) +
        " entries, the model has " + std::to_string(theta.size()) + " parameters");
  for (Eigen::Index j = 0; j < theta.size(); ++j)
    detail::check_positive_finite(w, "prior_precisions(" + std::to_string(j) + ")",
                                  o.prior_precisions(j));
}

// Λ's diagonal ← Λ's diagonal + δ (or + δⱼ per parameter, or + diag Λ₀). Cost: O(P).
template <class Diagonal>
void add_prior_precision(Diagonal&& diagonal, const LaplaceOptions& o) {
  if (o.prior)
    diagonal += o.prior->diagonal(diagonal.size());
  else if (o.prior_precisions.size() == 0)
    diagonal.array() += o.prior_precision;
  else
    diagonal.array() += o.prior_precisions.array();
}

// δ as an error message shows it: the number, or the range of the per-parameter δⱼ.
template <int = 0>
std::string prior_precision_text(const LaplaceOptions& o) {
  if (o.prior) return "the prior's Λ₀";
  if (o.prior_precisions.size() == 0) return std::to_string(o.prior_precision);
  return "diag(δⱼ) with δⱼ in [" + std::to_string(o.prior_precisions.minCoeff()) + ", " +
         std::to_string(o.prior_precisions.maxCoeff()) + "]";
}

// Throws std::invalid_argument if the model lacks what curvature c needs: the GGN needs the
// network output and the likelihood apart (nn::OutputLikelihoodModel), K-FAC also the dense
// layers (nn::Supervised<nn::Sequential, L>). The exact Hessian works for every model.
template <class Model>
void require_curvature(LaplaceCurvature c, const char* who) {
  const bool ok = c == LaplaceCurvature::ggn ? nn::OutputLikelihoodModel<Model>
                                             : nn::detail::SequentialModel<Model>;
  if (!ok)
    throw std::invalid_argument(
        std::string("ngvi::vi::") + who + ": LaplaceCurvature::" + to_string(c) +
        (c == LaplaceCurvature::ggn
             ? " needs the network output and the likelihood separately (an nn::Supervised model)"
             : " needs the dense layers of an nn::Supervised<nn::Sequential, L> model") +
        "; use LaplaceCurvature::exact_hessian for this model");
}

// A number for an error message: std::to_string's, or "not finite" for ±∞ and NaN (which it
// would print as "inf" or "-nan", a number the reader cannot act on).
template <int = 0>
std::string number_or_not_finite(double v) {
  return std::isfinite(v) ? std::to_string(v) : std::string("not finite");
}

// What to do when Λ = H + δI is not positive definite, true for curvature c: the exact Hessian
// may be indefinite, so the GGN is the remedy; the GGN and K-FAC are positive semi-definite in
// exact arithmetic, so there Λ fails only through non-finite or overflowing curvature at θ (a θ
// from a diverged MAP, inputs far from standardised), which another curvature does not cure.
template <int = 0>
std::string not_positive_definite_advice(LaplaceCurvature c) {
  if (c == LaplaceCurvature::exact_hessian)
    return "θ is not a local minimum of the MAP objective, or H is indefinite there; use "
           "LaplaceCurvature::ggn, which is positive semi-definite";
  return std::string("H = ") + to_string(c) +
         " is positive semi-definite in exact arithmetic, so its entries at θ are not finite or "
         "too large to add up: check that θ is a converged MAP and the inputs are scaled";
}

// N(mean, Λ⁻¹), or std::domain_error naming `what` (the precision and its formula), the curvature,
// δ (as `delta` spells it), Λ's smallest eigenvalue (NaN for a non-finite Λ, said so) and the
// advice. Cost: a Cholesky, and an eigendecomposition only on failure.
template <int = 0>
FullGaussian laplace_posterior(const Eigen::VectorXd& mean, const Eigen::MatrixXd& Lambda,
                               LaplaceCurvature curvature, const std::string& delta,
                               const std::string& what) {
  std::optional<FullGaussian> q = FullGaussian::from_precision_if_pd(mean, Lambda);
  if (q) return std::move(*q);
  const double smallest = Lambda.allFinite() ? Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(
                                                   Lambda, Eigen::EigenvaluesOnly)
                                                   .eigenvalues()(0)
                                             : std::numeric_limits<double>::quiet_NaN();
  throw std::domain_error(what + " with H = " + to_string(curvature) + " and δ = " + delta +
                          " is not positive definite: its smallest eigenvalue is " +
                          number_or_not_finite(smallest) + " (" +
                          not_positive_definite_advice(curvature) + ")");
}

// 0, 1, ..., N − 1.
template <class Model>
std::vector<Eigen::Index> every_example(const Model& model) {
  std::vector<Eigen::Index> all(static_cast<std::size_t>(model.num_examples()));
  std::iota(all.begin(), all.end(), Eigen::Index{0});
  return all;
}

// H, the exact Hessian or the GGN of the data term (P×P column-major, or with `diagonal` its P
// diagonal entries), summed over all N examples through o.reducer. Cost: that of H, block by
// block (the exact Hessian's diagonal costs its full blocks).
template <class Model>
Eigen::VectorXd reduced_curvature(const Model& model, const Eigen::VectorXd& theta,
                                  const LaplaceOptions& o, bool diagonal) {
  const Eigen::Index p = theta.size();
  return o.reducer->sum_all(
      model.num_examples(), diagonal ? p : p * p, ad::parallel_options(o),
      [&](std::span<const Eigen::Index> examples, const ad::ParallelOptions& par,
          Eigen::VectorXd& acc) {
        Eigen::MatrixXd h;
        if (o.curvature == LaplaceCurvature::exact_hessian) {
          h = nn::exact_hessian(model, theta, examples,
                                ad::with_parallel(nn::curvature_options(o), par));
        } else if constexpr (nn::OutputLikelihoodModel<Model>) {
          const auto g = ad::with_parallel(nn::with_curvature(nn::GgnOptions{}, o), par);
          if (diagonal) {
            acc += nn::ggn_diagonal(model, theta, examples, g);
            return;
          }
          h = nn::ggn(model, theta, examples, g);
        }
        if (diagonal)
          acc += h.diagonal();
        else
          acc += h.reshaped();
      });
}

// K-FAC with the expected-Fisher S factor (the Gauss-Newton factor: deterministic, no draws).
template <int = 0>
nn::KfacOptions kfac_options(const LaplaceOptions& o) {
  nn::KfacOptions k;
  k.s_factor = nn::KfacS::expected_fisher;
  k = nn::with_curvature(k, o);
  return k;
}

// H by o.curvature: P×P, or with `diagonal` its diagonal as P×1 (the exact Hessian's, the GGN's
// or K-FAC's own diagonal); over o.reducer's blocks of the examples if there is one (not K-FAC),
// else on this process. Throws std::invalid_argument if the model lacks what the curvature needs.
template <class Model>
Eigen::MatrixXd data_curvature(const Model& model, const Eigen::VectorXd& theta,
                               const LaplaceOptions& o, bool diagonal, const char* who) {
  if (o.curvature != LaplaceCurvature::exact_hessian) require_curvature<Model>(o.curvature, who);
  const Eigen::Index p = theta.size();
  if (o.reducer && o.curvature != LaplaceCurvature::kfac) {
    const Eigen::VectorXd h = reduced_curvature(model, theta, o, diagonal);
    return diagonal ? Eigen::MatrixXd(h) : Eigen::MatrixXd(h.reshaped(p, p));
  }
  switch (o.curvature) {
    case LaplaceCurvature::exact_hessian:
      return diagonal ? Eigen::MatrixXd(
                            nn::exact_hessian_diagonal(model, theta, nn::curvature_options(o)))
                      : nn::exact_hessian(model, theta, nn::curvature_options(o));
    case LaplaceCurvature::ggn:
      if constexpr (nn::OutputLikelihoodModel<Model>) {
        const auto g = nn::with_curvature(nn::GgnOptions{}, o);
        return diagonal ? Eigen::MatrixXd(nn::ggn_diagonal(model, theta, g))
                        : nn::ggn(model, theta, g);
      }
      break;
    case LaplaceCurvature::kfac:
      if constexpr (nn::detail::SequentialModel<Model>) {
        const auto f = nn::kfac_factors(model, theta, kfac_options(o));
        return diagonal ? Eigen::MatrixXd(nn::kfac_diagonal(f, p)) : nn::kfac_matrix(f, p);
      }
      break;
  }
  throw std::logic_error(std::string("ngvi::vi::") + who + ": unknown curvature");
}

// Fills everything but the posterior and log det Λ. Cost: one full-data gradient.
template <class Model, class Posterior>
void laplace_terms(const Model& model, const Eigen::VectorXd& theta, const LaplaceOptions& o,
                   Laplace<Posterior>& r) {
  const double delta = o.prior_precision;
  const auto P = static_cast<double>(theta.size());
  Eigen::VectorXd g;
  const double loss = o.reducer
                          ? minibatch_loss_and_gradient(model, theta, every_example(model),
                                                        o.reducer.get(), ad::parallel_options(o), g)
                          : ad::value_and_gradient(nn::detail::total_loss(model), theta, g);
  r.log_likelihood = -loss;
  if (o.prior) {
    r.log_prior = o.prior->log_density(theta);
    r.gradient_norm = (g + o.prior->gradient(theta)).norm();
    r.prior_precision = std::numeric_limits<double>::quiet_NaN();
  } else if (o.prior_precisions.size() == 0) {
    r.log_prior =
        0.5 * P * std::log(delta / (2.0 * std::numbers::pi)) - 0.5 * delta * theta.squaredNorm();
    r.gradient_norm = (g + delta * theta).norm();
    r.prior_precision = delta;
  } else {
    const Eigen::ArrayXd d = o.prior_precisions.array();
    r.log_prior =
        0.5 * (d / (2.0 * std::numbers::pi)).log().sum() - 0.5 * (d * theta.array().square()).sum();
    r.gradient_norm = (g.array() + d * theta.array()).matrix().norm();
    r.prior_precision = std::numeric_limits<double>::quiet_NaN();
    r.prior_precisions = o.prior_precisions;
  }
  r.curvature = o.curvature;
  r.log_marginal_likelihood = r.log_likelihood + r.log_prior +
                              0.5 * P * std::log(2.0 * std::numbers::pi) -
                              0.5 * r.log_det_precision;
}

}  // namespace detail

// The full-covariance Laplace approximation at theta (see the top of this file). Throws
// std::invalid_argument for an empty model, a θ of the wrong size or non-finite, a bad δ, or
// prior_precisions not of P positive finite entries (naming the first bad one),
// and std::domain_error if Λ = H + δI is not positive definite, naming its smallest eigenvalue
// ("not finite" if H is not) and a remedy that holds for the curvature in use.
// Cost: the curvature (exact Hessian: ⌈P/8⌉ dual recordings of the loss; GGN: the per-example
// Jacobians + N·m·P² flops; K-FAC: its factors + O(P²)), a Cholesky of Λ (P³/3 flops) and one
// full-data gradient.
template <class Model>
Laplace<FullGaussian> laplace(const Model& model, const Eigen::VectorXd& theta,
                              const LaplaceOptions& options = {}) {
  detail::check_laplace_inputs(model, theta, options, "laplace");
  Eigen::MatrixXd Lambda = detail::data_curvature(model, theta, options, false, "laplace");
  if (options.prior)
    Lambda += options.prior->dense(theta.size());
  else
    detail::add_prior_precision(Lambda.diagonal(), options);
  FullGaussian q = detail::laplace_posterior(theta, Lambda, options.curvature,
                                             detail::prior_precision_text(options),
                                             "ngvi::vi::laplace: the precision Λ = H + δI");
  Laplace<FullGaussian> r;
  r.log_det_precision = q.log_det_precision();
  r.posterior = std::move(q);
  detail::laplace_terms(model, theta, options, r);
  return r;
}

// The diagonal Laplace approximation: Λ = diag(H) + δI with diag(H) the exact Hessian's
// diagonal, the GGN's diagonal or K-FAC's diagonal. Throws as laplace(), the domain_error naming
// the first parameter whose Λⱼⱼ is not positive. Cost: exact Hessian as in laplace(); GGN
// diagonal: the per-example Jacobians + N·m²·P flops; K-FAC: its factors.
template <class Model>
Laplace<DiagonalGaussian> diagonal_laplace(const Model& model, const Eigen::VectorXd& theta,
                                           const LaplaceOptions& options = {}) {
  detail::check_laplace_inputs(model, theta, options, "diagonal_laplace");
  Eigen::VectorXd lambda = detail::data_curvature(model, theta, options, true, "diagonal_laplace");
  detail::add_prior_precision(lambda, options);
  for (Eigen::Index j = 0; j < lambda.size(); ++j)
    if (!(lambda(j) > 0.0) || !std::isfinite(lambda(j)))
      throw std::domain_error(
          std::string("ngvi::vi::diagonal_laplace: Λ = diag(H) + δI with H = ") +
          to_string(options.curvature) + " has Λ = " + detail::number_or_not_finite(lambda(j)) +
          " at " + describe_parameter(model, j) + ", not positive and finite (" +
          detail::not_positive_definite_advice(options.curvature) + ")");
  Laplace<DiagonalGaussian> r;
  r.log_det_precision = lambda.array().log().sum();
  r.posterior = DiagonalGaussian(theta, lambda);
  detail::laplace_terms(model, theta, options, r);
  return r;
}

// One grid point of an evidence search.
struct EvidencePoint {
  double prior_precision = 0.0;                                       // δ
  double noise_precision = std::numeric_limits<double>::quiet_NaN();  // τ; NaN: not searched
  double log_marginal_likelihood = 0.0;
};

struct EvidenceSelection {
  EvidencePoint best;               // the grid point of largest evidence (the first, on ties)
  std::vector<EvidencePoint> grid;  // every point, δ outer and τ inner, in grid order
};

namespace detail {

template <int = 0>
void check_grid(const std::vector<double>& grid, const char* what) {
  const std::string who = "ngvi::vi::select_by_evidence";
  if (grid.empty()) throw std::invalid_argument(who + ": the grid of " + what + " is empty");
  for (const double v : grid)
    if (!(v > 0.0) || !std::isfinite(v))
      throw std::invalid_argument(who + ": " + what + " = " + std::to_string(v) +
                                  " in the grid is not positive and finite");
}

// Appends p to s, keeping the first maximum. Throws std::domain_error for a NaN evidence.
template <int = 0>
void add_point(EvidenceSelection& s, const EvidencePoint& p) {
  if (std::isnan(p.log_marginal_likelihood))
    throw std::domain_error("ngvi::vi::select_by_evidence: the evidence at δ = " +
                            std::to_string(p.prior_precision) + " is NaN");
  s.grid.push_back(p);
  if (s.grid.size() == 1 || p.log_marginal_likelihood > s.best.log_marginal_likelihood) s.best = p;
}

}  // namespace detail

// The δ of `prior_precisions` maximising evidence(δ), which should refit the MAP at δ and return
// its Laplace log marginal likelihood (see the top of this file). Throws std::invalid_argument
// for an empty grid or a δ that is not positive and finite, and std::domain_error if evidence
// returns NaN. Cost: one call of evidence per grid point.
template <int = 0>
EvidenceSelection select_by_evidence(const std::vector<double>& prior_precisions,
                                     const std::function<double(double)>& evidence) {
  detail::check_grid(prior_precisions, "prior precisions δ");
  EvidenceSelection s;
  for (const double delta : prior_precisions)
    detail::add_point(s, {.prior_precision = delta, .log_marginal_likelihood = evidence(delta)});
  return s;
}

// The (δ, τ) of the two grids maximising evidence(δ, τ), which should refit the MAP of the model
// with noise precision τ and prior δ and return its Laplace log marginal likelihood. Throws as
// above, also for a τ that is not positive and finite. Cost: one call per pair.
template <int = 0>
EvidenceSelection select_by_evidence(const std::vector<double>& prior_precisions,
                                     const std::vector<double>& noise_precisions,
                                     const std::function<double(double, double)>& evidence) {
  detail::check_grid(prior_precisions, "prior precisions δ");
  detail::check_grid(noise_precisions, "noise precisions τ");
  EvidenceSelection s;
  for (const double delta : prior_precisions)
    for (const double tau : noise_precisions)
      detail::add_point(s, {.prior_precision = delta,
                            .noise_precision = tau,
                            .log_marginal_likelihood = evidence(delta, tau)});
  return s;
}

}  // namespace ngvi::vi
