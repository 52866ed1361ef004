// Running blocks of examples on a fixed number of threads, with oneTBB arenas kept across calls.
//
// ngvi::ad::parallel_blocks cuts [0, n) into fixed blocks (so results do not depend on the
// thread count) and, for a requested thread count above 1, builds a tbb::task_arena for the
// call. Building and tearing down an arena costs tens of microseconds — a quarter of a whole
// 455-example per-example-gradient pass — so nn keeps one arena per requested thread count
// for the life of the process and runs the engine's loop inside it (with threads = 0, "the
// current arena"). The arenas are deliberately never destroyed: a task_arena destroyed during
// static destruction can outlive TBB's own globals, and a handful of idle arenas costs nothing.
// The blocks, and therefore every result bit, are exactly those of ad::parallel_blocks.
#pragma once

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tbb/task_arena.h>

#include <autodiff/functional/per_example.hpp>

namespace ngvi::nn {

namespace detail {
// The process-wide arena for `threads` concurrent threads (threads >= 2). Thread-safe.
inline tbb::task_arena& cached_arena(int threads) {
  static std::mutex mutex;
  static auto* arenas = new std::map<int, tbb::task_arena*>();  // never freed, see above
  const std::lock_guard<std::mutex> lock(mutex);
  tbb::task_arena*& a = (*arenas)[threads];
  if (a == nullptr) a = new tbb::task_arena(threads);
  return *a;
}
}  // namespace detail

// Runs f(options') where options' has the same blocks as `options` and runs on
// options.threads threads: directly for 0 (TBB's choice) or 1 (the calling thread), inside a
// cached arena of that size otherwise. f must pass options' on to the ad:: driver it calls.
// Cost: that of f; no arena is created after the first call with a given thread count.
template <class F>
void run_with_threads(const ad::ParallelOptions& options, F&& f) {
  if (options.threads < 0)
    throw std::invalid_argument(
        "ngvi::nn: ParallelOptions::threads = " + std::to_string(options.threads) +
        ", expected 0 (automatic) or more");
  if (options.threads <= 1) {
    f(options);
    return;
  }
  ad::ParallelOptions inner = options;
  inner.threads = 0;  // the enclosing (cached) arena
  detail::cached_arena(options.threads).execute([&] { f(inner); });
}

// ad::parallel_blocks(n, options, body) on a cached arena. Cost: that of the body calls.
template <class Body>
void parallel_blocks(Eigen::Index n, const ad::ParallelOptions& options, Body&& body) {
  run_with_threads(options, [&](const ad::ParallelOptions& o) { ad::parallel_blocks(n, o, body); });
}

}  // namespace ngvi::nn
