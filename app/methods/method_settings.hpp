// MethodSettings: which inference method `ngvi uci` and `ngvi fit` run, and the few settings a
// user of the command line chooses for it.
//
// The library's methods (inference/) each have a full options struct; the tool exposes one
// method name (a row of app/methods/method_table.hpp) and a handful of numbers common to all of
// them (prior precision δ, epochs, minibatch size, the step size), and the table's row fills in
// the rest. The defaults were chosen on an inner validation split of Boston housing's split 0
// (never on a test split). app/methods/fit_method.hpp runs a method with these settings.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include <inference/schedule.hpp>
#include <inference/vogn_curvature.hpp>
#include <inference/von_remedy.hpp>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ngvi::app {

// Where the prior and noise precisions of a fit come from.
enum class HyperparameterSource {
  // As set: `ngvi fit`'s --prior-precision and --noise-precision; `ngvi uci`'s search
  // (cross-validation, or map_laplace's search of the evidence over δ/τ).
  settings,
  // Learned during the one fit from the evidence: for map_laplace by the gradient of the
  // Laplace-GGN evidence (Immer et al. 2021), a δ per parameter block and τ; for
  // map_last_layer_laplace δ and τ at MacKay's fixed point of its evidence after the fit; for the
  // VI methods δ per block and τ by variational EM every epochs/20 epochs after the first quarter
  // (inference/empirical_bayes.hpp).
  evidence,
  // The VI methods only: τ alone, with a Gamma(6, 6) prior and q(τ) updated by variational EM as
  // `evidence` does, δ as set: the regression protocol of Zhang et al. 2018 (Appendix C.1).
  noise,
};

struct MethodSettings {
  // The method's name in the table (app/methods/method_info.hpp); VOGN, Khan et al.'s
  // natural-gradient method.
  std::string method = "vogn";
  // δ of the prior N(0, δ⁻¹I) on every weight and bias (standardised units). 1: the unit prior;
  // the tool's protocols do not tune it (the PyTorch reference found VOGN insensitive to it
  // between 0.1 and 10 on Boston).
  double prior_precision = 1.0;
  // Passes over the training data; 0: the method's default (MethodInfo::epochs).
  Eigen::Index epochs = 0;
  // Minibatch size M; 32 as in the PyTorch reference's UCI runs.
  Eigen::Index minibatch = 32;
  // The step size of the mean (VOGN/VON/IVON α, noisy Adam/K-FAC α, Adam's for BBB/MAP/Laplace);
  // 0: the method's default (MethodInfo::learning_rate).
  double learning_rate = 0.0;
  // The step size of the mean is multiplied by learning_rate_drop from the first step of epoch
  // ⌊learning_rate_drop_at · epochs⌋ + 1 on (vi::Schedule::drop_at): Zhang et al. 2018's protocol
  // decays it by 0.1 for the second half of the epochs. 1: no drop.
  double learning_rate_drop = 1.0;
  double learning_rate_drop_at = 0.5;
  // noisy_kfac only: β, its Kronecker factors' moving-average weight per step (Zhang et al.
  // 2018's β̃; their UCI protocol takes 0.001). 0: the library's default, 0.01.
  double kfac_beta = 0.0;
  // VON only: the remedy for an indefinite precision update. Clipping, as the PyTorch reference
  // does: a tridiagonalisation and the negative eigenpairs per step, and stable at the default step
  // size on Boston, where the Cholesky-checked GGN fallback (no eigendecomposition, about twice as
  // fast) lets the mean diverge in about half of the seeds (bench/README.md).
  vi::VonRemedy von_remedy = vi::VonRemedy::clip_eigenvalues;
  // VOGN only: its curvature. The empirical Fisher of Khan et al. 2018 and the PyTorch reference;
  // its steps scale as 1/τ at a large noise precision τ (squared gradients ∝ τ²), where the GGN's
  // (∝ τ, as the gradient) do not.
  vi::VognCurvature vogn_curvature = vi::VognCurvature::empirical_fisher;
  // SLANG only: L, the rank of its precision's low-rank part UUᵀ (at most P). 8: between the
  // ranks 1 and 32 of Mishkin et al. 2018's experiments, at O(P·L²) a step a few times VOGN's
  // cost on Boston's 13-50-1 network.
  Eigen::Index slang_rank = 8;
  // The Laplace methods only: where δ and τ come from. With `evidence` map_laplace's MAP trains
  // by Adam while δ_b and τ ascend the evidence every epochs/20 epochs after the first quarter
  // (20 Adam steps each, Immer et al.'s step 0.1), and the Laplace approximation is taken at the
  // learned δ_b and τ; map_last_layer_laplace sets them after the fit
  // (app/methods/method_runner.hpp).
  HyperparameterSource hyperparameters = HyperparameterSource::settings;
  // Threads for the per-example work inside one fit (the result does not depend on it).
  int threads = 1;
};

// The most epochs the tool accepts (--epochs of fit and uci): 10⁹, far beyond any useful run, so
// that epochs × minibatches per epoch stays within Eigen::Index for any table (the fit loop
// rejects a count that would not: inference/loop_options.hpp).
inline constexpr Eigen::Index max_epochs = 1'000'000'000;

// Adds --method to `cmd`, storing into `target` (one name, or every name of a repeatable
// option): the help is `help`, then the tool's method names (app/methods/method_info.hpp) and the
// older spellings still accepted; any other name is an error listing them.
CLI::Option* add_method_option(CLI::App& cmd, std::string& target, const std::string& help);
CLI::Option* add_method_option(CLI::App& cmd, std::vector<std::string>& target,
                               const std::string& help);
// The default epochs and step sizes of the tool's methods, for --help: "von 40; vogn, ivon 200;
// ...".
std::string default_epochs_text();
std::string default_learning_rate_text();

// Adds --von-remedy (clip, ggn, damp, add-damping, reject) to `cmd`, storing into s.von_remedy.
void add_von_remedy_option(CLI::App& cmd, MethodSettings& s);
// Adds --vogn-curvature (empirical-fisher, ggn, mc-fisher), storing into s.vogn_curvature.
void add_vogn_curvature_option(CLI::App& cmd, MethodSettings& s);
// Adds --hyperparameters (settings, evidence) to `cmd`, storing into s.hyperparameters; `help`
// says what `settings` means for the command.
void add_hyperparameters_option(CLI::App& cmd, MethodSettings& s, const std::string& help);
const char* hyperparameters_setting_name(HyperparameterSource h);
// Throws UsageError unless `source` is available for the tool's method called `method`: not for
// map (a point estimate has no evidence), `noise` not for the Laplace methods.
void check_hyperparameter_source(const std::string& method, HyperparameterSource source);

// Adds --minibatch (its help: `minibatch_help`), --learning-rate, --learning-rate-drop,
// --learning-rate-drop-at, --von-remedy, --vogn-curvature, --slang-rank and --kfac-beta to `cmd`,
// storing into s: the step settings every fitting subcommand takes.
void add_step_options(CLI::App& cmd, MethodSettings& s, const std::string& minibatch_help);
// The command-line spellings of a remedy and a curvature (as uci.json records them).
const char* von_remedy_setting_name(vi::VonRemedy r);
const char* vogn_curvature_setting_name(vi::VognCurvature c);

// The epochs and step size a run uses: the settings', or the method's default where they are 0.
// Throw UsageError for a method the tool does not run.
Eigen::Index epochs_of(const MethodSettings& s);
double learning_rate_of(const MethodSettings& s);
// The mean's step as a vi::Schedule: learning_rate_of(s), and its drop at the first iteration of
// epoch ⌊learning_rate_drop_at · epochs⌋ + 1 for an epoch of `batches_per_epoch` steps (none
// for learning_rate_drop = 1).
vi::Schedule learning_rate_schedule(const MethodSettings& s, Eigen::Index batches_per_epoch);

}  // namespace ngvi::app
