// VonOptionsFor<C>: the options of VON (von.hpp) with the covariance structure C, every field
// with its default and meaning; VonOptions (full) and DiagonalVonOptions are its two instances.
// In a header of their own so that a program calling a compiled VON fit (inference/instances.hpp)
// sees the options without the method (fit_declaration.hpp).
#pragma once

#include <optional>

#include <Eigen/Core>

#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/posterior/factored_precision.hpp>
#include <inference/schedule.hpp>
#include <inference/von_remedy.hpp>

namespace ngvi::vi {

template <class Model, Covariance C>
class Von;

// Options of VON with the covariance structure C; VonOptions (full) and DiagonalVonOptions are
// the two instances.
template <Covariance C>
struct VonOptionsFor {
  // Epochs, minibatch M, history, threads (shared by every method).
  LoopOptions loop{};
  // δ of the prior N(0, δ⁻¹I).
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior), continual learning). Empty (the default): the prior N(0, δ⁻¹I) above. When set it
  // replaces that prior (prior_precision is then unused): the mean step's δμ becomes Λ₀(μ − μ₀)
  // and the precision's δI becomes Λ₀ (full) or diag Λ₀ (diagonal, the exact mean-field
  // natural gradient), see von.hpp.
  std::optional<GaussianPrior> prior{};
  // λ, the weight of the KL in the ELBO (1: proper VI); enters as N/λ, see the header comment.
  double kl_weight = 1.0;
  // α(t), the step size of the mean. 0.1 is among the PyTorch reference's tuned choices.
  Schedule mean_rate{0.1};
  // β(t), the step size of the precision (its moving-average weight), in (0, 1].
  Schedule precision_rate{0.1};
  // S, Monte-Carlo samples θₛ ~ q per step; 0 evaluates the expectations at the mean.
  int mc_samples = 1;
  // Λ₀ = (N s₀/λ + δ) I with s₀ this value, unless initial_precision is given: the VOGN-style
  // start of the PyTorch reference (s₀ = 1: a tight q around the initial mean).
  double initial_curvature = 1.0;
  // A warm start (e.g. from a Laplace approximation): μ₀ (empty: the model's own initialisation,
  // or zeros) and Λ₀ (P×P for full, P diagonal entries for diagonal; empty: as above).
  Eigen::VectorXd initial_mean{};
  typename FactoredPrecision<C>::matrix_type initial_precision{};
  // What to do when Λ would not be positive definite (see VonRemedy). Default: the reference's
  // eigenvalue clipping; damp_step is the cheap alternative (no per-step tridiagonalisation).
  VonRemedy remedy = VonRemedy::clip_eigenvalues;
  // clip_eigenvalues: the floor for Ĥ's eigenvalues (per-example units of ℓ); 0 keeps Ĥ PSD.
  double eigenvalue_floor = 0.0;
  // κ of the check of every remedy but clip_eigenvalues: the new Λ passes when it is positive
  // definite AND Λ − κδI is, i.e. no precision fell below κ times the prior's (one more Cholesky
  // per step). Default ½: a positive-definite Λ can still come close to singular where an
  // indefinite Ĥ ate into it, and the mean step Λ⁻¹(Nĝ/λ + δμ) then explodes along that
  // direction (seen on Boston housing, and by the PyTorch reference's Cholesky-checked remedy,
  // which diverged); with κ < 1, ggn_fallback keeps Λ ⪰ κδI at every step. 0: positive
  // definiteness only (no extra Cholesky). In [0, 1).
  double precision_floor = 0.5;
  // damp_step: at most this many halvings of β per step before the step is rejected.
  int max_step_halvings = 30;
  // add_damping: the first ρ in units of δ, and how many tenfold increases are tried.
  double damping = 1.0;
  int max_damping_increases = 30;

  static constexpr const char* name = C == Covariance::full ? "von" : "von_diagonal";
  using posterior_type = typename FactoredPrecision<C>::posterior_type;  // q: full or diagonal
  template <class Model>
  using method = Von<Model, C>;
};

using VonOptions = VonOptionsFor<Covariance::full>;
using DiagonalVonOptions = VonOptionsFor<Covariance::diagonal>;

}  // namespace ngvi::vi
