// per_example_gradients / per_example_hessians: derivatives of each term of a separable
// loss, computed in parallel with oneTBB.
//
// The loss is a callable loss(theta, i) generic in its scalar, giving example i's term ℓᵢ(θ).
// Examples are split into fixed blocks; each TBB task records on its own thread's tape: it
// registers θ once, then for each example records ℓᵢ, sweeps back and rewinds to just after
// θ, so the tape memory is reused. Row i of the result depends only on example i, so results
// are bitwise identical for any number of threads.
//
// parallel_blocks runs the blocks on a requested number of threads. Building and tearing down
// a tbb::task_arena costs tens of microseconds — a quarter of a whole 455-example
// per-example-gradient pass — so it keeps one arena per requested thread count for the life of
// the process. The arenas are deliberately never destroyed: a task_arena destroyed during
// static destruction can outlive TBB's own globals, and a handful of idle arenas costs nothing.
#pragma once

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct ParallelOptions {
  // Worker threads: 0 lets oneTBB choose (all cores), 1 runs on the calling thread only.
  int threads = 0;
  // Examples per task. Fixed, so the split does not depend on the thread count.
  Eigen::Index grain = 16;
};

namespace detail {
// The process-wide arena for `threads` concurrent threads (threads >= 2), built on first use
// and never destroyed (see the top of this file). Thread-safe.
inline tbb::task_arena& cached_arena(int threads) {
  static std::mutex mutex;
  static auto* arenas = new std::map<int, tbb::task_arena*>();  // never freed, see above
  const std::lock_guard<std::mutex> lock(mutex);
  tbb::task_arena*& a = (*arenas)[threads];
  if (a == nullptr) a = new tbb::task_arena(threads);
  return *a;
}
}  // namespace detail

// Runs body(begin, end) over [0, n) in blocks of options.grain (blocks that do not depend on
// the thread count), on options.threads threads: 0 lets oneTBB choose (the current arena), 1
// runs on the calling thread, more run in the cached arena of that size. Throws
// std::invalid_argument for threads < 0. Cost: that of the body calls; no arena is created
// after the first call with a given thread count.
template <class Body>
void parallel_blocks(Eigen::Index n, const ParallelOptions& options, Body&& body) {
  if (options.threads < 0)
    throw std::invalid_argument(
        "ngvi::ad::parallel_blocks: ParallelOptions::threads = " + std::to_string(options.threads) +
        ", expected 0 (automatic) or more");
  const Eigen::Index grain = std::max<Eigen::Index>(options.grain, 1);
  if (options.threads == 1 || n <= grain) {
    for (Eigen::Index b = 0; b < n; b += grain) body(b, std::min(n, b + grain));
    return;
  }
  auto run = [&] {
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (n + grain - 1) / grain, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                        for (Eigen::Index blk = r.begin(); blk < r.end(); ++blk)
                          body(blk * grain, std::min(n, (blk + 1) * grain));
                      });
  };
  if (options.threads == 0) {
    run();
  } else {
    detail::cached_arena(options.threads).execute(run);
  }
}

// Writes ∇ℓᵢ(θ) into row i of G (N×P) and, if given, ℓᵢ(θ) into losses(i).
// Cost: N recordings + N reverse sweeps of one example each, spread over the threads.
template <class F>
void per_example_gradients(F&& loss, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           Eigen::Index n_examples, RowMatrixXd& G,
                           const ParallelOptions& options = {}, Eigen::VectorXd* losses = nullptr) {
  static_assert(std::is_invocable_v<F&, const VarVector<double>&, Eigen::Index>,
                "ngvi::ad::per_example_gradients: the loss must be callable as loss(theta, i) "
                "with an Eigen vector of the AD scalar (write it generic) and an example index");
  const Eigen::Index P = theta.size();
  G.resize(n_examples, P);
  if (losses) losses->resize(n_examples);
  parallel_blocks(n_examples, options, [&](Eigen::Index begin, Eigen::Index end) {
    Recording<double> rec;
    const VarVector<double> th = rec.inputs(theta);
    const auto after_inputs = rec.mark();
    for (Eigen::Index i = begin; i < end; ++i) {
      const Var<double> li = loss(th, i);
      if (losses) (*losses)(i) = li.value();
      if (rec.backward(li))
        G.row(i) = rec.adjoints(th).transpose();
      else
        G.row(i).setZero();
      rec.rewind(after_inputs);
    }
  });
}

// Writes ∇²ℓᵢ(θ) for each example into hessians[i] (P×P each). For small P only.
// Cost: N·⌈P/K⌉ dual recordings + sweeps, spread over the threads.
template <int K = 8, class F>
void per_example_hessians(F&& loss, const Eigen::Ref<const Eigen::VectorXd>& theta,
                          Eigen::Index n_examples, std::vector<Eigen::MatrixXd>& hessians,
                          const ParallelOptions& options = {}) {
  hessians.assign(static_cast<std::size_t>(n_examples), Eigen::MatrixXd());
  const Eigen::VectorXd th = theta;
  parallel_blocks(n_examples, options, [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index i = begin; i < end; ++i)
      hessians[static_cast<std::size_t>(i)] =
          hessian<K>([&](const auto& x) { return loss(x, i); }, th);
  });
}

}  // namespace ngvi::ad
