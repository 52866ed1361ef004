// Tests of inference/batch_reducer.hpp: the fixed blocks of a minibatch, the block-order sums
// (each example counted once, checked against closed forms that are exact in double), and VOGN
// and VON run through a BlockedReducer: the same bits for 1, 2 and 3 threads, and the same fit
// as without a reducer up to the rounding of the regrouped sums.
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <inference/batch_reducer.hpp>
#include <inference/fit.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>
#include <support/method_fixtures.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(batch_reducer_test)

using namespace ngvi;
using Eigen::Index;

BOOST_AUTO_TEST_CASE(blocks_cut_the_batch_at_floor_k_m_over_k) {
  const vi::BatchBlocks b(10, 4);
  BOOST_TEST(b.count() == 4u);
  const std::vector<std::size_t> begins{0, 2, 5, 7, 10};
  for (std::size_t k = 0; k <= 4; ++k) BOOST_TEST(b.begin(k) == begins[k]);
  // More blocks than examples: one example a block.
  const vi::BatchBlocks small(3, 16);
  BOOST_TEST(small.count() == 3u);
  BOOST_TEST(small.begin(2) == 2u);
  test::check_error_mentions([] { vi::BatchBlocks(5, 0); }, "blocks = 0");
  test::check_error_mentions([] { vi::BlockedReducer(-1); }, "blocks = -1");
}

BOOST_AUTO_TEST_CASE(every_example_is_added_once_for_any_blocks_and_threads) {
  // Contributions (1, i, i²): their sums over a batch of distinct indices are integers below
  // 2⁵³, so any grouping gives exactly the closed forms M, Σi and Σi².
  std::vector<Index> batch(37);
  std::iota(batch.begin(), batch.end(), Index{5});
  const vi::AddContributions add = [](std::span<const Index> ex, const ad::ParallelOptions&,
                                      Eigen::VectorXd& acc) {
    for (const Index i : ex) {
      acc(0) += 1.0;
      acc(1) += double(i);
      acc(2) += double(i * i);
    }
  };
  double s1 = 0.0, s2 = 0.0;
  for (const Index i : batch) {
    s1 += double(i);
    s2 += double(i * i);
  }
  for (const Index blocks : {1, 2, 5, 16, 37, 100})
    for (const int threads : {1, 2, 3}) {
      BOOST_TEST_CONTEXT("blocks " << blocks << ", threads " << threads) {
        const vi::BlockedReducer r(blocks);
        const Eigen::VectorXd s = r.sum(batch, 3, {threads, 16}, add);
        BOOST_TEST(s(0) == 37.0);
        BOOST_TEST(s(1) == s1);
        BOOST_TEST(s(2) == s2);
      }
    }
  // Without a reducer: add once on the whole batch.
  BOOST_TEST(vi::sum_over_batch(nullptr, batch, 3, {}, add)(1) == s1);
}

BOOST_AUTO_TEST_CASE(a_failing_block_rethrows_its_error) {
  std::vector<Index> batch(8);
  std::iota(batch.begin(), batch.end(), Index{0});
  const vi::AddContributions add = [](std::span<const Index> ex, const ad::ParallelOptions&,
                                      Eigen::VectorXd&) {
    for (const Index i : ex)
      if (i == 6) throw std::runtime_error("example 6 is bad");
  };
  test::check_error_mentions(
      [&] {
        vi::BlockedReducer(4).sum(batch, 1, {2, 16}, add);
      },
      "example 6 is bad");
}

// VOGN (each curvature, diagonal and full) and VON with clipping on the tanh MLP problem through
// a BlockedReducer of `blocks` on `threads` threads, or without one (blocks = 0).
template <class Options>
auto fit_with(const Options& base, Index blocks, int threads) {
  const auto model = test::tanh_mlp_problem();
  Options o = base;
  o.loop.threads = threads;
  if (blocks > 0) o.loop.reducer = std::make_shared<vi::BlockedReducer>(blocks);
  vi::Rng rng(41);
  return vi::fit(model, o, rng);
}

template <class Options>
void check_blocked_fit(const Options& o) {
  const auto one = fit_with(o, 3, 1);
  BOOST_TEST_REQUIRE(one.status == vi::FitStatus::finished);
  for (const int threads : {2, 3}) {
    const auto other = fit_with(o, 3, threads);
    NGVI_CHECK_BITWISE(one.posterior.mean(), other.posterior.mean(), "mean");
    NGVI_CHECK_BITWISE(one.posterior.precision(), other.posterior.precision(), "precision");
  }
  // Regrouping the sums changes only their rounding: the same fit as without a reducer.
  const auto plain = fit_with(o, 0, 1);
  NGVI_CHECK_REPORT(ad::verify::compare(one.posterior.mean(), plain.posterior.mean(),
                                        test::vi_tolerances::closed_form, "mean"));
}

BOOST_AUTO_TEST_CASE(vogn_and_von_through_blocks_are_thread_independent_and_unchanged) {
  for (const auto curvature : {vi::VognCurvature::empirical_fisher, vi::VognCurvature::ggn,
                               vi::VognCurvature::mc_fisher}) {
    BOOST_TEST_CONTEXT("vogn, curvature " << vi::to_string(curvature)) {
      check_blocked_fit(vi::VognOptions{.loop = {.epochs = 3, .minibatch = 8, .elbo_samples = 2},
                                        .curvature = curvature});
      check_blocked_fit(vi::FullVognOptions{
          .loop = {.epochs = 3, .minibatch = 8, .elbo_samples = 2}, .curvature = curvature});
    }
  }
  BOOST_TEST_CONTEXT("von") {
    check_blocked_fit(vi::VonOptions{.loop = {.epochs = 3, .minibatch = 8, .elbo_samples = 2}});
  }
}

BOOST_AUTO_TEST_SUITE_END()
