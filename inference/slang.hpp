// SLANG, stochastic low-rank approximate natural-gradient (Mishkin, Kunstner, Nielsen, Schmidt &
// Khan 2018, "SLANG: Fast Structured Covariance Approximations for Bayesian Deep Learning with
// Natural Gradient", NeurIPS, Algorithm 1): VOGN whose precision is low rank plus diagonal.
//
// The state is μ, U (P×L) and d (P): s = UUᵀ + diag(d) plays VOGN's running average s of the
// per-example curvature (vogn.hpp, whose header derives λ and δ̃ = δ/N), so that
//   q = N(μ, ((N/λ)(UUᵀ + diag(d) + λδ̃I))⁻¹)                            (LowRankGaussian)
// One step on the minibatch B (M = |B| examples of N), at iteration t with α = α(t), β = β(t):
//   θₛ ~ q, s = 1..S               (LowRankGaussian's sampling; S = 0: the single point θ = μ)
//   gᵢ = ∇ℓᵢ(θₛ), i ∈ B;  ĝ = (1/S) Σₛ (1/M) Σ_{i∈B} gᵢ
//   ĉ = (1/S) Σₛ (1/M) Σ_{i∈B} FᵢFᵢᵀ = F Fᵀ/(MS)     (F the P×R stack of the factors Fᵢ below)
//   T = (1−β) UUᵀ + β ĉ = WWᵀ,  W = [√(1−β) U | √(β/(MS)) F]             (the target, implicit)
//   U ← V diag(√ν), (ν, V) the L leading eigenpairs of T by randomized_top_eigenpairs
//       (randomized_eigen.hpp, the paper's fast_eig), its seed drawn from the training stream
//   d ← (1−β) d + diag(T) − diag(UUᵀ)       (the diagonal correction, with the NEW U: diag s
//                                             follows VOGN's s ← (1−β)s + βĉ exactly)
//   μ ← μ − α (UUᵀ + diag(d) + λδ̃I)⁻¹(ĝ + λδ̃μ)           (Woodbury, with the NEW U and d)
// In the paper's scale (its U and d are ours times N/λ at λ = 1, its d holding the prior) these
// are Algorithm 1's lines: the top-L eigenvectors of (1−β)UUᵀ + β(N/M)Σ gᵢgᵢᵀ, d ← (1−β)d + βδ +
// Δ, μ ← μ − α Σ(N ĝ + δμ). The per-example factor Fᵢ (FᵢFᵢᵀ the curvature VognCurvature names):
//   empirical_fisher  gᵢ (one column; the paper's choice);
//   ggn               Jᵢᵀ Z diag(√ν), H_L,i = Z diag(ν) Zᵀ (m columns; nn::per_example_jacobians
//                     and the likelihood's output_hessian; an output Hessian with a negative
//                     eigenvalue stops the fit with a StepFailure: use mc_fisher);
//   mc_fisher         g̃ᵢₖ/√K, k = 1..K, gradients for targets sampled from the model
//                     (nn::sampled_target_gradients, the seed drawn from the training stream).
// With L = 0 the step is diagonal VOGN's, equation for equation and draw for draw (no seed is
// drawn for an eigendecomposition that is not done), so the iterates agree to rounding (the
// diagonal of ĉ is summed from the factors rather than by VOGN's batched routes). With L = P
// and an exact target (rank T ≤ L + oversampling) the eigendecomposition is exact and the step
// is full VOGN's. When the randomized subspace misses part of T, diag(T − UUᵀ) can be negative;
// a d + λδ̃ that is not positive stops the fit with a StepFailure naming the iteration.
//
// A general Gaussian prior N(μ₀, Λ₀⁻¹) (SlangOptions::prior, gaussian_prior.hpp; continual
// learning) replaces λδ̃μ in the mean step by the whole (λ/N)Λ₀(μ − μ₀). In the precision, a
// low-rank prior Λ₀ = U₀U₀ᵀ + diag(d₀) (an earlier SLANG posterior) enters the target as the
// extra columns √(βλ/N) U₀ of W, T = (1−β)UUᵀ + βĉ + β(λ/N)U₀U₀ᵀ, and d₀ takes δ's place,
// λδ̃I → (λ/N) diag(d₀): s then tracks ĉ + (λ/N)U₀U₀ᵀ and q's precision (N/λ)s + diag(d₀) is
// (N/λ)ĉ + Λ₀ up to the rank-L truncation, exactly so for L = P. A prior of another family enters
// q's precision by its diagonal only, (λ/N) diag Λ₀ in δ's place — exact for a diagonal prior,
// an approximation (its off-diagonal part dropped from the preconditioner, though not from the
// mean's gradient) for a full or Kronecker one.
// Approximations, each by name: VOGN's (curvature, Monte Carlo, minibatch, separate rates α and
// β), plus the rank-L truncation of the target (its discarded part is kept on the diagonal only)
// and its randomized eigendecomposition.
//
// Cost per step: S per-example gradient passes over M examples (plus M output Jacobians for the
// GGN, or the sampled-target gradients for the MC Fisher), the factor F of P×R (R = S·M, ·m or
// ·K), the randomized eigendecomposition of WWᵀ, O((power_iterations + 2)·P·(L + R)·k) with
// k = L + oversampling, and Woodbury's factorisation and solve, O(P·L²) + O(L³). Never a P×P
// matrix.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <inference/batch_reducer.hpp>
#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/natural_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/low_rank_gaussian.hpp>
#include <inference/random.hpp>
#include <inference/randomized_eigen.hpp>
#include <inference/slang_options.hpp>
#include <inference/step_failure.hpp>
#include <inference/vogn_curvature.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/mc_fisher.hpp>
#include <nn/per_example.hpp>

namespace ngvi::vi {

template <class Model>
class Slang {
 public:
  using options_type = SlangOptions;
  using posterior_type = LowRankGaussian;

  // Throws std::invalid_argument naming the field for bad options. Cost: O(P·L²) + O(L³).
  Slang(const Model& model, const SlangOptions& o, Rng& rng) : model_(model), o_(o) {
    validate();
    const Eigen::Index p = model.num_params();
    n_over_lambda_ = static_cast<double>(model.num_examples()) / o.kl_weight;
    delta_tilde_ = o.kl_weight * o.prior_precision / static_cast<double>(model.num_examples());
    prior_low_rank_ = Eigen::MatrixXd(p, 0);
    if (!o.prior) {
      prior_diagonal_ = Eigen::VectorXd::Constant(p, delta_tilde_);
    } else if (const LowRankGaussian* q0 = o.prior->family_posterior<LowRankGaussian>()) {
      o.prior->check_dim(p, who());
      prior_diagonal_ = q0->diagonal() / n_over_lambda_;
      prior_low_rank_ = q0->low_rank_factor() / std::sqrt(n_over_lambda_);
    } else {
      o.prior->check_dim(p, who());
      prior_diagonal_ = o.prior->diagonal(p) / n_over_lambda_;
    }
    mu_ = o.initial_mean.size() > 0 ? o.initial_mean : initial_mean(model, rng);
    u_ = o.initial_low_rank.size() > 0 ? o.initial_low_rank : Eigen::MatrixXd::Zero(p, o.rank);
    d_ = o.initial_diagonal.size() > 0 ? o.initial_diagonal
                                       : Eigen::VectorXd::Constant(p, o.initial_curvature);
    if (!factorize())
      throw std::invalid_argument(who() +
                                  ": initial_low_rank and initial_diagonal + λδ/N do not give a "
                                  "finite, positive-definite precision (min d + λδ/N = " +
                                  std::to_string((d_ + prior_diagonal_).minCoeff()) + ")");
  }

  // One SLANG step on in.batch (see the header comment). Cost: see the header comment.
  void step(const StepInput& in, Rng& rng, Counters& c) {
    const double alpha = o_.mean_rate.at(in.iteration), beta = o_.precision_rate.at(in.iteration);
    draw_parameters(mu_, factor_, 1.0 / std::sqrt(n_over_lambda_), o_.mc_samples, rng, thetas_);
    const Eigen::Index p = mu_.size();
    const auto rows = static_cast<Eigen::Index>(in.batch.size()) * rows_per_example();
    Eigen::VectorXd g_hat = Eigen::VectorXd::Zero(p);
    Eigen::MatrixXd f(p, rows * static_cast<Eigen::Index>(thetas_.size()));  // F, P×R
    for (std::size_t s = 0; s < thetas_.size(); ++s) {
      ScopedTimer timer(c.seconds_gradients);
      const std::uint64_t fisher_seed = o_.curvature == VognCurvature::mc_fisher ? rng() : 0;
      const Eigen::VectorXd sums =
          sum_over_batch(in.reducer, in.batch, p + rows * p, in.parallel,
                         [&](std::span<const Eigen::Index> examples, const ad::ParallelOptions& par,
                             Eigen::VectorXd& acc) {
                           add_factors(thetas_[s], in.batch, examples, par, fisher_seed, acc);
                         });
      g_hat += sums.head(p);
      f.middleCols(static_cast<Eigen::Index>(s) * rows, rows) =
          sums.tail(rows * p).reshaped(p, rows);
    }
    const double ms = static_cast<double>(in.batch.size() * thetas_.size());
    g_hat /= ms;

    ScopedTimer timer(c.seconds_linear_algebra);
    // T = (1−β)UUᵀ + βĉ = WWᵀ and its diagonal, with ĉ = FFᵀ/(MS)
    Eigen::MatrixXd w(p, u_.cols() + f.cols() + prior_low_rank_.cols());
    w << std::sqrt(1.0 - beta) * u_, std::sqrt(beta / ms) * f, std::sqrt(beta) * prior_low_rank_;
    const Eigen::VectorXd c_diag = f.rowwise().squaredNorm() / ms;
    Eigen::VectorXd t_diag = (1.0 - beta) * u_.rowwise().squaredNorm() + beta * c_diag;
    if (prior_low_rank_.cols() > 0) t_diag += beta * prior_low_rank_.rowwise().squaredNorm();
    // U ← V diag(√ν), the L leading eigenpairs of T
    if (o_.rank > 0) {
      const Eigenpairs top = randomized_top_eigenpairs(w, o_.rank, o_.eigen, rng());
      u_ = top.vectors * top.values.cwiseMax(0.0).cwiseSqrt().asDiagonal();
    }
    // d ← (1−β)d + diag(T) − diag(UUᵀ)
    d_ = (1.0 - beta) * d_ + t_diag - u_.rowwise().squaredNorm();
    if (!factorize()) {
      if (!d_.allFinite() || !u_.allFinite()) return;  // non-finite: the fit loop reports it
      throw StepFailure(who() + ": at iteration " + std::to_string(in.iteration) +
                        " the precision UUᵀ + diag(d) + λδ/N is not positive definite (min d = " +
                        std::to_string(d_.minCoeff()) + ", curvature = " + to_string(o_.curvature) +
                        "; raise eigen.power_iterations or eigen.oversampling, or lower β)");
    }
    // μ ← μ − α (UUᵀ + diag(d) + λδ̃I)⁻¹(ĝ + λδ̃μ), or (ĝ + (λ/N)Λ₀(μ − μ₀)) for a general prior
    if (o_.prior)
      mu_ -= alpha * factor_.solve(g_hat + o_.prior->gradient(mu_) / n_over_lambda_);
    else
      mu_ -= alpha * factor_.solve(g_hat + delta_tilde_ * mu_);
  }

  // q = N(μ, ((N/λ)(UUᵀ + diag(d) + λδ̃I))⁻¹). Cost: O(P·L²) + O(L³).
  posterior_type posterior() const {
    return LowRankGaussian(mu_, std::sqrt(n_over_lambda_) * u_,
                           n_over_lambda_ * (d_ + prior_diagonal_));
  }
  const Eigen::VectorXd& mean() const { return mu_; }
  // U and d of the running curvature s = UUᵀ + diag(d) (without the prior's λδ̃).
  const Eigen::MatrixXd& low_rank_factor() const { return u_; }
  const Eigen::VectorXd& diagonal() const { return d_; }

  NamedArrays state() const { return {{"mean", mu_}, {"low_rank", u_}, {"diagonal", d_}}; }
  // Throws std::invalid_argument if an array is missing or has the wrong shape, or the precision
  // is not positive definite. Cost: O(P·L²) + O(L³).
  void restore(const NamedArrays& st) {
    const Eigen::Index p = mu_.size();
    mu_ = state_array(st, "mean", p, 1);
    u_ = state_array(st, "low_rank", p, o_.rank);
    d_ = state_array(st, "diagonal", p, 1);
    if (!factorize())
      throw std::invalid_argument(who() + ": the checkpoint's precision is not positive definite");
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(mu_)) return NonFinite{*i, "mean"};
    if (auto i = first_non_finite_entry(d_)) return NonFinite{*i, "precision"};
    for (Eigen::Index i = 0; i < u_.rows(); ++i)
      if (!u_.row(i).allFinite()) return NonFinite{i, "precision"};
    return std::nullopt;
  }

 private:
  static std::string who() { return "ngvi::vi::Slang"; }

  void validate() const {
    const Eigen::Index p = model_.num_params();
    validate_natural_gradient_options(o_, p, who());
    detail::check_at_least(who(), "rank", o_.rank, 0);
    if (o_.rank > p)
      throw std::invalid_argument(who() + ": rank must be <= P = " + std::to_string(p) +
                                  " (the number of parameters), got " + std::to_string(o_.rank));
    detail::check_at_least(who(), "fisher_samples", o_.fisher_samples, 1);
    detail::check_at_least(who(), "eigen.oversampling", o_.eigen.oversampling, 0);
    detail::check_at_least(who(), "eigen.power_iterations", o_.eigen.power_iterations, 0);
    const auto shape = [&](const Eigen::MatrixXd& m, const char* field, Eigen::Index cols) {
      if (m.size() != 0 && (m.rows() != p || m.cols() != cols))
        throw std::invalid_argument(who() + ": " + field + " is " + std::to_string(m.rows()) + "×" +
                                    std::to_string(m.cols()) + ", expected " + std::to_string(p) +
                                    "×" + std::to_string(cols));
    };
    shape(o_.initial_low_rank, "initial_low_rank", o_.rank);
    shape(o_.initial_diagonal, "initial_diagonal", 1);
    for (Eigen::Index i = 0; i < o_.initial_diagonal.size(); ++i)
      detail::check_nonnegative_finite(who(), "initial_diagonal(" + std::to_string(i) + ")",
                                       o_.initial_diagonal(i));
    if constexpr (!nn::OutputLikelihoodModel<Model>)
      if (o_.curvature != VognCurvature::empirical_fisher)
        throw std::invalid_argument(
            who() + ": curvature " + to_string(o_.curvature) +
            " needs a model with outputs and a likelihood (nn::Supervised); use "
            "empirical_fisher");
  }

  // Columns of F per example: 1 (empirical Fisher), m (GGN) or K (MC Fisher).
  Eigen::Index rows_per_example() const {
    if (o_.curvature == VognCurvature::empirical_fisher) return 1;
    if constexpr (nn::OutputLikelihoodModel<Model>)
      if (o_.curvature == VognCurvature::ggn) return model_.output_dim();
    return o_.fisher_samples;
  }

  // Factors UUᵀ + diag(d + λδ̃), λδ̃ per parameter (LowRankGaussian about 0: its solve and sampling).
  // False if it is not finite and positive definite.
  bool factorize() {
    const Eigen::VectorXd shifted = d_ + prior_diagonal_;
    if (!u_.allFinite() || !shifted.allFinite() || !(shifted.array() > 0.0).all()) return false;
    factor_ = LowRankGaussian(Eigen::VectorXd::Zero(mu_.size()), u_, shifted);
    return true;
  }

  // Adds [Σ_{i∈examples} gᵢ; the factors Fᵢ] at θ to acc (P + P·R entries: F column-major, P×R,
  // example i's columns at its position in the batch; examples is a sub-span of batch, as every
  // reducer passes it). Safe to call concurrently on disjoint examples.
  void add_factors(const Eigen::VectorXd& theta, std::span<const Eigen::Index> batch,
                   std::span<const Eigen::Index> examples, const ad::ParallelOptions& par,
                   std::uint64_t fisher_seed, Eigen::VectorXd& acc) const {
    const Eigen::Index p = mu_.size(), r = rows_per_example();
    const auto first = static_cast<Eigen::Index>(examples.data() - batch.data());
    const auto count = static_cast<Eigen::Index>(examples.size());
    if (first < 0 || first + count > static_cast<Eigen::Index>(batch.size()))
      throw std::logic_error(who() + ": a reducer passed examples outside the minibatch's span");
    ad::RowMatrixXd g;
    nn::per_example_gradients(model_, theta, examples, g, par);
    acc.head(p) += g.colwise().sum().transpose();
    Eigen::Map<Eigen::MatrixXd> f(acc.data() + p, p, static_cast<Eigen::Index>(batch.size()) * r);
    f.middleCols(first * r, count * r) +=
        factor_rows(theta, examples, g, par, fisher_seed).transpose();
  }

  // The rows Fᵢᵀ of the examples (count·r × P), given their per-example gradients g at θ.
  ad::RowMatrixXd factor_rows(const Eigen::VectorXd& theta, std::span<const Eigen::Index> examples,
                              const ad::RowMatrixXd& g, const ad::ParallelOptions& par,
                              std::uint64_t fisher_seed) const {
    if (o_.curvature == VognCurvature::empirical_fisher) return g;
    if constexpr (nn::OutputLikelihoodModel<Model>) {
      if (o_.curvature == VognCurvature::ggn) {
        const Eigen::Index m = model_.output_dim();
        ad::RowMatrixXd j;
        Eigen::MatrixXd outputs;
        nn::per_example_jacobians(model_, theta, examples, j, par, &outputs);
        for (std::size_t k = 0; k < examples.size(); ++k) {
          const auto row = static_cast<Eigen::Index>(k) * m;
          const Eigen::VectorXd y = nn::detail::example_target(model_, examples[k]);
          const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> h(model_.likelihood().output_hessian(
              outputs.row(static_cast<Eigen::Index>(k)).transpose(), y));
          const double floor = -1e-12 * h.eigenvalues().cwiseAbs().maxCoeff();
          if (h.eigenvalues().minCoeff() < floor)
            throw StepFailure(who() + ": the output Hessian of example " +
                              std::to_string(examples[k]) + " has the eigenvalue " +
                              std::to_string(h.eigenvalues().minCoeff()) +
                              " (curvature = ggn needs it convex in f for this likelihood; use "
                              "mc_fisher)");
          // Fᵢᵀ = diag(√ν) Zᵀ Jᵢ
          j.middleRows(row, m) = h.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal() *
                                 h.eigenvectors().transpose() * j.middleRows(row, m);
        }
        return j;
      }
      nn::MonteCarloFisherOptions mc;
      mc.samples = o_.fisher_samples;
      mc.seed = fisher_seed;
      mc = ad::with_parallel(mc, par);
      return nn::sampled_target_gradients(model_, theta, examples, mc) /
             std::sqrt(static_cast<double>(o_.fisher_samples));
    }
    throw std::invalid_argument(who() + ": curvature " + to_string(o_.curvature) +
                                " needs nn::Supervised");
  }

  const Model& model_;
  SlangOptions o_;
  double n_over_lambda_ = 1.0;
  double delta_tilde_ = 0.0;  // λδ̃ = λδ/N
  // λδ̃ per parameter: λδ/N, or (λ/N) diag(d₀) / (λ/N) diag Λ₀ for a general prior (above)
  Eigen::VectorXd prior_diagonal_;
  Eigen::MatrixXd prior_low_rank_;  // √(λ/N) U₀ of a low-rank prior (0 columns otherwise)
  Eigen::VectorXd mu_;
  Eigen::MatrixXd u_;                    // U, P×L
  Eigen::VectorXd d_;                    // d
  LowRankGaussian factor_;               // of UUᵀ + diag(d + λδ̃)
  std::vector<Eigen::VectorXd> thetas_;  // this step's θₛ
};

}  // namespace ngvi::vi
