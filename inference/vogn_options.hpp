// VognOptionsFor<C>: the options of VOGN (vogn.hpp) with the covariance structure C, every field
// with its default and meaning; VognOptions (diagonal, Khan et al.'s VOGN) and FullVognOptions are
// its two instances. In a header of their own so that a program calling a compiled VOGN fit
// (inference/instances.hpp) sees the options without the method (fit_declaration.hpp).
#pragma once

#include <optional>

#include <Eigen/Core>

#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/posterior/factored_precision.hpp>
#include <inference/schedule.hpp>
#include <inference/vogn_curvature.hpp>

namespace ngvi::vi {

template <class Model, Covariance C>
class Vogn;

// Options of VOGN with the covariance structure C; VognOptions (diagonal, Khan et al.'s VOGN) and
// FullVognOptions are the two instances.
template <Covariance C>
struct VognOptionsFor {
  // Epochs, minibatch M, history, threads (shared by every method).
  LoopOptions loop{};
  // δ of the prior N(0, δ⁻¹I).
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior), continual learning). Empty (the default): the prior N(0, δ⁻¹I) above. When set it
  // replaces that prior (prior_precision is then unused): λδ̃μ becomes (λ/N)Λ₀(μ − μ₀) and λδ̃I
  // becomes (λ/N)Λ₀ (full) or (λ/N) diag Λ₀ (diagonal), see vogn.hpp.
  std::optional<GaussianPrior> prior{};
  // λ, the weight of the KL in the ELBO (1: proper VI); enters as N/λ, see the header comment.
  double kl_weight = 1.0;
  // α(t), the step size of the mean. 0.01: the middle of the PyTorch reference's tuning grid.
  Schedule mean_rate{0.01};
  // β(t), the moving-average weight of the curvature s, in (0, 1]. 0.1 as in the reference grid.
  Schedule precision_rate{0.1};
  // S, Monte-Carlo samples θₛ ~ q per step; 0 evaluates everything at the mean.
  int mc_samples = 1;
  // Which per-example curvature c(gᵢ) to average.
  VognCurvature curvature = VognCurvature::empirical_fisher;
  // mc_fisher: K, targets sampled per example and θₛ.
  int fisher_samples = 1;
  // s₀ = initial_curvature·1 (or ·I), unless initial_state_curvature is given; 1 is the
  // reference's choice (a starting posterior sd of about 1/√N).
  double initial_curvature = 1.0;
  // A warm start: μ₀ (empty: the model's own initialisation, or zeros) and s₀ (P entries for
  // diagonal, P×P for full; empty: as above). q's precision is (N/λ)(s + λδ̃).
  Eigen::VectorXd initial_mean{};
  typename FactoredPrecision<C>::matrix_type initial_state_curvature{};

  static constexpr const char* name = C == Covariance::full ? "vogn_full" : "vogn";
  using posterior_type = typename FactoredPrecision<C>::posterior_type;  // q: full or diagonal
  template <class Model>
  using method = Vogn<Model, C>;
};

using VognOptions = VognOptionsFor<Covariance::diagonal>;
using FullVognOptions = VognOptionsFor<Covariance::full>;

}  // namespace ngvi::vi
