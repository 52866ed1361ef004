// LoopOptions: the part of every method's options that the shared fit loop reads.
//
// Each method's options struct (VonOptions, VognOptions, ...) has a `loop` member of this type
// next to its own settings: how many epochs, the minibatch size M, how often the history is
// recorded and with how many Monte-Carlo samples its ELBO is estimated, and the threads the
// per-example work may use (`o.loop.threads`, the fields every ngvi options struct that runs on
// threads has: autodiff/functional/parallel.hpp). Defaults suit the small problems ngvi is for.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/functional/parallel.hpp>
#include <inference/batch_reducer.hpp>
#include <inference/option_checks.hpp>

namespace ngvi::vi {

// When the fit loop calls a run diverged although every parameter is still finite (a step size
// too large makes the mean run away without overflowing). It reads the training loss at the
// posterior mean per example, ℓ = Σᵢ ℓᵢ(μ) / N, which every history row records (train_nll):
//   ℓ₀  the loss at the initial mean, before the first step (the start);
//   ℓ*  the best so far: the smallest of ℓ₀ and every earlier history row's ℓ.
// A history row has exploded when ℓ − ℓ* > factor · max(|ℓ₀|, |ℓ*|, scale_floor): its loss lies
// `factor` times the loss's own scale above the best. The run stops as failed when `patience`
// consecutive rows have exploded (a transient spike of a noisy start is tolerated) or when the
// row of the last iteration has (no exploded posterior is returned as a result); the posterior
// it returns is that of the last row that had not exploded. With the defaults a Gaussian
// regression at noise precision τ = 10 in standardised units fails once the root mean square
// residual exceeds about 10 target standard deviations; a classifier once its mean cross-entropy
// is 100 nats above its best. Cost: one full-data loss at the start; the rows' losses are
// computed anyway.
struct DivergenceRule {
  bool enabled = true;        // false: only a non-finite value stops a run
  double factor = 100.0;      // how many scales above the best a row's ℓ may lie
  double scale_floor = 1.0;   // the smallest scale, in nats per example (ℓ₀ and ℓ* near 0)
  Eigen::Index patience = 3;  // consecutive exploded rows that stop the run

  // Throws std::invalid_argument naming `who` and the field.
  void validate(const std::string& who) const {
    detail::check_positive_finite(who, "loop.divergence.factor", factor);
    detail::check_positive_finite(who, "loop.divergence.scale_floor", scale_floor);
    detail::check_at_least(who, "loop.divergence.patience", patience, 1);
  }
  // Whether a row of per-example loss `loss` has exploded, given the start's and the best.
  bool exploded(double loss, double start, double best) const {
    const double scale = std::max({std::abs(start), std::abs(best), scale_floor});
    return enabled && loss - best > factor * scale;
  }
};

struct LoopOptions {
  // Passes over the data. Each epoch is ⌈N/M⌉ iterations (one per minibatch).
  Eigen::Index epochs = 100;
  // Minibatch size M; 0 (or ≥ N) means full batch, one iteration per epoch. 32 is the size of
  // the PyTorch VOGN reference's UCI runs (bench/README.md).
  Eigen::Index minibatch = 32;
  // Stop after this many iterations even if epochs remain (0: no such limit).
  Eigen::Index max_iterations = 0;
  // Record a history row every this many iterations, and after the last one (0: only at the
  // end of each epoch). Each row costs elbo_samples + 1 full-data loss evaluations.
  Eigen::Index history_every = 0;
  // Monte-Carlo samples for the history's E_q[log p(D|θ)] (0: evaluate at the mean).
  int elbo_samples = 4;
  // Threads for the per-example work inside a step (gradients, curvature; 0: oneTBB decides,
  // 1: the calling thread only) and the examples per task. Results are bitwise identical for
  // any thread count.
  int threads = 0;
  Eigen::Index grain = 16;
  // How a step adds up its per-example sums over the minibatch (batch_reducer.hpp): empty (the
  // default), in one pass on this process; a BlockedReducer, over fixed blocks; an MPI reducer
  // (distributed/), over the same blocks spread across ranks, with the same bits. Every method
  // sums through it except noisy K-FAC, which forms its whole step on this process.
  std::shared_ptr<const BatchReducer> reducer{};
  // When a run with finite parameters has diverged (see DivergenceRule).
  DivergenceRule divergence{};

  // Throws std::invalid_argument naming `who` and the field.
  void validate(const std::string& who) const {
    detail::check_at_least(who, "loop.epochs", epochs, 1);
    detail::check_at_least(who, "loop.minibatch", minibatch, 0);
    detail::check_at_least(who, "loop.threads", threads, 0);
    if (max_iterations < 0 || history_every < 0 || elbo_samples < 0)
      throw std::invalid_argument(
          who + ": loop.max_iterations, history_every and elbo_samples must be >= 0");
    divergence.validate(who);
  }
  // The iterations a run of `batches_per_epoch` minibatches an epoch makes: epochs × batches,
  // capped at max_iterations. Throws std::invalid_argument naming `who`, the fields and their
  // values if epochs × batches exceeds the largest Eigen::Index and max_iterations does not cap
  // it (a run that could not count its own iterations).
  Eigen::Index total_iterations(const std::string& who, Eigen::Index batches_per_epoch) const {
    const Eigen::Index most = std::numeric_limits<Eigen::Index>::max();
    if (batches_per_epoch > 0 && epochs > most / batches_per_epoch) {
      if (max_iterations > 0) return max_iterations;
      throw std::invalid_argument(
          who + ": loop.epochs × minibatches per epoch = " + std::to_string(epochs) + " × " +
          std::to_string(batches_per_epoch) + " iterations exceeds the largest count, " +
          std::to_string(most) + " (lower loop.epochs or set loop.max_iterations)");
    }
    const Eigen::Index total = epochs * batches_per_epoch;
    return max_iterations > 0 ? std::min(total, max_iterations) : total;
  }
};

}  // namespace ngvi::vi
