// The methods of the study: their keys, labels and what each one is, for results.json, the
// tables and the report's "methods" section. The order is the order of every table and the
// colour of every method in every plot (app/plot gives the n-th series the n-th colour).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ngvi::app::study {

struct MethodInfo {
  std::string key;    // as in results.json and file names
  std::string label;  // in plots and tables
  std::string what;   // one or two sentences for the report
  std::string color;  // "#rrggbb", the same in every plot
};

inline const std::vector<MethodInfo>& method_catalog() {
  static const std::vector<MethodInfo> methods = {
      {"von", "VON (full)",
       "Variational online Newton: natural-gradient VI with a full-covariance Gaussian and the "
       "exact minibatch Hessian at a sample θ ~ q (Khan et al. 2018); negative Hessian eigenvalues "
       "are clipped at 0 so the precision stays positive definite.",
       "#1f77b4"},
      {"von_diagonal", "VON (diagonal)",
       "VON on the mean-field family: the same update with the Hessian's diagonal.", "#aec7e8"},
      {"vogn_full_ggn", "VOGN full (GGN)",
       "Variational online Gauss-Newton with a full covariance and the generalized Gauss-Newton "
       "matrix JᵀH_LJ in place of the Hessian (Khan et al. 2018; Martens 2020).",
       "#ff7f0e"},
      {"vogn_ggn", "VOGN (GGN)", "Diagonal VOGN with the GGN's diagonal.", "#d62728"},
      {"vogn_empirical_fisher", "VOGN (emp. Fisher)",
       "Diagonal VOGN with the empirical Fisher: squared per-example gradients of the observed "
       "targets (the original VOGN, Khan et al. 2018).",
       "#ff9896"},
      {"vogn_mc_fisher", "VOGN (MC Fisher)",
       "Diagonal VOGN with the Monte-Carlo true Fisher: squared per-example gradients for targets "
       "sampled from the model (Zhang et al. 2018).",
       "#9467bd"},
      {"ivon", "IVON",
       "Improved variational online Newton (Shen et al. 2024): diagonal, a Hessian estimate from "
       "the reparameterisation trick (ĝ·ε/σ), no per-example gradients; the package's defaults "
       "β₂ = 0.99999 and h₀ = 1.",
       "#2ca02c"},
      {"ivon_short_memory", "IVON (β₂ = 0.999)",
       "IVON with β₂ = 0.999 (its header's advice for runs of a few thousand steps), so that h "
       "forgets h₀ within about 10³ steps; everything else as above.",
       "#bcbd22"},
      {"noisy_adam", "noisy Adam",
       "Noisy natural gradient with Adam's diagonal Fisher (Zhang et al. 2018, Algorithm 1).",
       "#8c564b"},
      {"noisy_kfac", "noisy K-FAC",
       "Noisy natural gradient with a matrix-variate Gaussian per layer whose precision is K-FAC's "
       "Kronecker factors (Zhang et al. 2018, Algorithm 2).",
       "#e377c2"},
      {"bayes_by_backprop", "Bayes-by-backprop",
       "Reparameterisation-gradient VI on (μ, ρ), σ = softplus(ρ), with Adam (Blundell et al. "
       "2015): the non-natural-gradient baseline.",
       "#17becf"},
      {"map_laplace", "MAP + Laplace",
       "The MAP by Adam, then the Laplace approximation N(θ*, (GGN + δI)⁻¹) with its evidence and "
       "the linearised (GLM) predictive (Immer et al. 2021). Its history rows are the MAP's "
       "(a point mass: the ELBO is −∞ and not drawn).",
       "#7f7f7f"},
  };
  return methods;
}

// Throws std::invalid_argument for an unknown key.
inline const MethodInfo& method_info(const std::string& key) {
  for (const MethodInfo& m : method_catalog())
    if (m.key == key) return m;
  throw std::invalid_argument("ngvi study: unknown method '" + key + "'");
}

// The position of `key` in the catalog (the plots' colour index).
inline std::size_t method_index(const std::string& key) {
  const auto& c = method_catalog();
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i].key == key) return i;
  throw std::invalid_argument("ngvi study: unknown method '" + key + "'");
}

}  // namespace ngvi::app::study
