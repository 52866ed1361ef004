// Published UCI regression figures that `ngvi uci` (and, for active learning, `ngvi active`)
// prints beside its own, for the data sets of the standard benchmark (the folder names of
// data/uci/ and Gal's repository).
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

// A published active-learning figure (`ngvi active`): the test RMSE after the last of 10 rounds,
// mean ± standard error over trials, with rows added at random (the control) and by the largest
// predictive variance.
struct PublishedActiveResult {
  const char* method;  // as the source names it
  double random_rmse, random_se, active_rmse, active_se;
};

// Zhang, Sun, Duvenaud & Grosse 2018, "Noisy Natural Gradient as Variational Inference", Table 2
// ("average test RMSE in active learning"; PBP's protocol: 20 training and 100 test rows, one
// hidden layer of 10 units, 10 rounds; the noise precision under a Gamma prior learned with the
// weights). NNG-MVG is noisy K-FAC. Empty for a data set the table lacks.
inline std::vector<PublishedActiveResult> published_active_results(std::string_view dataset) {
  struct Row {
    const char* dataset;
    PublishedActiveResult result;
  };
  static const Row rows[] = {
      {"bostonHousing", {"PBP", 6.716, 0.500, 5.480, 0.175}},
      {"bostonHousing", {"NNG-MVG (noisy K-FAC)", 6.364, 0.287, 5.139, 0.033}},
      {"bostonHousing", {"HMC", 5.750, 0.222, 5.156, 0.150}},
      {"concrete", {"PBP", 12.417, 0.392, 11.894, 0.254}},
      {"concrete", {"NNG-MVG (noisy K-FAC)", 11.869, 0.187, 11.592, 0.117}},
      {"concrete", {"HMC", 10.564, 0.198, 11.484, 0.191}},
      {"energy", {"PBP", 3.743, 0.121, 3.399, 0.064}},
      {"energy", {"NNG-MVG (noisy K-FAC)", 3.419, 0.054, 3.035, 0.038}},
      {"energy", {"HMC", 3.264, 0.067, 3.118, 0.062}},
      {"kin8nm", {"PBP", 0.259, 0.006, 0.254, 0.005}},
      {"kin8nm", {"NNG-MVG (noisy K-FAC)", 0.247, 0.002, 0.236, 0.002}},
      {"kin8nm", {"HMC", 0.226, 0.004, 0.223, 0.003}},
      {"naval-propulsion-plant", {"PBP", 0.015, 0.000, 0.016, 0.000}},
      {"naval-propulsion-plant", {"NNG-MVG (noisy K-FAC)", 0.010, 0.000, 0.009, 0.000}},
      {"naval-propulsion-plant", {"HMC", 0.013, 0.000, 0.012, 0.000}},
      {"power-plant", {"PBP", 5.312, 0.108, 5.068, 0.082}},
      {"power-plant", {"NNG-MVG (noisy K-FAC)", 5.821, 0.056, 5.421, 0.028}},
      {"power-plant", {"HMC", 5.229, 0.097, 4.800, 0.074}},
      {"wine-quality-red", {"PBP", 0.945, 0.044, 0.809, 0.011}},
      {"wine-quality-red", {"NNG-MVG (noisy K-FAC)", 0.773, 0.009, 0.841, 0.007}},
      {"wine-quality-red", {"HMC", 0.740, 0.011, 0.749, 0.010}},
      {"yacht", {"PBP", 5.388, 0.339, 4.508, 0.158}},
      {"yacht", {"NNG-MVG (noisy K-FAC)", 7.142, 0.171, 6.245, 0.068}},
      {"yacht", {"HMC", 4.644, 0.237, 3.211, 0.120}},
  };
  std::vector<PublishedActiveResult> out;
  for (const Row& r : rows)
    if (dataset == r.dataset) out.push_back(r.result);
  return out;
}

// A published Pearson correlation of a method's predictive variances with HMC's (`ngvi active
// --compare-hmc`): mean ± standard error over trials.
struct PublishedCorrelation {
  const char* method;  // as the source names it
  double correlation, standard_error;
};

// Zhang, Sun, Duvenaud & Grosse 2018, Table 3: 10 trials of 20 training rows, the variances on 100
// other rows, one hidden layer of 10 units; NNG-MVG is noisy K-FAC, NNG-BlkTri its
// block-tridiagonal variant. Empty for a data set the table lacks.
inline std::vector<PublishedCorrelation> published_hmc_correlations(std::string_view dataset) {
  struct Row {
    const char* dataset;
    PublishedCorrelation result;
  };
  static const Row rows[] = {
      {"bostonHousing", {"BBB", 0.733, 0.021}},
      {"bostonHousing", {"PBP", 0.761, 0.032}},
      {"bostonHousing", {"NNG-MVG (noisy K-FAC)", 0.891, 0.021}},
      {"bostonHousing", {"NNG-BlkTri", 0.889, 0.024}},
      {"concrete", {"BBB", 0.809, 0.027}},
      {"concrete", {"PBP", 0.817, 0.028}},
      {"concrete", {"NNG-MVG (noisy K-FAC)", 0.913, 0.010}},
      {"concrete", {"NNG-BlkTri", 0.922, 0.006}},
      {"energy", {"BBB", 0.414, 0.074}},
      {"energy", {"PBP", 0.471, 0.076}},
      {"energy", {"NNG-MVG (noisy K-FAC)", 0.617, 0.087}},
      {"energy", {"NNG-BlkTri", 0.646, 0.088}},
      {"kin8nm", {"BBB", 0.681, 0.018}},
      {"kin8nm", {"PBP", 0.587, 0.021}},
      {"kin8nm", {"NNG-MVG (noisy K-FAC)", 0.731, 0.021}},
      {"kin8nm", {"NNG-BlkTri", 0.759, 0.023}},
      {"naval-propulsion-plant", {"BBB", 0.316, 0.094}},
      {"naval-propulsion-plant", {"PBP", 0.270, 0.098}},
      {"naval-propulsion-plant", {"NNG-MVG (noisy K-FAC)", 0.596, 0.073}},
      {"naval-propulsion-plant", {"NNG-BlkTri", 0.598, 0.070}},
      {"power-plant", {"BBB", 0.633, 0.046}},
      {"power-plant", {"PBP", 0.509, 0.068}},
      {"power-plant", {"NNG-MVG (noisy K-FAC)", 0.829, 0.020}},
      {"power-plant", {"NNG-BlkTri", 0.853, 0.020}},
      {"wine-quality-red", {"BBB", 0.915, 0.011}},
      {"wine-quality-red", {"PBP", 0.883, 0.042}},
      {"wine-quality-red", {"NNG-MVG (noisy K-FAC)", 0.957, 0.009}},
      {"wine-quality-red", {"NNG-BlkTri", 0.964, 0.006}},
      {"yacht", {"BBB", 0.617, 0.053}},
      {"yacht", {"PBP", 0.620, 0.053}},
      {"yacht", {"NNG-MVG (noisy K-FAC)", 0.717, 0.072}},
      {"yacht", {"NNG-BlkTri", 0.727, 0.070}},
  };
  std::vector<PublishedCorrelation> out;
  for (const Row& r : rows)
    if (dataset == r.dataset) out.push_back(r.result);
  return out;
}

}  // namespace ngvi::app
