// The active-learning protocol (app/active/active_learning.hpp) on a small 1-D regression whose
// pool holds rows far outside the inputs seen in training: a Bayesian network's predictive
// variance grows away from its data, so while no far row is in training the active arm must add
// one whenever the pool has one (a property of the posterior, not of how the protocol picks),
// while the random arm adds the rows its documented streams shuffle and draw. Also: the rows of
// each arm (disjoint, one more per round), the shared first round, the per-round summaries against
// their definitions, the same bits for 1 and 2 threads, and the errors.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/active/active_learning.hpp>
#include <app/uci/split_fits.hpp>
#include <boost/test/unit_test.hpp>
#include <oneapi/tbb/global_control.h>

#include <autodiff/verify/compare.hpp>
#include <inference/random.hpp>
#include <nn/dataset.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(active_learning_test)

namespace app = ngvi::app;
namespace verify = ngvi::ad::verify;

namespace {

// A mean and a standard error of a few numbers: sums of order-one terms.
constexpr verify::Tolerance few_operations{1e-13, 1e-13};

// 50 rows with x ∈ [−1, 1] and y = sin(2x) + noise, then 6 rows with x ∈ [6, 8.5] (rows 50–55).
constexpr Eigen::Index kNear = 50, kFar = 6;
ngvi::nn::Dataset data() {
  ngvi::vi::Rng rng(7);
  ngvi::nn::Dataset d;
  d.X.resize(kNear + kFar, 1);
  d.Y.resize(kNear + kFar, 1);
  for (Eigen::Index i = 0; i < kNear + kFar; ++i) {
    const double x = i < kNear ? ngvi::vi::uniform_real(rng, -1.0, 1.0) : 6.0 + 0.5 * (i - kNear);
    d.X(i, 0) = x;
    d.Y(i, 0) = std::sin(2.0 * x) + 0.1 * ngvi::vi::standard_normal(rng, 1)(0);
  }
  return d;
}

app::ActiveLearningOptions options() {
  app::ActiveLearningOptions o;
  o.settings.method = "vogn";
  o.settings.epochs = 60;
  o.settings.minibatch = 10;
  o.settings.threads = 1;
  o.initial_train = 8;
  o.test = 20;
  o.rounds = 4;
  o.trials = 4;
  o.hidden_units = 10;
  o.noise_precision = 20.0;
  o.predictive_samples = 50;
  o.seed = 11;
  return o;
}

const app::ActiveLearningRun& run() {
  static const app::ActiveLearningRun r = app::run_active_learning(data(), "toy", options());
  return r;
}

bool is_far(Eigen::Index row) { return row >= kNear; }

// The rows of trial k in the order of the documented shuffle: Fisher–Yates driven by
// uci::stream(seed, k, 0, 0).
std::vector<Eigen::Index> shuffled(int k) {
  std::vector<Eigen::Index> order;
  for (Eigen::Index i = 0; i < kNear + kFar; ++i) order.push_back(i);
  ngvi::vi::Rng rng = app::uci::stream(options().seed, k, 0, 0);
  for (std::size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[ngvi::vi::uniform_index(rng, i + 1)]);
  return order;
}

// The training rows and the pool (in the shuffled order) at the start of `round` (1-based) of
// `arm` of trial k.
struct Rows {
  std::vector<Eigen::Index> train, pool;
};
Rows rows_before(int k, const app::ActiveArm& arm, int round) {
  const app::ActiveLearningOptions o = options();
  const std::vector<Eigen::Index> order = shuffled(k);
  Rows r;
  r.train.assign(order.begin(), order.begin() + o.initial_train);
  r.pool.assign(order.begin() + o.initial_train + o.test, order.end());
  for (int j = 1; j < round; ++j) {
    const Eigen::Index added = arm.rounds[static_cast<std::size_t>(j - 1)].added_row;
    r.train.push_back(added);
    r.pool.erase(std::find(r.pool.begin(), r.pool.end(), added));
  }
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_active_arm_adds_a_far_row_while_training_has_none) {
  int far_choices = 0;
  for (int k = 0; k < options().trials; ++k) {
    const app::ActiveTrial& t = run().trials[static_cast<std::size_t>(k)];
    BOOST_REQUIRE(t.active.ok);
    for (int round = 1; round < options().rounds; ++round) {
      const Rows rows = rows_before(k, t.active, round);
      // Once a far row is in training, the other far rows are no longer far from the data.
      if (std::any_of(rows.train.begin(), rows.train.end(), is_far) ||
          std::none_of(rows.pool.begin(), rows.pool.end(), is_far))
        continue;
      const app::ActiveRound& r = t.active.rounds[static_cast<std::size_t>(round - 1)];
      BOOST_TEST_CONTEXT("trial " << k << ", round " << round << ", added row " << r.added_row) {
        BOOST_TEST(is_far(r.added_row));
        BOOST_TEST(r.added_variance == r.max_pool_variance);
      }
      ++far_choices;
    }
  }
  // The shuffles leave far rows in the pool and none in training: the check above ran.
  BOOST_TEST(far_choices >= 2);
}

BOOST_AUTO_TEST_CASE(the_random_arm_adds_the_rows_its_stream_draws) {
  const app::ActiveLearningOptions o = options();
  for (int k = 0; k < o.trials; ++k) {
    const app::ActiveTrial& t = run().trials[static_cast<std::size_t>(k)];
    BOOST_REQUIRE(t.random.ok);
    const std::vector<Eigen::Index> order = shuffled(k);
    BOOST_TEST(t.initial_train_rows ==
                   std::vector<Eigen::Index>(order.begin(), order.begin() + o.initial_train),
               boost::test_tools::per_element());
    for (int round = 1; round < o.rounds; ++round) {
      const Rows rows = rows_before(k, t.random, round);
      ngvi::vi::Rng rng = app::uci::stream(o.seed, k, 4, round);
      const auto pick = ngvi::vi::uniform_index(rng, rows.pool.size());
      const app::ActiveRound& r = t.random.rounds[static_cast<std::size_t>(round - 1)];
      BOOST_TEST(r.added_row == rows.pool[pick]);
      BOOST_TEST(r.added_variance <= r.max_pool_variance);
    }
  }
}

BOOST_AUTO_TEST_CASE(rows_are_disjoint_and_one_is_added_per_round) {
  const app::ActiveLearningOptions o = options();
  for (const app::ActiveTrial& t : run().trials) {
    std::set<Eigen::Index> train(t.initial_train_rows.begin(), t.initial_train_rows.end());
    const std::set<Eigen::Index> test(t.test_rows.begin(), t.test_rows.end());
    BOOST_TEST(train.size() == static_cast<std::size_t>(o.initial_train));
    BOOST_TEST(test.size() == static_cast<std::size_t>(o.test));
    for (const Eigen::Index i : train) BOOST_TEST(!test.count(i));
    for (const app::ActiveArm* arm : {&t.random, &t.active}) {
      BOOST_REQUIRE(arm->rounds.size() == static_cast<std::size_t>(o.rounds));
      std::set<Eigen::Index> grown = train;
      for (int r = 0; r < o.rounds; ++r) {
        const app::ActiveRound& round = arm->rounds[static_cast<std::size_t>(r)];
        BOOST_TEST(round.train_size == o.initial_train + r);
        if (r + 1 == o.rounds) {
          BOOST_TEST(round.added_row == -1);
          continue;
        }
        BOOST_TEST(!test.count(round.added_row));
        BOOST_TEST(grown.insert(round.added_row).second);  // not in training yet
      }
    }
    // Both arms share their first fit.
    BOOST_TEST(t.random.rounds[0].rmse == t.active.rounds[0].rmse);
    BOOST_TEST(t.random.rounds[0].log_likelihood == t.active.rounds[0].log_likelihood);
  }
}

BOOST_AUTO_TEST_CASE(summaries_are_the_mean_and_standard_error_over_trials) {
  const auto& r = run();
  for (int round = 0; round < options().rounds; ++round) {
    const auto k = static_cast<std::size_t>(round);
    std::vector<double> v;
    for (const app::ActiveTrial& t : r.trials) v.push_back(t.active.rounds[k].rmse);
    const double n = static_cast<double>(v.size());
    double mean = 0.0, ss = 0.0;
    for (const double x : v) mean += x;
    mean /= n;
    for (const double x : v) ss += (x - mean) * (x - mean);
    NGVI_CHECK_REPORT(verify::compare(r.active_rmse[k].mean, mean, few_operations, "mean"));
    NGVI_CHECK_REPORT(verify::compare(r.active_rmse[k].standard_error,
                                      std::sqrt(ss / (n - 1.0) / n), few_operations, "se"));
    double difference = 0.0;
    for (const app::ActiveTrial& t : r.trials)
      difference += (t.active.rounds[k].rmse - t.random.rounds[k].rmse) / n;
    NGVI_CHECK_REPORT(verify::compare(r.rmse_difference[k].mean, difference, few_operations,
                                      "paired difference"));
  }
}

BOOST_AUTO_TEST_CASE(same_bits_for_one_and_two_threads) {
  app::ActiveLearningOptions o = options();
  o.trials = 2;
  o.rounds = 2;
  std::vector<double> numbers[2];
  for (const int threads : {1, 2}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    const app::ActiveLearningRun r = app::run_active_learning(data(), "toy", o);
    for (const app::ActiveTrial& t : r.trials)
      for (const app::ActiveArm* arm : {&t.random, &t.active})
        for (const app::ActiveRound& round : arm->rounds)
          numbers[threads - 1].insert(numbers[threads - 1].end(),
                                      {round.rmse, round.log_likelihood, round.added_variance,
                                       static_cast<double>(round.added_row)});
  }
  BOOST_REQUIRE(numbers[0].size() == numbers[1].size());
  BOOST_TEST(
      std::memcmp(numbers[0].data(), numbers[1].data(), numbers[0].size() * sizeof(double)) == 0);
}

// Table 3's statistic: VOGN's predictive variances on the test rows against HMC's on the same
// first training rows. Both posteriors see the far rows as far from the data, so where the test
// rows include far ones and training none, the two routes must agree strongly on where the
// variance is large.
BOOST_AUTO_TEST_CASE(predictive_variances_correlate_with_hmc_where_test_rows_are_far) {
  app::ActiveLearningOptions o = options();
  o.rounds = 1;
  o.compare_hmc = true;
  o.hmc = {.chains = 2, .warmup = 150, .draws = 150, .max_tree_depth = 6, .samples = 200};
  const app::ActiveLearningRun r = app::run_active_learning(data(), "toy", o);
  std::vector<double> correlations;
  int far_trials = 0;
  for (const app::ActiveTrial& t : r.trials) {
    BOOST_TEST(std::isfinite(t.hmc.max_rhat));
    correlations.push_back(t.hmc.correlation);
    // A far training row makes the far test rows near ones.
    const auto far = std::count_if(t.test_rows.begin(), t.test_rows.end(), is_far);
    if (far == 0 || std::any_of(t.initial_train_rows.begin(), t.initial_train_rows.end(), is_far))
      continue;
    ++far_trials;
    BOOST_TEST_CONTEXT("a trial with " << far << " far test rows") {
      BOOST_TEST(t.hmc.correlation > 0.8);
    }
  }
  BOOST_TEST(far_trials >= 2);
  NGVI_CHECK_REPORT(verify::compare(r.hmc_correlation.mean,
                                    std::accumulate(correlations.begin(), correlations.end(), 0.0) /
                                        static_cast<double>(correlations.size()),
                                    few_operations, "mean correlation"));
}

BOOST_AUTO_TEST_CASE(largest_variance_takes_the_first_of_equal_ones) {
  BOOST_TEST(app::largest_variance(Eigen::Vector4d(1.0, 3.0, 3.0, 2.0)) == 1);
  BOOST_CHECK_THROW(app::largest_variance(Eigen::VectorXd()), std::invalid_argument);
  BOOST_CHECK_THROW(app::largest_variance(Eigen::Vector2d(1.0, std::nan(""))),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(too_few_rows_are_an_error_naming_the_numbers) {
  app::ActiveLearningOptions o = options();
  o.test = 48;  // 8 + 48 + 3 = 59 > 56 rows
  try {
    app::run_active_learning(data(), "toy", o);
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("56 rows") != std::string::npos);
    BOOST_TEST(std::string(e.what()).find("need 59") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
