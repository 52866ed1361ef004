// example_rng: the random stream of one example, derived from (seed, example index).
//
// Monte-Carlo curvature (targets sampled from the model's predictive) must not depend on which
// thread handles which example. Each example therefore gets its own generator, a std::mt19937_64
// seeded with one 64-bit key mixed from the caller's seed, the example index and `stream` by
// SplitMix64's output function (Steele, Lea and Flood 2014; a bijection of 64 bits, so distinct
// examples of one seed and stream never share a key). std::mt19937_64's single-value seeding is
// specified by the standard, so the stream is the same on every platform. `stream` separates
// independent uses of the same seed (e.g. Fisher targets vs K-FAC targets) when a caller wants
// them uncorrelated.
//
// A std::seed_seq over the six 32-bit words did the same mixing at ~11 µs an example (it expands
// to 624 words); the key costs ~1 µs (the generator's 312-word initialisation), which is what
// made noisy Adam's sampled Fisher (32 examples a step) cost 6 BBB steps.
#pragma once

#include <cstdint>
#include <random>

#include <Eigen/Core>

namespace ngvi::nn {

namespace detail {
// SplitMix64's finaliser: bijective, every input bit affects every output bit.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace detail

// Cost: three 64-bit mixes and the generator's 312-word initialisation (~1 µs).
inline std::mt19937_64 example_rng(std::uint64_t seed, Eigen::Index example,
                                   std::uint64_t stream = 0) {
  constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;  // SplitMix64's increment
  using detail::splitmix64_mix;
  const std::uint64_t key =
      splitmix64_mix(splitmix64_mix(splitmix64_mix(seed + golden) ^
                                    (static_cast<std::uint64_t>(example) + 2 * golden)) ^
                     (stream + 3 * golden));
  return std::mt19937_64(key);
}

}  // namespace ngvi::nn
