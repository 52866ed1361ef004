// ParallelOptions / parallel_blocks: how the drivers spread fixed blocks of work over oneTBB
// threads.
//
// Work items (examples, or the Hessian's sweeps of K directions) are cut into blocks whose
// boundaries depend only on the item count and the options, never on the thread count; each
// block is one task and writes only its own outputs, so results are bitwise identical for any
// number of threads. Building and tearing down a tbb::task_arena costs tens of microseconds — a
// quarter of a whole 455-example per-example-gradient pass — so it keeps one arena per requested
// thread count for the life of the process. The arenas are deliberately never destroyed: a
// task_arena destroyed during static destruction can outlive TBB's own globals, and a handful of
// idle arenas costs nothing.
//
// The shape of options across ngvi: every options struct whose work runs on threads has
// `threads` and `grain` as members of its own (nn::CurvatureOptions adds `reduction_blocks`;
// nn::GgnOptions, vi::LoopOptions, vi::LaplaceOptions ... carry the same fields beside their
// own settings), so a user writes `o.threads = 2` whatever o is. parallel_options(o) reads
// those two fields back as the ParallelOptions that parallel_blocks and the drivers take, and
// with_parallel(o, p) copies them from p into o.
#pragma once

#include <algorithm>
#include <concepts>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace ngvi::ad {

struct ParallelOptions {
  // Worker threads: 0 lets oneTBB choose (all cores), 1 runs on the calling thread only.
  int threads = 0;
  // Work items per task: examples for the per-example drivers, Hessian columns for ad::hessian
  // (rounded up to whole sweeps). Fixed, so the split does not depend on the thread count.
  Eigen::Index grain = 16;
};

// Any options struct with the two fields above (see the top of this file).
template <class Options>
concept HasParallelFields = requires(const Options& o) {
  { o.threads } -> std::convertible_to<int>;
  { o.grain } -> std::convertible_to<Eigen::Index>;
};

// `options` with the threads and grain of `source` (its other settings kept). Cost: a copy.
template <HasParallelFields Options, HasParallelFields Source>
Options with_parallel(Options options, const Source& source) {
  options.threads = source.threads;
  options.grain = source.grain;
  return options;
}

// The threads and grain of `options`, as the drivers take them. Cost: none.
template <HasParallelFields Options>
ParallelOptions parallel_options(const Options& options) {
  return with_parallel(ParallelOptions{}, options);
}

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
// runs on the calling thread, more run in the cached arena of that size. The blocks run in an
// isolated region: a thread waiting for them takes no other task, so a caller may be in the
// middle of a recording on its thread's tape, or itself be a block of an outer
// parallel_blocks. Throws std::invalid_argument for threads < 0. Cost: that of the body calls;
// no arena is created after the first call with a given thread count.
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
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (n + grain - 1) / grain, 1),
                        [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index blk = r.begin(); blk < r.end(); ++blk)
                            body(blk * grain, std::min(n, (blk + 1) * grain));
                        });
    });
  };
  if (options.threads == 0) {
    run();
  } else {
    detail::cached_arena(options.threads).execute(run);
  }
}

}  // namespace ngvi::ad
