// example_rng: the random stream of one example, derived from (seed, example index).
//
// Monte-Carlo curvature (targets sampled from the model's predictive) must not depend on which
// thread handles which example. Each example therefore gets its own generator, seeded from the
// caller's seed and the example index through std::seed_seq (whose mixing is specified by the
// standard, so the stream is the same on every platform; the distributions drawn from it are
// those of the standard library in use). `stream` separates independent uses of the same seed
// (e.g. Fisher targets vs K-FAC targets) when a caller wants them uncorrelated.
#pragma once

#include <cstdint>
#include <random>

#include <Eigen/Core>

namespace ngvi::nn {

// Cost: one seed_seq expansion (a few hundred integer operations).
inline std::mt19937_64 example_rng(std::uint64_t seed, Eigen::Index example,
                                   std::uint64_t stream = 0) {
  const auto i = static_cast<std::uint64_t>(example);
  std::seed_seq seq{static_cast<std::uint32_t>(seed),   static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(i),      static_cast<std::uint32_t>(i >> 32),
                    static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  return std::mt19937_64(seq);
}

}  // namespace ngvi::nn
