// The study's continual-learning problem: a sequence of tasks fitted one after another, where a
// point estimate forgets the first tasks and a Gaussian posterior carried forward as the next
// task's prior should not (Nguyen, Li, Bui & Turner 2018, "Variational Continual Learning").
//
// For tasks D₁, …, D_T independent given θ,
//   p(θ | D₁, …, D_t) ∝ p(D_t | θ) p(θ | D₁, …, D_{t−1}),
// so fitting task t with the posterior after task t − 1 as its prior approximates the posterior
// of all tasks so far; VCL does this with a Gaussian q_{t−1} (vi::prior_from,
// inference/gaussian_prior.hpp), and for a model linear in θ with the Gaussian likelihood the
// carried-prior sequence of VON or full VOGN (GGN) reaches the one-shot posterior exactly. The
// study's tasks: T = 3 pieces of one 1-D regression, y = sin(2x) + N(0, 0.2²), whose input
// interval moves (task t has x ~ U(−3 + 2t, −1 + 2t), t = 0, 1, 2; the whole range [−3, 3]), each
// with its own training and test data drawn from the seed, and the gap problem's 1-16-1 tanh MLP.
// Every method fits task 1, then task 2, then task 3, each stage starting from the previous
// stage's mean (the first from the network's initialisation), with the study's loop and step
// sizes of the gap problem (study_options, app/methods/method_table.hpp):
//   map                      MAP by Adam with the isotropic prior N(0, δ⁻¹I) at every stage: the
//                            forgetting control (scored by its plug-in predictive);
//   vogn_full_ggn            full VOGN (GGN) with the previous stage's posterior as the prior;
//   vogn_full_ggn_no_prior   the same with N(0, δ⁻¹I) at every stage: the control that isolates
//                            the carried prior (its first stage is vogn_full_ggn's, bit for bit);
//   vogn_ggn                 diagonal VOGN (GGN), VCL's mean-field family, prior carried;
//   von                      VON (full covariance), prior carried.
// After every stage t each task j's test log-likelihood and RMSE are measured under the current
// posterior (Monte Carlo from its own generator, so measuring never changes the training draws):
// the matrix "task j after stage t", whose last row is what the study's finding compares.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/methods/network_model.hpp>
#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

#include <inference/loop_options.hpp>

namespace ngvi::app::study {

// One task: its training and test data under the same network and likelihood, and the input
// interval its data were drawn from.
struct ContinualTask {
  std::shared_ptr<const NetworkModel> train, test;
  double low = 0.0, high = 0.0;
};

struct ContinualSetup {
  std::vector<ContinualTask> tasks;  // in the order they are fitted
  vi::LoopOptions loop{};            // every stage's loop (epochs, minibatch; one history row)
  double prior_precision = 1.0;      // δ of the first stage's prior (every stage's for MAP and
                                     // the no-prior control)
  StepSizes steps{};
  std::uint64_t seed = 1;        // initial weights and Monte-Carlo draws
  int predictive_samples = 100;  // draws θ ~ q per test-set measurement
  // Run the full-covariance rows (VON, full VOGN with and without the carried prior).
  bool full_covariance = true;
};

// The study's tasks for a seed (the top of the file): T = 3 of `examples` training and
// `test_examples` test inputs each, drawn from a generator of their own seeded from `seed`.
// Throws std::invalid_argument for fewer than one example. Cost: O(T·(N + N*)).
std::vector<ContinualTask> moving_sine_tasks(std::uint64_t seed, Eigen::Index examples,
                                             Eigen::Index test_examples);

// The continual setup's settings in words, one line (the tasks, the network, the loop).
std::string describe_continual(const ContinualSetup& setup);

// Fits every method of the top of the file to the setup's tasks in order and measures every
// task after every stage. Throws std::invalid_argument for no tasks or tasks whose networks
// differ in P. Cost: 5 methods × T stages, each a fit of the setup's loop (VON: an exact
// minibatch Hessian and its eigendecomposition per step; full VOGN: per-example GGNs), and after
// each stage T test-set predictives of predictive_samples draws.
ContinualStudy run_continual_study(const ContinualSetup& setup);

}  // namespace ngvi::app::study
