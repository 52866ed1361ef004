// LoopOptions: the part of every method's options that the shared fit loop reads.
//
// Each method's options struct (VonOptions, VognOptions, ...) has a `loop` member of this type
// next to its own settings: how many epochs, the minibatch size M, how often the history is
// recorded and with how many Monte-Carlo samples its ELBO is estimated, and the threads the
// per-example work may use (`o.loop.threads`, the fields every ngvi options struct that runs on
// threads has: autodiff/functional/parallel.hpp). Defaults suit the small problems ngvi is for.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/functional/parallel.hpp>
#include <inference/batch_reducer.hpp>
#include <inference/option_checks.hpp>

namespace ngvi::vi {

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

  // Throws std::invalid_argument naming `who` and the field.
  void validate(const std::string& who) const {
    detail::check_at_least(who, "loop.epochs", epochs, 1);
    detail::check_at_least(who, "loop.minibatch", minibatch, 0);
    detail::check_at_least(who, "loop.threads", threads, 0);
    if (max_iterations < 0 || history_every < 0 || elbo_samples < 0)
      throw std::invalid_argument(
          who + ": loop.max_iterations, history_every and elbo_samples must be >= 0");
  }
};

}  // namespace ngvi::vi
