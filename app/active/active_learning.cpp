#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <app/active/active_learning.hpp>
#include <app/methods/fit_method.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/split_fits.hpp>
#include <boost/math/statistics/bivariate_statistics.hpp>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <inference/random.hpp>

namespace ngvi::app {

Eigen::Index largest_variance(const Eigen::VectorXd& variances) {
  if (variances.size() == 0)
    throw std::invalid_argument("ngvi::app::largest_variance: no variances (the pool is empty)");
  Eigen::Index best = 0;
  for (Eigen::Index i = 0; i < variances.size(); ++i) {
    if (std::isnan(variances(i)))
      throw std::invalid_argument("ngvi::app::largest_variance: variance " + std::to_string(i) +
                                  " is NaN");
    if (variances(i) > variances(best)) best = i;
  }
  return best;
}

namespace {

// The streams of a trial (uci::stream's split and fit coordinates; the round is its epoch).
enum ActiveStream : int {
  shuffle_stream = 0,
  fit_stream = 1,
  test_stream = 2,
  pool_stream = 3,
  draw_stream = 4,
  hmc_stream = 5
};

void check_active_options(const nn::Dataset& data, const ActiveLearningOptions& o) {
  const std::string who = "ngvi::app::run_active_learning: ";
  auto positive = [&](const char* name, long long v) {
    if (v < 1) throw std::invalid_argument(who + name + " must be >= 1, got " + std::to_string(v));
  };
  positive("initial_train", o.initial_train);
  positive("test", o.test);
  positive("rounds", o.rounds);
  positive("trials", o.trials);
  positive("hidden_units", o.hidden_units);
  positive("predictive_samples", o.predictive_samples);
  if (!(std::isfinite(o.noise_precision) && o.noise_precision > 0.0))
    throw std::invalid_argument(who + "noise_precision must be positive and finite, got " +
                                std::to_string(o.noise_precision));
  if (data.target_dim() != 1)
    throw std::invalid_argument(who + "the data set has " + std::to_string(data.target_dim()) +
                                " target columns; the protocol takes one");
  const Eigen::Index needed = o.initial_train + o.test + o.rounds - 1;
  if (data.size() < needed)
    throw std::invalid_argument(who + "the data set has " + std::to_string(data.size()) +
                                " rows; " + std::to_string(o.initial_train) + " training + " +
                                std::to_string(o.test) + " test rows and " +
                                std::to_string(o.rounds - 1) + " added from the pool need " +
                                std::to_string(needed));
}

// One round of an arm on the rows `train`: fit, score on the test rows and, unless it is the
// last, the predictive variance of every pool row. Returns false (and sets message) if the fit
// failed.
struct RoundFit {
  ActiveRound round;
  Eigen::VectorXd pool_variances;
  Eigen::VectorXd test_variances;  // of the test rows
  Eigen::VectorXd mean;            // the posterior's
  bool ok = true;
  std::string message;
};

RoundFit fit_round(const nn::Dataset& data, const std::vector<Eigen::Index>& train,
                   const nn::Dataset& test, const std::vector<Eigen::Index>& pool, int trial,
                   int round, bool last, const ActiveLearningOptions& o) {
  const MethodInfo& info = method_info(o.settings.method);
  const nn::Dataset train_data = data.subset(train);
  const uci::Problem p = uci::make_problem(train_data, test, o.hidden_units, o.noise_precision);
  RoundFit r;
  r.round.train_size = static_cast<Eigen::Index>(train.size());
  FitRequest request;
  request.settings = o.settings;
  vi::Rng fit_rng = uci::stream(o.seed, trial, fit_stream, round);
  const FitOutcome fit = fit_method(p.train, request, fit_rng);
  if (!fit.ok) {
    r.ok = false;
    r.message = "round " + std::to_string(round) + ": " + fit.message;
    return r;
  }
  const PredictOptions predict{
      .samples = o.predictive_samples, .linearised = info.laplace, .threads = 1};
  vi::Rng test_rng = uci::stream(o.seed, trial, test_stream, round);
  const vi::RegressionPredictive t =
      predict_regression(fit.posterior, p.held_out, p.targets, test_rng, predict);
  r.round.rmse = t.rmse;
  r.round.log_likelihood = t.test_log_likelihood;
  r.test_variances = t.variance.col(0);
  r.mean = mean_of(fit.posterior);
  if (!last) {
    const uci::Problem on_pool =
        uci::make_problem(train_data, data.subset(pool), o.hidden_units, o.noise_precision);
    vi::Rng pool_rng = uci::stream(o.seed, trial, pool_stream, round);
    r.pool_variances =
        predict_regression(fit.posterior, on_pool.held_out, on_pool.targets, pool_rng, predict)
            .variance.col(0);
    r.round.max_pool_variance = r.pool_variances.maxCoeff();
  }
  return r;
}

// Runs the arm from round 2 on (round 1 is shared), adding pool rows by `choose`.
template <class Choose>
void run_arm(const nn::Dataset& data, const nn::Dataset& test, std::vector<Eigen::Index> train,
             std::vector<Eigen::Index> pool, RoundFit first, int trial,
             const ActiveLearningOptions& o, Choose choose, ActiveArm& arm) {
  RoundFit current = std::move(first);
  for (int round = 1;; ++round) {
    if (!current.ok) {
      arm.ok = false;
      arm.message = current.message;
      return;
    }
    ActiveRound done = current.round;
    if (round == o.rounds) {
      arm.rounds.push_back(done);
      return;
    }
    const Eigen::Index k = choose(current.pool_variances, round);
    done.added_row = pool[static_cast<std::size_t>(k)];
    done.added_variance = current.pool_variances(k);
    arm.rounds.push_back(done);
    train.push_back(done.added_row);
    pool.erase(pool.begin() + k);
    current = fit_round(data, train, test, pool, trial, round + 1, round + 1 == o.rounds, o);
  }
}

// Table 3's statistic: HMC on the first training rows, started at the first fit's mean.
HmcComparison compare_with_hmc(const nn::Dataset& data, const std::vector<Eigen::Index>& train,
                               const nn::Dataset& test, const RoundFit& first, int trial,
                               const ActiveLearningOptions& o) {
  const uci::Problem p =
      uci::make_problem(data.subset(train), test, o.hidden_units, o.noise_precision);
  HmcPredictOptions h = o.hmc;
  h.prior_precision = o.settings.prior_precision;
  vi::Rng rng = uci::stream(o.seed, trial, hmc_stream, 1);
  const HmcPredictive ref =
      hmc_predict_regression(p.train, p.held_out, p.targets, first.mean, rng, h);
  const Eigen::VectorXd hmc_variances = ref.predictive.variance.col(0);
  const std::vector<double> a(first.test_variances.begin(), first.test_variances.end());
  const std::vector<double> b(hmc_variances.begin(), hmc_variances.end());
  // A point estimate's predictive variance is 1/τ at every row (up to round-off): no correlation.
  const Eigen::VectorXd& v = first.test_variances;
  const bool spread = v.maxCoeff() - v.minCoeff() > 1e-9 * v.maxCoeff();
  return {spread ? boost::math::statistics::correlation_coefficient(a, b)
                 : std::numeric_limits<double>::quiet_NaN(),
          ref.max_rhat, ref.divergences};
}

ActiveTrial run_trial(const nn::Dataset& data, int trial, const ActiveLearningOptions& o) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(data.size()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  vi::Rng shuffle_rng = uci::stream(o.seed, trial, shuffle_stream, 0);
  for (std::size_t i = order.size() - 1; i > 0; --i)  // Fisher–Yates, platform-independent
    std::swap(order[i], order[vi::uniform_index(shuffle_rng, i + 1)]);
  const auto at = [&](Eigen::Index k) { return order.begin() + k; };
  ActiveTrial t;
  t.initial_train_rows.assign(at(0), at(o.initial_train));
  t.test_rows.assign(at(o.initial_train), at(o.initial_train + o.test));
  const std::vector<Eigen::Index> pool(at(o.initial_train + o.test), order.end());
  const nn::Dataset test = data.subset(t.test_rows);
  const RoundFit first =
      fit_round(data, t.initial_train_rows, test, pool, trial, 1, o.rounds == 1, o);
  if (o.compare_hmc && first.ok)
    t.hmc = compare_with_hmc(data, t.initial_train_rows, test, first, trial, o);
  run_arm(
      data, test, t.initial_train_rows, pool, first, trial, o,
      [&](const Eigen::VectorXd& v, int round) {
        vi::Rng draw_rng = uci::stream(o.seed, trial, draw_stream, round);
        return static_cast<Eigen::Index>(
            vi::uniform_index(draw_rng, static_cast<std::uint64_t>(v.size())));
      },
      t.random);
  run_arm(
      data, test, t.initial_train_rows, pool, first, trial, o,
      [](const Eigen::VectorXd& v, int) { return largest_variance(v); }, t.active);
  return t;
}

// Mean ± standard error per round of `metric` over the arms (of `trials`) that reached it.
template <class Arm, class Metric>
std::vector<MeanAndError> per_round(const std::vector<ActiveTrial>& trials, int rounds, Arm arm,
                                    Metric metric) {
  std::vector<MeanAndError> out;
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> v;
    for (const ActiveTrial& t : trials) {
      const ActiveArm& a = arm(t);
      if (static_cast<int>(a.rounds.size()) > r)
        v.push_back(metric(a.rounds[static_cast<std::size_t>(r)]));
    }
    out.push_back(mean_and_error(v));
  }
  return out;
}

// Mean ± standard error per round of the paired difference active − random of the RMSE, over the
// trials whose two arms both reached it.
std::vector<MeanAndError> paired_rmse_difference(const std::vector<ActiveTrial>& trials,
                                                 int rounds) {
  std::vector<MeanAndError> out;
  for (int r = 0; r < rounds; ++r) {
    const auto k = static_cast<std::size_t>(r);
    std::vector<double> v;
    for (const ActiveTrial& t : trials)
      if (t.active.rounds.size() > k && t.random.rounds.size() > k)
        v.push_back(t.active.rounds[k].rmse - t.random.rounds[k].rmse);
    out.push_back(mean_and_error(v));
  }
  return out;
}

}  // namespace

ActiveLearningRun run_active_learning(const nn::Dataset& data, const std::string& dataset,
                                      const ActiveLearningOptions& options,
                                      const std::function<void(int)>& progress) {
  check_active_options(data, options);
  tool_method(options.settings.method);  // a method the tool does not run: before any fit
  const auto t0 = std::chrono::steady_clock::now();
  ActiveLearningRun run;
  run.dataset = dataset;
  run.rows = data.size();
  run.inputs = data.input_dim();
  run.options = options;
  run.trials.resize(static_cast<std::size_t>(options.trials));
  tbb::parallel_for(tbb::blocked_range<int>(0, options.trials, 1),
                    [&](const tbb::blocked_range<int>& range) {
                      for (int k = range.begin(); k != range.end(); ++k) {
                        run.trials[static_cast<std::size_t>(k)] = run_trial(data, k, options);
                        if (progress) progress(k);
                      }
                    });
  const auto random = [](const ActiveTrial& t) -> const ActiveArm& { return t.random; };
  const auto active = [](const ActiveTrial& t) -> const ActiveArm& { return t.active; };
  const auto rmse = [](const ActiveRound& r) { return r.rmse; };
  const auto ll = [](const ActiveRound& r) { return r.log_likelihood; };
  run.random_rmse = per_round(run.trials, options.rounds, random, rmse);
  run.active_rmse = per_round(run.trials, options.rounds, active, rmse);
  run.random_log_likelihood = per_round(run.trials, options.rounds, random, ll);
  run.active_log_likelihood = per_round(run.trials, options.rounds, active, ll);
  run.rmse_difference = paired_rmse_difference(run.trials, options.rounds);
  std::vector<double> correlations;
  for (const ActiveTrial& t : run.trials)
    if (!std::isnan(t.hmc.correlation)) correlations.push_back(t.hmc.correlation);
  run.hmc_correlation = mean_and_error(correlations);
  run.hmc_trials = static_cast<int>(correlations.size());
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace ngvi::app
