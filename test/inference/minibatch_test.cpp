// MinibatchSampler: epochs of non-overlapping minibatches that cover every example once, and a
// restored state that must be a permutation of the examples (issue 22: a checkpoint's order of
// all zeros made every later minibatch example 0). Stratified over row blocks: each epoch covers
// every row once, minibatch t takes c_b(t + 1) − c_b(t) rows of block b (counted here from the
// formula), a restored (key, t) continues with the same minibatches, and the keyed permutation
// behind it is a bijection.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/minibatch.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(minibatch_test)

namespace vi = ngvi::vi;
using ngvi::test::check_error_mentions;

namespace {
std::vector<Eigen::Index> all_rows(Eigen::Index n) {
  std::vector<Eigen::Index> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), Eigen::Index{0});
  return v;
}
}  // namespace

BOOST_AUTO_TEST_CASE(an_epoch_covers_every_example_once) {
  vi::MinibatchSampler s(7, 3);
  vi::Rng rng(5);
  std::vector<Eigen::Index> seen;
  for (int b = 0; b < 3; ++b)
    for (const Eigen::Index i : s.next(rng)) seen.push_back(i);
  BOOST_TEST(s.epoch_finished());
  std::sort(seen.begin(), seen.end());
  BOOST_TEST(seen == (std::vector<Eigen::Index>{0, 1, 2, 3, 4, 5, 6}));
}

BOOST_AUTO_TEST_CASE(restore_takes_a_permutation_only) {
  vi::MinibatchSampler s(4, 2);
  s.restore({3, 1, 0, 2}, 2);
  vi::Rng rng(1);
  const auto batch = s.next(rng);
  BOOST_TEST(
      (std::vector<Eigen::Index>(batch.begin(), batch.end()) == std::vector<Eigen::Index>{0, 2}));
  check_error_mentions(
      [&] {
        s.restore({0, 0, 0, 0}, 0);
      },
      "not a permutation of 0..3: entry 1 is 0, which an earlier entry holds");
  check_error_mentions([&] { s.restore({0, 1, 2, 7}, 0); }, "entry 3 is 7");
  check_error_mentions([&] { s.restore({0, 1, 2}, 0); }, "is for 3 examples");
  BOOST_TEST(!vi::first_non_permutation_entry({}).has_value());
  BOOST_TEST(!vi::first_non_permutation_entry({1, 0}).has_value());
  BOOST_TEST(vi::first_non_permutation_entry({1, 1}).value_or(0) == 1u);
}

BOOST_AUTO_TEST_CASE(keyed_permutations_are_bijections) {
  for (const std::uint64_t n : {1u, 2u, 3u, 5u, 16u, 17u, 1000u, 4097u})
    for (const std::uint64_t key : {0ull, 1ull, 0xdeadbeefcafef00dull}) {
      const vi::KeyedPermutation pi(n, key);
      std::vector<bool> hit(n, false);
      for (std::uint64_t j = 0; j < n; ++j) {
        const std::uint64_t v = pi(j);
        BOOST_TEST_REQUIRE(v < n);
        BOOST_TEST_REQUIRE(!hit[v]);
        hit[v] = true;
      }
    }
  // Another key, another order (1000! orders: equal ones would mean the key is ignored).
  const vi::KeyedPermutation a(1000, 1), b(1000, 2);
  int same = 0;
  for (std::uint64_t j = 0; j < 1000; ++j) same += a(j) == b(j);
  BOOST_TEST(same < 20);
}

BOOST_AUTO_TEST_CASE(stratified_epochs_take_each_blocks_share) {
  // 103 rows in 6 blocks (17 or 18 rows), minibatch 20: T = 6 batches an epoch.
  const vi::RowBlocks blocks(103, 6);
  vi::MinibatchSampler s(blocks, 20);
  BOOST_TEST(s.stratified());
  BOOST_TEST(s.batches_per_epoch() == 6);
  vi::Rng rng(8);
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<Eigen::Index> seen;
    for (Eigen::Index t = 0; t < 6; ++t) {
      BOOST_TEST((!s.epoch_finished() || t == 0));
      const auto batch = s.next(rng);
      for (Eigen::Index b = 0; b < 6; ++b) {
        // c_b(t) = ⌊(t·n_b + s_b)/T⌋, s_b = ⌊b·T/K⌋ = b here.
        const Eigen::Index nb = blocks.size(b);
        const Eigen::Index share = ((t + 1) * nb + b) / 6 - (t * nb + b) / 6;
        const auto in_block = std::count_if(
            batch.begin(), batch.end(), [&](Eigen::Index i) { return blocks.block_of(i) == b; });
        BOOST_TEST(in_block == share);
      }
      seen.insert(seen.end(), batch.begin(), batch.end());
    }
    BOOST_TEST(s.epoch_finished());
    std::sort(seen.begin(), seen.end());
    std::vector<Eigen::Index> all(103);
    std::iota(all.begin(), all.end(), Eigen::Index{0});
    BOOST_TEST(seen == all);
  }
  // Full batch: the rows in order, no draw.
  vi::MinibatchSampler full(blocks, 0);
  vi::Rng untouched(8), copy(8);
  const auto batch = full.next(untouched);
  BOOST_TEST(std::vector<Eigen::Index>(batch.begin(), batch.end()) == all_rows(103));
  BOOST_TEST(untouched() == copy());
  check_error_mentions([&] { vi::MinibatchSampler(blocks, 5); },
                       "minibatch size 5 is below the 6 row blocks");
}

BOOST_AUTO_TEST_CASE(a_stratified_state_restores_the_same_minibatches) {
  const vi::RowBlocks blocks(50, 4);
  vi::MinibatchSampler a(blocks, 8), b(blocks, 8);
  vi::Rng ra(3);
  for (int k = 0; k < 9; ++k) a.next(ra);  // into the second epoch (T = 7)
  vi::Rng rb = ra;
  b.restore_stratified(a.key(), a.position());
  BOOST_TEST(a.position() == 2);
  for (int k = 0; k < 10; ++k) {
    const auto x = a.next(ra);
    const auto y = b.next(rb);
    BOOST_TEST(std::vector<Eigen::Index>(x.begin(), x.end()) ==
               std::vector<Eigen::Index>(y.begin(), y.end()));
  }
  check_error_mentions([&] { b.restore_stratified(1, 8); }, "batch 8 is outside 0..7");
  check_error_mentions([&] { b.restore({0, 1}, 0); }, "stratified over row blocks");
  vi::MinibatchSampler plain(50, 8);
  check_error_mentions([&] { plain.restore_stratified(1, 0); }, "not stratified");
}

BOOST_AUTO_TEST_SUITE_END()
