// keep_freed_memory: sets the C library's allocator for the way ngvi's programs allocate — dense
// matrices of 0.1 to a few MB (P×P curvatures and their factors, per-example Jacobians, a
// block's partial sum) made and freed on every step, on every TBB thread.
//
// With glibc's defaults a block above 128 kB is mapped and unmapped on each allocation, and once
// that threshold has adapted, the free memory at the top of a thread's heap is handed back to the
// kernel whenever it exceeds twice the threshold; either way the next matrix page-faults its
// memory back in, zero-filled, and the kernel's time can exceed the arithmetic's. Measured on the
// idle 2-core machine: `ngvi uci --data data/uci/yacht --splits 2 --epochs 20 --method
// map_laplace --hyperparameters evidence` took 8.1 s (user 9.2 s, system 6.6 s) with the
// defaults and 0.9 s (user 1.7 s, system 0.1 s) with blocks up to 32 MB served from the heap and
// up to 128 MB of free memory kept at a heap's top; neither setting alone helps (7.6 s, 11.4 s).
// The results are the same bytes: only where the memory comes from changes.
//
// Called first thing in main() by the tool and the test programs. A user's own program can make
// the same two calls (this header is not installed), or set the same through the environment:
//   GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=134217728
// Other C libraries: does nothing. Cost: two mallopt calls.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ngvi::app {

inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024);
#endif
}

}  // namespace ngvi::app
