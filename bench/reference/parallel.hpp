// TBB driver for W5 (per-example gradients + squared mean), shared by all
// C++ programs so that the threading overhead is identical.
// [ngvi] Copied unchanged from the peer AD harness (../shared/peers/ad/common/parallel.hpp) so that
// ngvi is measured against the same reference as peers/ad/results.md.
#pragma once

#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace adb {

// rows(n0, n1): compute per-example gradients for examples [n0, n1) into
// G rows (G is N x P row-major). Then diag = mean_n G[n,:]^2.
// nthreads == 1 runs inline without touching TBB.
template <class RowsFn>
void per_example_driver(int N, int P, int nthreads, tbb::task_arena* arena, RowsFn&& rows,
                        std::vector<double>& G, std::vector<double>& diag, int grain = 16) {
  G.resize(std::size_t(N) * P);
  diag.assign(P, 0.0);
  if (nthreads <= 1 || arena == nullptr) {
    rows(0, N);
    for (int n = 0; n < N; ++n) {
      const double* g = G.data() + std::size_t(n) * P;
      for (int p = 0; p < P; ++p) diag[p] += g[p] * g[p];
    }
  } else {
    arena->execute([&] {
      tbb::parallel_for(tbb::blocked_range<int>(0, N, grain),
                        [&](const tbb::blocked_range<int>& r) { rows(r.begin(), r.end()); });
      tbb::parallel_for(tbb::blocked_range<int>(0, P, 64), [&](const tbb::blocked_range<int>& r) {
        for (int n = 0; n < N; ++n) {
          const double* g = G.data() + std::size_t(n) * P;
          for (int p = r.begin(); p < r.end(); ++p) diag[p] += g[p] * g[p];
        }
      });
    });
  }
  const double inv = 1.0 / N;
  for (auto& v : diag) v *= inv;
}

}  // namespace adb
