// The HMC reference posterior of a study network problem (issue 21 §2): NUTS draws from
// p(θ | D) with Stan's diagnostics, as Izmailov, Vikram, Hoffman & Wilson 2021 use long HMC runs
// as the ground truth for Bayesian networks, and each method's posterior scored against it
// (hmc_scores.hpp).
//
// The sampler is inference/hmc.hpp's (vi::hmc, NUTS, diagonal mass matrix adapted in warmup) on
// the same potential the methods minimise, Σᵢℓᵢ(θ) + ½δ‖θ‖², over the training model. Every chain
// starts at the MAP (the map_laplace fit's θ*): a network's posterior has many equivalent modes
// (hidden units permuted, tanh units' signs flipped), each Gaussian approximation describes one
// of them, and chains started apart would land in different ones, so that R-hat measured the
// symmetry and not the mixing. Started at one mode, R-hat and the ESS say whether the chains have
// explored that mode's posterior — what the methods are compared with.
//
// Budget. The study must stay within minutes on two cores, so the chains are short (HmcBudget,
// set per problem in study_problems.cpp) and the tree depth is capped; the diagnostics say
// whether that was enough: a reference whose max R-hat exceeds hmc_rhat_threshold (1.01) is
// "not converged", shown as such, and no finding rests on it (study_verdicts.cpp).
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
