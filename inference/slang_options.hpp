// SlangOptions: the options of SLANG (slang.hpp), every field with its default and meaning. The
// fields it shares with VOGN mean what they mean there (vogn_options.hpp), so that SLANG with
// rank 0 and the same options is diagonal VOGN. In a header of its own, as VOGN's options are, so
// that code choosing options need not include the method.
#pragma once

#include <optional>

#include <Eigen/Core>

#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/posterior/low_rank_gaussian.hpp>
#include <inference/randomized_eigen.hpp>
#include <inference/schedule.hpp>
#include <inference/vogn_curvature.hpp>

namespace ngvi::vi {

template <class Model>
class Slang;

struct SlangOptions {
  // Epochs, minibatch M, history, threads (shared by every method).
  LoopOptions loop{};
  // δ of the prior N(0, δ⁻¹I).
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier SLANG
  // posterior)). Empty (the default): N(0, δ⁻¹I) above. When set it replaces that prior: a
  // low-rank Λ₀ = U₀U₀ᵀ + diag(d₀) enters exactly (U₀ in the eigen-target, d₀ in place of δ), any
  // other family by diag Λ₀ only in q's precision (an approximation), see slang.hpp.
  std::optional<GaussianPrior> prior{};
  // λ, the weight of the KL in the ELBO (1: proper VI); enters as N/λ, as in VOGN.
  double kl_weight = 1.0;
  // α(t), the step size of the mean (VOGN's default).
  Schedule mean_rate{0.01};
  // β(t), the moving-average weight of the precision, in (0, 1] (VOGN's default).
  Schedule precision_rate{0.1};
  // L, the rank of U, in [0, P]. 0 is diagonal VOGN; P a full-rank precision; 1, the default,
  // the smallest rank beyond the diagonal.
  Eigen::Index rank = 1;
  // S, Monte-Carlo samples θₛ ~ q per step; 0 evaluates everything at the mean.
  int mc_samples = 1;
  // Which per-example curvature the target averages (the paper's is the empirical Fisher).
  VognCurvature curvature = VognCurvature::empirical_fisher;
  // mc_fisher: K, targets sampled per example and θₛ.
  int fisher_samples = 1;
  // The randomized eigendecomposition of the target (oversampling and subspace iterations).
  RandomizedEigenOptions eigen{};
  // U₀ = 0 and d₀ = initial_curvature·1 (VOGN's s₀), unless initial_low_rank / initial_diagonal
  // are given.
  double initial_curvature = 1.0;
  // A warm start: μ₀ (empty: the model's own initialisation, or zeros), U₀ (P×L) and d₀ (P
  // entries, >= 0). q's precision is (N/λ)(UUᵀ + diag(d) + λδ̃I), δ̃ = δ/N.
  Eigen::VectorXd initial_mean{};
  Eigen::MatrixXd initial_low_rank{};
  Eigen::VectorXd initial_diagonal{};

  static constexpr const char* name = "slang";
  using posterior_type = LowRankGaussian;
  template <class Model>
  using method = Slang<Model>;
};

}  // namespace ngvi::vi
