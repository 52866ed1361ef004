// Random draws for inference: standard-normal vectors and minibatch permutations.
//
// Every random number in ngvi::vi comes from a std::mt19937_64 that the caller seeds and passes
// in; nothing reads global state. Normal draws use Boost.Random's normal_distribution, whose
// output is specified by its implementation rather than left to the standard library (as
// std::normal_distribution's is), so a seed gives the same samples on every platform and the
// same bits whatever the number of threads (draws happen on the calling thread only).
#pragma once

#include <cstdint>
#include <random>

#include <Eigen/Core>
#include <boost/random/normal_distribution.hpp>

namespace ngvi::vi {

using Rng = std::mt19937_64;

// n independent N(0, 1) draws. Cost: n normal draws.
inline Eigen::VectorXd standard_normal(Rng& rng, Eigen::Index n) {
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd e(n);
  for (Eigen::Index i = 0; i < n; ++i) e(i) = normal(rng);
  return e;
}

// A rows×cols matrix of independent N(0, 1) draws, filled column by column.
inline Eigen::MatrixXd standard_normal(Rng& rng, Eigen::Index rows, Eigen::Index cols) {
  boost::random::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd e(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) e(i, j) = normal(rng);
  return e;
}

// A uniformly random integer in [0, n), drawn by rejection so that it is exactly uniform and
// platform-independent (std::uniform_int_distribution's algorithm is unspecified).
inline std::uint64_t uniform_index(Rng& rng, std::uint64_t n) {
  const std::uint64_t limit = Rng::max() - (Rng::max() - n + 1) % n;  // largest accepted draw
  std::uint64_t x;
  do x = rng();
  while (x > limit);
  return x % n;
}

// A uniform draw on [lo, hi) from the top 53 bits of one draw (exactly as many as a double
// holds), platform-independent (std::uniform_real_distribution's algorithm is unspecified).
// Cost: one draw.
inline double uniform_real(Rng& rng, double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

}  // namespace ngvi::vi
