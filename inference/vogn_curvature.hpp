// VognCurvature: which per-example curvature c(gᵢ) VOGN (vogn.hpp) averages into its precision —
// the empirical Fisher of Khan et al. 2018, the generalized Gauss-Newton matrix (Martens 2020) or
// the Monte-Carlo true Fisher (Zhang et al. 2018); vogn.hpp's header comment gives each one's
// equation and cost. Its own header so that code choosing a curvature (a command line, say) need
// not include the method.
#pragma once

namespace ngvi::vi {

// The per-example curvature c(gᵢ) VOGN averages.
enum class VognCurvature {
  empirical_fisher,  // gᵢgᵢᵀ of the observed targets (Khan et al. 2018)
  ggn,               // Jᵢᵀ H_L,i Jᵢ, the generalized Gauss-Newton (Martens 2020); needs
                     // nn::Supervised
  mc_fisher,         // gradients for targets sampled from the model: the true Fisher (Zhang et al.
                     // 2018); needs nn::Supervised
};

inline const char* to_string(VognCurvature c) {
  switch (c) {
    case VognCurvature::empirical_fisher:
      return "empirical_fisher";
    case VognCurvature::ggn:
      return "ggn";
    case VognCurvature::mc_fisher:
      return "mc_fisher";
  }
  return "unknown";
}

}  // namespace ngvi::vi
