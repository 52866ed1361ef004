// The HMC reference posterior of a study network problem (issue 21 §2): NUTS draws from
// p(θ | D) with Stan's diagnostics, as Izmailov, Vikram, Hoffman & Wilson 2021 use long HMC runs
// as the ground truth for Bayesian networks, and each method's posterior scored against it
// (hmc_scores.hpp).
//
// The sampler is inference/hmc.hpp's (vi::hmc, NUTS, diagonal mass matrix adapted in warmup) on
// the same potential the methods minimise, Σᵢℓᵢ(θ) + ½δ‖θ‖², over the training model. Every chain
// starts at the MAP (the map_laplace fit's θ*): a network's posterior has many equivalent modes
// (hidden units permuted, tanh units' signs flipped), each Gaussian approximation describes one
// of them, and chains started apart would land in different ones.
//
// What R-hat measures. Started at one mode, the chains need not stay in it: a tanh unit's
// (w, b, v) and (−w, −b, −v) give the same function, and the two are joined through v = 0, where
// the prior puts mass. On the gap problem (16 units, τ = 25; seeds 1 and 2 run apart from the
// study) every unit's output weight changes sign 60–140 times in a chain's 300 draws, the pooled
// parameter marginals are the symmetrised ones (means ≈ 0, sds ≈ 1, the prior's; correlations
// at most 0.16 in absolute value), and the parameters' R-hat (max over 49) measures how evenly 4
// chains of a few hundred draws have visited 2¹⁶ sign patterns: 1.023–1.050 at 4 × (300 + 300),
// tree depth 9 (seeds 1–5 and 101–105), where the function values at the gap's 9 evaluation
// points, which no symmetry changes, have R-hat 1.001–1.007 and bulk-ESS 1045–1264 of 1200. A
// dense mass matrix does not help (inference/hmc.hpp: the dependence is curved, not linear). So
// the reference carries both: the parameters' R-hat for claims about the parameters' marginals
// (HmcReference::converged), and the R-hat of the function values at the evaluation points for
// claims about the predictive there (HmcReference::converged_points); each finding rests only on
// the one for its quantity.
//
// Budget. The study must stay within minutes on two cores, so the chains are short (HmcBudget,
// set per problem in study_problems.cpp) and the tree depth is capped; the diagnostics say
// whether that was enough: a reference whose max R-hat over a finding's quantity exceeds
// hmc_rhat_threshold (1.01) is "not converged" for it, shown as such, and that finding does not
// rest on it (study_verdicts.cpp).
// Determinism: the chains' streams come from the problem's seed and vi::hmc runs them as
// independent tasks, so the reference is the same bits for any thread count.
#pragma once

#include <Eigen/Core>
#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

struct HmcBudget {
  // Chains, warmup and kept draws per chain: 4 chains, as Stan, for R-hat; the lengths are set
  // per problem (study_problems.cpp) within the study's time budget.
  int chains = 4;
  int warmup = 300;
  int draws = 300;
  // NUTS's cap on the doublings per transition (2^depth − 1 leapfrog steps at most); Stan's 10
  // is unaffordable where the posterior is narrow in some directions and wide in others.
  int max_tree_depth = 7;
  // Draws (with replacement from the pooled draws) for the test log-likelihood of the HMC
  // predictive.
  int predictive_samples = 400;
};

// NUTS from `start` (every chain), then the reference's diagnostics, marginals, test metrics
// and predictive at s.evaluation_points. Cost: chains × (warmup + draws) transitions of at most
// 2^max_tree_depth − 1 gradients of the training loss, spread over the threads by chain.
HmcReference hmc_reference(const ProblemSetup& s, const Eigen::VectorXd& start,
                           const HmcBudget& budget);

}  // namespace ngvi::app::study
