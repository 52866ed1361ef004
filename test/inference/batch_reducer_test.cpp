// Tests of inference/batch_reducer.hpp: the fixed blocks of a minibatch, the block-order sums
// (each example counted once, checked against closed forms that are exact in double), and VOGN
// and VON run through a BlockedReducer: the same bits for 1, 2 and 3 threads, and the same fit
// as without a reducer up to the rounding of the regrouped sums. By data rows (RowBlocks): the
// blocks and each process's rows, sums that count each example once whatever the batch's order,
// and a fit through them that is the same for any threads, resumes bitwise mid-epoch and
// refuses a checkpoint drawn the other way.
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

namespace {

// Contributions (1, i, i²) of example i: their sums over a batch are integers below 2⁵³, so any
// grouping gives exactly the closed forms M, Σi and Σi².
const vi::AddContributions counting = [](std::span<const Index> ex, const ad::ParallelOptions&,
                                         Eigen::VectorXd& acc) {
  for (const Index i : ex) {
    acc(0) += 1.0;
    acc(1) += double(i);
    acc(2) += double(i * i);
  }
};

// Checks the sum of `counting` over `batch` (by `reducer`, or without one if null) against the
// closed forms.
void check_counted(const vi::BatchReducer* reducer, const std::vector<Index>& batch, int threads) {
  double s1 = 0.0, s2 = 0.0;
  for (const Index i : batch) {
    s1 += double(i);
    s2 += double(i * i);
  }
  const Eigen::VectorXd s = vi::sum_over_batch(reducer, batch, 3, {threads, 16}, counting);
  BOOST_TEST(s(0) == double(batch.size()));
  BOOST_TEST(s(1) == s1);
  BOOST_TEST(s(2) == s2);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_example_is_added_once_for_any_blocks_and_threads) {
  std::vector<Index> batch(37);
  std::iota(batch.begin(), batch.end(), Index{5});
  for (const Index blocks : {1, 2, 5, 16, 37, 100})
    for (const int threads : {1, 2, 3}) {
      BOOST_TEST_CONTEXT("blocks " << blocks << ", threads " << threads) {
        const vi::BlockedReducer r(blocks);
        check_counted(&r, batch, threads);
      }
    }
  // Without a reducer: add once on the whole batch.
  check_counted(nullptr, batch, 1);
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

BOOST_AUTO_TEST_CASE(row_blocks_cut_the_rows_at_floor_k_n_over_k) {
  const vi::RowBlocks b(10, 4);
  BOOST_TEST(b.count() == 4);
  const std::vector<Index> begins{0, 2, 5, 7, 10};
  for (Index k = 0; k <= 4; ++k) BOOST_TEST(b.begin(k) == begins[static_cast<std::size_t>(k)]);
  for (Index row = 0; row < 10; ++row) {
    const Index k = b.block_of(row);
    BOOST_TEST((b.begin(k) <= row && row < b.begin(k + 1)));
  }
  // 3 processes: blocks {0}, {1}, {2, 3}.
  BOOST_TEST((b.rows_of(0, 3) == std::pair<Index, Index>{0, 2}));
  BOOST_TEST((b.rows_of(1, 3) == std::pair<Index, Index>{2, 5}));
  BOOST_TEST((b.rows_of(2, 3) == std::pair<Index, Index>{5, 10}));
  BOOST_TEST(vi::RowBlocks(3, 16).count() == 3);
  test::check_error_mentions([] { vi::RowBlocks(0, 4); }, "rows = 0");
  test::check_error_mentions([] { vi::RowBlocks(5, 0); }, "blocks = 0");
  test::check_error_mentions([&] { b.split(std::vector<Index>{3, 10}); }, "example 10");
}

BOOST_AUTO_TEST_CASE(row_block_sums_count_each_example_once) {
  // A shuffled batch with a repeat, summed by row blocks.
  const std::vector<Index> batch{7, 0, 33, 12, 12, 5, 40, 21, 2, 39};
  for (const Index blocks : {1, 3, 8, 41})
    for (const int threads : {1, 2}) {
      BOOST_TEST_CONTEXT("blocks " << blocks << ", threads " << threads) {
        const vi::BlockedReducer r(vi::RowBlocks(41, blocks));
        BOOST_TEST_REQUIRE(r.row_blocks() != nullptr);
        check_counted(&r, batch, threads);
      }
    }
  // A batch in block order (a stratified minibatch) is passed as sub-spans of itself.
  const std::vector<Index> sorted{0, 2, 5, 5, 12, 33, 40};
  const vi::BlockedReducer r(vi::RowBlocks(41, 8));
  r.sum(sorted, 1, {1, 16},
        [&](std::span<const Index> ex, const ad::ParallelOptions&, Eigen::VectorXd&) {
          BOOST_TEST((ex.data() >= sorted.data() &&
                      ex.data() + ex.size() <= sorted.data() + sorted.size()));
        });
  check_counted(&r, sorted, 2);
  BOOST_TEST(vi::BlockedReducer(4).row_blocks() == nullptr);
}

BOOST_AUTO_TEST_CASE(a_sum_over_all_rows_has_the_bits_of_the_listed_rows) {
  // Contributions whose rounding depends on the grouping: sum_all must group as sum(0..N−1).
  const vi::AddContributions add = [](std::span<const Index> ex, const ad::ParallelOptions&,
                                      Eigen::VectorXd& acc) {
    for (const Index i : ex) acc(0) += std::sin(double(i) * 0.7) / 3.0;
  };
  std::vector<Index> all(41);
  std::iota(all.begin(), all.end(), Index{0});
  for (const Index blocks : {1, 3, 8}) {
    const vi::BlockedReducer rows(vi::RowBlocks(41, blocks)), positions(blocks);
    BOOST_TEST(rows.sum_all(41, 1, {2, 4}, add)(0) == rows.sum(all, 1, {2, 4}, add)(0));
    BOOST_TEST(positions.sum_all(41, 1, {2, 4}, add)(0) == positions.sum(all, 1, {2, 4}, add)(0));
  }
  test::check_error_mentions(
      [&] { vi::BlockedReducer(vi::RowBlocks(41, 4)).sum_all(40, 1, {}, add); },
      "a sum over all 40 examples, but the row blocks cover 41");
}

// A VOGN fit of the tanh MLP problem whose sums go by 4 row blocks.
vi::VognOptions by_rows(int threads) {
  vi::VognOptions o{.loop = {.epochs = 3, .minibatch = 8, .elbo_samples = 2}};
  o.loop.threads = threads;
  o.loop.history_every = 2;
  o.loop.reducer = std::make_shared<vi::BlockedReducer>(vi::RowBlocks(20, 4));
  return o;
}

BOOST_AUTO_TEST_CASE(a_fit_by_row_blocks_is_thread_independent_and_resumes_bitwise) {
  const auto model = test::tanh_mlp_problem();
  vi::Rng r1(7), r2(7), r3(7);
  const auto one = vi::fit(model, by_rows(1), r1);
  BOOST_TEST_REQUIRE(one.status == vi::FitStatus::finished);
  const auto two = vi::fit(model, by_rows(2), r2);
  NGVI_CHECK_BITWISE(one.posterior.mean(), two.posterior.mean(), "mean");
  NGVI_CHECK_BITWISE(one.posterior.precision(), two.posterior.precision(), "precision");
  // The history's losses are the sums by blocks of what the model gives for all N rows.
  NGVI_CHECK_REPORT(ad::verify::compare(one.history.back().train_nll,
                                        vi::total_nll(model, one.posterior.mean()),
                                        test::vi_tolerances::closed_form, "train_nll"));
  // Checkpointed mid-epoch (iteration 4 of T = 3 a epoch), resumed: the same bits.
  test::CheckpointAt cp{4, std::nullopt};
  vi::fit(model, by_rows(1), r3, cp);
  BOOST_TEST_REQUIRE(cp.saved.has_value());
  const vi::FitCheckpoint c = vi::FitCheckpoint::decode(*cp.saved);
  BOOST_TEST(c.sampler_key.has_value());
  BOOST_TEST(c.order.empty());
  BOOST_TEST(c.position == 1);
  const auto resumed = vi::resume(model, by_rows(2), c);
  NGVI_CHECK_BITWISE(one.posterior.mean(), resumed.posterior.mean(), "resumed mean");
  NGVI_CHECK_BITWISE(one.posterior.precision(), resumed.posterior.precision(), "resumed precision");
  BOOST_TEST(resumed.history.back().elbo == one.history.back().elbo);
  // Another way of drawing minibatches is refused by name, either way round.
  vi::VognOptions plain = by_rows(1);
  plain.loop.reducer = std::make_shared<vi::BlockedReducer>(4);
  test::check_error_mentions([&] { vi::resume(model, plain, c); },
                             "drawn stratified over row blocks");
  test::check_error_mentions(
      [&] {
        vi::VognOptions wrong = by_rows(1);
        wrong.loop.reducer = std::make_shared<vi::BlockedReducer>(vi::RowBlocks(21, 4));
        vi::Rng r(1);
        vi::fit(model, wrong, r);
      },
      "row blocks cover 21 examples, but the model has N = 20");
}

BOOST_AUTO_TEST_SUITE_END()
