// CurvatureOptions: how the per-example loops behind every curvature matrix are run.
//
// All curvature matrices here are sums over examples. The examples are split into at most
// `reduction_blocks` contiguous blocks whose boundaries depend only on N and these options,
// never on the thread count; each block is summed in example order by one task, and the block
// sums are added in block order. That makes every result bitwise identical for 1, 2 or N
// threads, and caps the scratch memory of a P×P sum at reduction_blocks·P² doubles.
//
// Every curvature function takes one options struct as its last settings argument: this one, or
// one with settings of its own (GgnOptions, MonteCarloFisherOptions, KfacOptions) beside the
// same three fields, so `o.threads = 2` reads the same whatever o is (see
// autodiff/functional/parallel.hpp for the shape of options across ngvi). curvature_options(o)
// reads the three fields back from any of them, with_curvature(o, p) copies them from p into o.
#pragma once

#include <concepts>
#include <utility>

#include <Eigen/Core>

#include <autodiff/functional/parallel.hpp>

namespace ngvi::nn {

struct CurvatureOptions {
  // Threads for the per-example loops (0: oneTBB decides, 1: the calling thread only).
  int threads = 0;
  // The minimum number of examples per task (for the exact Hessian of the whole loss, of
  // Hessian columns per task, rounded up to whole sweeps of 8).
  Eigen::Index grain = 16;
  // At most this many partial sums (each P×P for a full matrix). 16 leaves enough tasks for
  // the 2-8 cores the library targets while bounding memory; changing it changes the
  // summation order, hence the last bits of the result.
  Eigen::Index reduction_blocks = 16;
};

// Any options struct with the three fields of CurvatureOptions.
template <class Options>
concept HasCurvatureFields = ad::HasParallelFields<Options> && requires(const Options& o) {
  { o.reduction_blocks } -> std::convertible_to<Eigen::Index>;
};

// `options` with the threads, grain and reduction blocks of `source` (its other settings kept).
// Cost: a copy.
template <HasCurvatureFields Options, HasCurvatureFields Source>
Options with_curvature(Options options, const Source& source) {
  options = ad::with_parallel(std::move(options), source);
  options.reduction_blocks = source.reduction_blocks;
  return options;
}

// The threads, grain and reduction blocks of `options`. Cost: none.
template <HasCurvatureFields Options>
CurvatureOptions curvature_options(const Options& options) {
  return with_curvature(CurvatureOptions{}, options);
}

}  // namespace ngvi::nn
