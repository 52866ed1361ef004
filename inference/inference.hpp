// Umbrella header of the inference module (namespace ngvi::vi): Gaussian posterior families,
// the shared fit loop with its options, results, checkpoints and callbacks, the ELBO, and the
// natural-gradient methods and baselines built on nn/ models, and Hamiltonian Monte Carlo with
// its convergence diagnostics. A program that links the compiled library ngvi::instances (which
// defines NGVI_INSTANCES) also gets the declarations of the instantiations it ships
// (inference/instances.hpp), so that it calls them instead of compiling them.
#pragma once

#include <inference/adam.hpp>
#include <inference/bayes_by_backprop.hpp>
#include <inference/callbacks.hpp>
#include <inference/checkpoint.hpp>
#include <inference/classification_metrics.hpp>
#include <inference/elbo.hpp>
#include <inference/evidence_hyperparameters.hpp>
#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/hmc.hpp>
#include <inference/ivon.hpp>
#include <inference/laplace.hpp>
#include <inference/loop_options.hpp>
#include <inference/map.hpp>
#include <inference/mcmc_diagnostics.hpp>
#include <inference/minibatch.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/mixture_predictive.hpp>
#include <inference/natural_gradient.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/factored_precision.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/kronecker_gaussian.hpp>
#include <inference/posterior/low_rank_gaussian.hpp>
#include <inference/posterior/point_estimate.hpp>
#include <inference/posterior/posterior_concept.hpp>
#include <inference/posterior/subnetwork_gaussian.hpp>
#include <inference/predictive.hpp>
#include <inference/random.hpp>
#include <inference/randomized_eigen.hpp>
#include <inference/schedule.hpp>
#include <inference/slang.hpp>
#include <inference/step_failure.hpp>
#include <inference/subnetwork_laplace.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>
#include <inference/von_remedy.hpp>

#if defined(NGVI_INSTANCES) && NGVI_INSTANCES
#include <inference/instances.hpp>
#endif
