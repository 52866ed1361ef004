// MinibatchSampler: epochs of non-overlapping minibatches that cover every example once, and a
// restored state that must be a permutation of the examples (issue 22: a checkpoint's order of
// all zeros made every later minibatch example 0).
#include <algorithm>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/minibatch.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(minibatch_test)

namespace vi = ngvi::vi;
using ngvi::test::check_error_mentions;

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

BOOST_AUTO_TEST_SUITE_END()
