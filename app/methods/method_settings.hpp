// MethodSettings: which inference method `ngvi uci` and `ngvi fit` run, and the few settings a
// user of the command line chooses for it.
//
// The library's methods (inference/) each have a full options struct; the tool exposes one
// method name and a handful of numbers common to all of them (prior precision δ, epochs,
// minibatch size, the step size), and fills in the rest with the defaults documented here, which
// were chosen on an inner validation split of Boston housing's split 0 (never on a test split).
// app/methods/fit_method.hpp runs a method with these settings.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <app/cli/exit_codes.hpp>

namespace ngvi::app {

// The methods the tool can run, by the names the command line uses.
enum class Method {
  vogn,        // VOGN, diagonal, empirical Fisher (inference/vogn.hpp; Khan et al. 2018)
  von,         // VON, full covariance, exact minibatch Hessians (inference/von.hpp; Khan et al.)
  ivon,        // IVON (inference/ivon.hpp; Shen et al. 2024)
  noisy_adam,  // noisy Adam (inference/noisy_adam.hpp; Zhang et al. 2018, Alg. 1)
  noisy_kfac,  // noisy K-FAC (inference/noisy_kfac.hpp; Zhang et al. 2018, Alg. 2)
  bbb,         // Bayes-by-backprop (inference/bayes_by_backprop.hpp)
  map,         // MAP by Adam (inference/map.hpp), the plug-in predictive
  laplace,     // MAP, then the full GGN Laplace approximation with the linearised predictive
};

inline constexpr std::array<Method, 8> all_methods = {
    Method::vogn,       Method::von, Method::ivon, Method::noisy_adam,
    Method::noisy_kfac, Method::bbb, Method::map,  Method::laplace};

inline const char* method_name(Method m) {
  switch (m) {
    case Method::vogn:
      return "vogn";
    case Method::von:
      return "von";
    case Method::ivon:
      return "ivon";
    case Method::noisy_adam:
      return "noisy-adam";
    case Method::noisy_kfac:
      return "noisy-kfac";
    case Method::bbb:
      return "bbb";
    case Method::map:
      return "map";
    case Method::laplace:
      return "laplace";
  }
  return "unknown";
}

// The method called `name` (as method_name spells it). Throws UsageError listing the names.
inline Method parse_method(std::string_view name) {
  std::string known;
  for (const Method m : all_methods) {
    if (name == method_name(m)) return m;
    known += std::string(known.empty() ? "" : ", ") + method_name(m);
  }
  throw UsageError("unknown method '" + std::string(name) + "'; the methods are " + known);
}

// What VON does on a step whose exact Hessian would make its precision indefinite (the choices
// of inference/von.hpp's VonRemedy, by their command-line names).
enum class VonRemedySetting {
  ggn,          // that step's Gauss-Newton matrix in place of the Hessian (ggn_fallback)
  clip,         // clip the minibatch Hessian's eigenvalues at 0 on every step (clip_eigenvalues)
  damp,         // halve β until the Cholesky succeeds (damp_step)
  add_damping,  // add ρI, 10ρI, ... to the failed precision (add_damping)
  reject,       // skip the step (reject_step)
};

inline constexpr std::array<VonRemedySetting, 5> all_von_remedies = {
    VonRemedySetting::clip, VonRemedySetting::ggn, VonRemedySetting::damp,
    VonRemedySetting::add_damping, VonRemedySetting::reject};

inline const char* von_remedy_setting_name(VonRemedySetting r) {
  switch (r) {
    case VonRemedySetting::ggn:
      return "ggn";
    case VonRemedySetting::clip:
      return "clip";
    case VonRemedySetting::damp:
      return "damp";
    case VonRemedySetting::add_damping:
      return "add-damping";
    case VonRemedySetting::reject:
      return "reject";
  }
  return "unknown";
}

// Which per-example curvature VOGN averages (inference/vogn.hpp's VognCurvature, by their
// command-line names).
enum class VognCurvatureSetting {
  empirical_fisher,  // squared per-example gradients of the observed targets (Khan et al. 2018)
  ggn,               // the generalized Gauss-Newton matrix's diagonal
  mc_fisher,         // squared gradients for targets sampled from the model (the true Fisher)
};

inline constexpr std::array<VognCurvatureSetting, 3> all_vogn_curvatures = {
    VognCurvatureSetting::empirical_fisher, VognCurvatureSetting::ggn,
    VognCurvatureSetting::mc_fisher};

inline const char* vogn_curvature_setting_name(VognCurvatureSetting c) {
  switch (c) {
    case VognCurvatureSetting::empirical_fisher:
      return "empirical-fisher";
    case VognCurvatureSetting::ggn:
      return "ggn";
    case VognCurvatureSetting::mc_fisher:
      return "mc-fisher";
  }
  return "unknown";
}

struct MethodSettings {
  Method method = Method::vogn;  // which method; VOGN, Khan et al.'s natural-gradient method
  // δ of the prior N(0, δ⁻¹I) on every weight and bias (standardised units). 1: the unit prior;
  // the tool's protocols do not tune it (the PyTorch reference found VOGN insensitive to it
  // between 0.1 and 10 on Boston).
  double prior_precision = 1.0;
  // Passes over the training data; 0: the method's default (default_epochs).
  Eigen::Index epochs = 0;
  // Minibatch size M; 32 as in the PyTorch reference's UCI runs.
  Eigen::Index minibatch = 32;
  // The step size of the mean (VOGN/VON/IVON α, noisy Adam/K-FAC α, Adam's for BBB/MAP/Laplace);
  // 0: the method's default (default_learning_rate).
  double learning_rate = 0.0;
  // VON only: the remedy for an indefinite precision update. clip, as the PyTorch reference
  // does: one eigendecomposition per step, and stable at the default step size on Boston, where
  // the Cholesky-checked ggn (no eigendecomposition, about twice as fast) lets the mean diverge
  // in about half of the seeds (bench/README.md).
  VonRemedySetting von_remedy = VonRemedySetting::clip;
  // VOGN only: its curvature. The empirical Fisher of Khan et al. 2018 and the PyTorch reference;
  // its steps scale as 1/τ at a large noise precision τ (squared gradients ∝ τ²), where the GGN's
  // (∝ τ, as the gradient) do not.
  VognCurvatureSetting vogn_curvature = VognCurvatureSetting::empirical_fisher;
  // Threads for the per-example work inside one fit (the result does not depend on it).
  int threads = 1;
};

// The most epochs the tool accepts (--epochs of fit and uci): 10⁹, far beyond any useful run, so
// that epochs × minibatches per epoch stays within Eigen::Index for any table (the fit loop
// rejects a count that would not: inference/loop_options.hpp).
inline constexpr Eigen::Index max_epochs = 1'000'000'000;

// Adds --von-remedy (the choices of VonRemedySetting) to `cmd`, storing into s.von_remedy.
void add_von_remedy_option(CLI::App& cmd, MethodSettings& s);
// Adds --vogn-curvature (the choices of VognCurvatureSetting), storing into s.vogn_curvature.
void add_vogn_curvature_option(CLI::App& cmd, MethodSettings& s);

// The default epochs of each method (defined in method_settings.cpp, so that retuning a default
// recompiles one small file): where its validation log-likelihood on Boston's inner split
// stopped improving (the natural-gradient methods need far fewer than the Adam-based ones).
Eigen::Index default_epochs(Method m);
// The default step size of each method (see MethodSettings::learning_rate).
double default_learning_rate(Method m);

inline Eigen::Index epochs_of(const MethodSettings& s) {
  return s.epochs > 0 ? s.epochs : default_epochs(s.method);
}
inline double learning_rate_of(const MethodSettings& s) {
  return s.learning_rate > 0.0 ? s.learning_rate : default_learning_rate(s.method);
}

}  // namespace ngvi::app
