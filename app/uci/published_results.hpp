// Published UCI regression figures that `ngvi uci` prints beside its own, for the data sets of
// the standard benchmark (the folder names of data/uci/ and Gal's repository).
//
// Their protocols differ from ours, so they are for scale, not a like-for-like comparison:
//   PBP, BBB, NNG-MVG — Zhang, Sun, Duvenaud & Grosse 2018, "Noisy Natural Gradient as
//     Variational Inference", Table 1: 1000 epochs, minibatch 10, a Gamma(6, 6) prior on the
//     noise precision fitted with the weights (Appendix C.1); NNG-MVG is noisy K-FAC;
//   MC dropout — Gal & Ghahramani's DropoutUncertaintyExps (readme, 2018 "grid search" column):
//     dropout rate and τ chosen per split on an 80/20 inner split, 400 epochs of Adam;
//   VOGN (PyTorch) — the PyTorch reference of the peer harness (bench/README.md; Boston only): τ,
//     δ and epochs tuned once on an inner split of split 0, then fixed for all 20 splits.
// All: one hidden layer of 50 units, the 20 standard splits, mean ± standard error.
#pragma once

#include <string_view>
#include <vector>

namespace ngvi::app {

struct PublishedResult {
  const char* method;  // as the source names it
  const char* source;  // where the figure is from
  double rmse, rmse_se, log_likelihood, log_likelihood_se;
};

// The published rows for `dataset` (a folder name such as "bostonHousing"); empty if unknown.
inline std::vector<PublishedResult> published_results(std::string_view dataset) {
  const char* gal = "Gal & Ghahramani, DropoutUncertaintyExps (grid search)";
  const char* s4 = "Zhang et al. 2018, Table 1";
  struct Row {
    const char* dataset;
    PublishedResult result;
  };
  static const Row rows[] = {
      {"bostonHousing", {"MC dropout", gal, 2.90, 0.18, -2.40, 0.04}},
      {"bostonHousing", {"PBP", s4, 3.014, 0.180, -2.574, 0.089}},
      {"bostonHousing", {"BBB", s4, 2.517, 0.022, -2.500, 0.004}},
      {"bostonHousing", {"NNG-MVG (noisy K-FAC)", s4, 2.296, 0.029, -2.336, 0.005}},
      {"bostonHousing",
       {"VOGN (PyTorch reference)", "PyTorch VOGN reference of the peer harness (bench/README.md)",
        3.018, 0.181, -2.517, 0.045}},
      {"concrete", {"MC dropout", gal, 4.82, 0.16, -2.93, 0.02}},
      {"concrete", {"PBP", s4, 5.667, 0.093, -3.161, 0.019}},
      {"concrete", {"BBB", s4, 5.770, 0.066, -3.169, 0.011}},
      {"concrete", {"NNG-MVG (noisy K-FAC)", s4, 5.173, 0.070, -3.073, 0.014}},
      {"energy", {"MC dropout", gal, 0.54, 0.06, -1.21, 0.01}},
      {"energy", {"PBP", s4, 1.804, 0.048, -2.042, 0.019}},
      {"energy", {"BBB", s4, 0.499, 0.019, -1.552, 0.006}},
      {"energy", {"NNG-MVG (noisy K-FAC)", s4, 0.438, 0.003, -1.411, 0.002}},
      {"kin8nm", {"MC dropout", gal, 0.08, 0.00, 1.14, 0.01}},
      {"kin8nm", {"PBP", s4, 0.098, 0.001, 0.896, 0.006}},
      {"kin8nm", {"BBB", s4, 0.079, 0.001, 1.118, 0.004}},
      {"kin8nm", {"NNG-MVG (noisy K-FAC)", s4, 0.076, 0.000, 1.151, 0.006}},
      {"naval-propulsion-plant", {"MC dropout", gal, 0.00, 0.00, 4.45, 0.00}},
      {"naval-propulsion-plant", {"PBP", s4, 0.006, 0.000, 3.731, 0.006}},
      {"naval-propulsion-plant", {"BBB", s4, 0.000, 0.000, 6.431, 0.082}},
      {"naval-propulsion-plant", {"NNG-MVG (noisy K-FAC)", s4, 0.000, 0.000, 7.182, 0.057}},
      {"power-plant", {"MC dropout", gal, 4.01, 0.04, -2.80, 0.01}},
      {"power-plant", {"PBP", s4, 4.124, 0.035, -2.837, 0.009}},
      {"power-plant", {"BBB", s4, 4.224, 0.007, -2.851, 0.001}},
      {"power-plant", {"NNG-MVG (noisy K-FAC)", s4, 4.085, 0.006, -2.818, 0.002}},
      {"protein-tertiary-structure", {"MC dropout", gal, 4.27, 0.02, -2.87, 0.00}},
      {"protein-tertiary-structure", {"PBP", s4, 4.732, 0.013, -2.973, 0.003}},
      {"protein-tertiary-structure", {"BBB", s4, 4.390, 0.009, -2.900, 0.002}},
      {"protein-tertiary-structure", {"NNG-MVG (noisy K-FAC)", s4, 4.058, 0.006, -2.820, 0.002}},
      {"wine-quality-red", {"MC dropout", gal, 0.62, 0.01, -0.93, 0.01}},
      {"wine-quality-red", {"PBP", s4, 0.635, 0.008, -0.968, 0.014}},
      {"wine-quality-red", {"BBB", s4, 0.639, 0.002, -0.971, 0.003}},
      {"wine-quality-red", {"NNG-MVG (noisy K-FAC)", s4, 0.634, 0.001, -0.961, 0.001}},
      {"yacht", {"MC dropout", gal, 0.67, 0.05, -1.25, 0.01}},
      {"yacht", {"PBP", s4, 1.015, 0.054, -1.634, 0.016}},
      {"yacht", {"BBB", s4, 0.983, 0.055, -2.380, 0.004}},
      {"yacht", {"NNG-MVG (noisy K-FAC)", s4, 0.827, 0.017, -2.274, 0.003}},
  };
  std::vector<PublishedResult> out;
  for (const Row& r : rows)
    if (dataset == r.dataset) out.push_back(r.result);
  return out;
}

}  // namespace ngvi::app
