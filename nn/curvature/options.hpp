// CurvatureOptions: how the per-example loops behind every curvature matrix are run.
//
// All curvature matrices here are sums over examples. The examples are split into at most
// `reduction_blocks` contiguous blocks whose boundaries depend only on N and these options,
// never on the thread count; each block is summed in example order by one task, and the block
// sums are added in block order. That makes every result bitwise identical for 1, 2 or N
// threads, and caps the scratch memory of a P×P sum at reduction_blocks·P² doubles.
#pragma once

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>

namespace ngvi::nn {

struct CurvatureOptions {
  // Threads for the per-example loops (0: oneTBB decides, 1: the calling thread only) and the
  // minimum number of examples per task. Defaults: all cores, 16 examples per task.
  ad::ParallelOptions parallel{};
  // At most this many partial sums (each P×P for a full matrix). 16 leaves enough tasks for
  // the 2-8 cores the library targets while bounding memory; changing it changes the
  // summation order, hence the last bits of the result.
  Eigen::Index reduction_blocks = 16;
};

}  // namespace ngvi::nn
