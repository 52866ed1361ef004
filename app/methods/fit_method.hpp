// fit_method: runs the method a MethodSettings names on a network model, and reports the
// posterior at chosen epochs on the way.
//
// This is where the command-line tool turns a method name into a call of vi::fit with that
// method's options: the settings of app/methods/method_settings.hpp, set by the method's row of
// the method table (app/methods/method_table.hpp). The epoch hook sees the posterior at the end
// of each listed epoch, which is how the UCI protocol (app/uci) picks the number of epochs on a
// validation split without a second run. `map_laplace` fits MAP and hands the hook (and the
// result) the full GGN Laplace approximation at the current MAP estimate; with
// settings.hyperparameters = evidence it learns δ_b and τ during the fit (the hook then sees the
// MAP estimate) and returns the Laplace approximation at them. `map_last_layer_laplace` does the
// same over the last layer only; with evidence hyperparameters it sets δ and τ after the fit, by
// MacKay's fixed point of that approximation's evidence.
//
// To keep compile time in bounds, vi::fit is instantiated for the tool's one model type
// (NetworkModel, app/methods/network_model.hpp) in fit_method.cpp only, compiled in one unit
// with the study's suite (app/CMakeLists.txt); every other file of the tool includes only this
// declaration.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/methods/any_posterior.hpp>
#include <app/methods/learned_hyperparameters.hpp>
#include <app/methods/method_settings.hpp>
#include <app/methods/network_model.hpp>

#include <inference/batch_reducer.hpp>
#include <inference/checkpoint.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/random.hpp>

namespace ngvi::app {

// Called with (epoch, posterior) at the end of each epoch listed in FitRequest::report_epochs.
using EpochHook = std::function<void(Eigen::Index, const AnyPosterior&)>;

struct FitRequest {
  MethodSettings settings{};                // the method and its settings
  std::vector<Eigen::Index> report_epochs;  // epochs (1-based, ascending) to call `hook` after
  EpochHook hook;                           // may be empty
  // How each step adds up its minibatch sums (inference/batch_reducer.hpp): empty, in one pass
  // as the method does alone; a BlockedReducer, or an MpiReducer across ranks (the same bits).
  // The Laplace method's curvature over all N examples goes through it too.
  std::shared_ptr<const vi::BatchReducer> reducer;
  // Writes a checkpoint of the fit loop to this file (atomically) every checkpoint_every
  // iterations and at the end of a run that did not fail; empty: none.
  std::filesystem::path checkpoint;
  Eigen::Index checkpoint_every = 100;
  // Continues this checkpointed run (of the same method, settings and data) instead of starting
  // afresh: the result is bitwise that of the uninterrupted run. The generator passed to
  // fit_method is then not used.
  std::optional<vi::FitCheckpoint> resume;
  // The prior N(μ₀, Λ₀⁻¹) in place of N(0, δ⁻¹I): an earlier fit's posterior (continual
  // learning, inference/gaussian_prior.hpp); empty: settings.prior_precision's isotropic prior.
  std::optional<vi::GaussianPrior> prior;
};

// The Laplace methods' evidence terms at the final MAP estimate θ* (inference/laplace.hpp, or
// inference/subnetwork_laplace.hpp over the last layer's parameters S only), for choosing τ and
// δ by type-II maximum likelihood.
struct LaplaceEvidence {
  double log_marginal_likelihood =
      0.0;  // log p(D) ≈ log p(D|θ*) + log p₀(θ*) + (P/2) log 2π − ½ log det Λ
  double log_likelihood = 0.0;     // log p(D|θ*)
  double log_det_precision = 0.0;  // log det Λ, Λ = GGN(θ*) + δI
  double squared_norm = 0.0;       // ‖θ*‖² (‖θ*_S‖²)
  double gradient_norm = 0.0;  // ‖∇(Σᵢℓᵢ + ½δ‖θ‖²)‖ at θ* (the gradient on S)
  Eigen::Index parameters = 0;  // P, the parameters the approximation is over (P_S)
};

struct FitOutcome {
  AnyPosterior posterior;  // the final q (the last finite one if the run failed)
  bool ok = true;          // false: the run failed numerically (message says where)
  std::string message;     // why it failed; empty otherwise
  double seconds = 0.0;    // wall time of the training loop
  // The Laplace methods only (empty otherwise): the evidence of the final Laplace approximation.
  std::optional<LaplaceEvidence> evidence;
  // --hyperparameters evidence only (empty otherwise): the δ_b and τ the fit learned, at which
  // `posterior` was taken.
  std::optional<LearnedHyperparameters> hyperparameters;
};

// Runs request.settings.method on `model`, drawing from `rng`. A failure of the run (a
// non-finite parameter, a precision that is not positive definite, settings the method rejects)
// gives ok = false and the method's message rather than an exception; a method the tool does not
// run, or request.resume of another method, throws UsageError.
// Cost: the method's steps over epochs_of(settings) epochs, plus the hook's own cost.
FitOutcome fit_method(const NetworkModel& model, const FitRequest& request, vi::Rng& rng);

}  // namespace ngvi::app
