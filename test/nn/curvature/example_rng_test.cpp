// Tests of nn/curvature/example_rng.hpp: the per-example streams are distinct and behave as
// independent streams. The first draw of each of 100 000 examples (three seeds, two streams)
// never repeats — a 64-bit collision among 6·10⁵ draws has probability ~10⁻⁸, a mix that loses
// the index or the stream repeats at once; across examples, the first standard-normal draws
// have mean 0, variance 1 and no correlation between neighbouring examples, between streams or
// between seeds, each within 5 standard errors of its sampling distribution (a bound that a
// correct generator breaks with probability ~10⁻⁶, and that a key mixing the index linearly
// into a generator's first output would break).
#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include <boost/random/normal_distribution.hpp>
#include <boost/test/unit_test.hpp>

#include <nn/curvature/example_rng.hpp>

BOOST_AUTO_TEST_SUITE(example_rng_test)

namespace {

using ngvi::nn::example_rng;

constexpr Eigen::Index kExamples = 100000;

std::vector<double> first_normals(std::uint64_t seed, std::uint64_t stream) {
  std::vector<double> z(static_cast<std::size_t>(kExamples));
  for (Eigen::Index i = 0; i < kExamples; ++i) {
    auto rng = example_rng(seed, i, stream);
    z[static_cast<std::size_t>(i)] = boost::random::normal_distribution<double>(0.0, 1.0)(rng);
  }
  return z;
}

double mean(const std::vector<double>& z) {
  double s = 0.0;
  for (const double v : z) s += v;
  return s / static_cast<double>(z.size());
}

// (1/n) Σ aᵢbᵢ: for independent N(0, 1) sequences, mean 0 and standard error 1/√n.
double cross(const std::vector<double>& a, const std::vector<double>& b, std::size_t lag = 0) {
  double s = 0.0;
  const std::size_t n = a.size() - lag;
  for (std::size_t i = 0; i < n; ++i) s += a[i + lag] * b[i];
  return s / static_cast<double>(n);
}

}  // namespace

BOOST_AUTO_TEST_CASE(first_draws_never_repeat_across_examples_streams_and_seeds) {
  std::unordered_set<std::uint64_t> seen;
  for (const std::uint64_t seed : {0ULL, 1ULL, 20261124ULL})
    for (const std::uint64_t stream : {0ULL, 1ULL})
      for (Eigen::Index i = 0; i < kExamples; ++i) {
        auto rng = example_rng(seed, i, stream);
        BOOST_REQUIRE_MESSAGE(seen.insert(rng()).second,
                              "example " << i << ", seed " << seed << ", stream " << stream);
      }
  auto a = example_rng(7, 3, 0), b = example_rng(7, 3, 0);
  for (int k = 0; k < 1000; ++k) BOOST_REQUIRE(a() == b());
}

BOOST_AUTO_TEST_CASE(first_normals_are_standard_and_uncorrelated) {
  const std::vector<double> z = first_normals(1, 0), w = first_normals(1, 1),
                            v = first_normals(2, 0);
  const double n = static_cast<double>(kExamples), bound = 5.0 / std::sqrt(n);
  BOOST_TEST(std::abs(mean(z)) < bound);
  // The sample second moment has standard error √(2/n) for N(0, 1).
  BOOST_TEST(std::abs(cross(z, z) - 1.0) < 5.0 * std::sqrt(2.0 / n));
  BOOST_TEST(std::abs(cross(z, z, 1)) < bound);  // neighbouring examples
  BOOST_TEST(std::abs(cross(z, w)) < bound);     // stream 0 vs stream 1
  BOOST_TEST(std::abs(cross(z, v)) < bound);     // seed 1 vs seed 2
  BOOST_TEST(std::abs(cross(z, v, 1)) < bound);  // seed 2's neighbour
}

BOOST_AUTO_TEST_SUITE_END()
