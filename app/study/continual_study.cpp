// The continual-learning study (continual_study.hpp): the tasks and each method's sequence of fits.
// It measures with run_method.hpp's helpers (detail::test_metrics), and is compiled with the
// method suite, whose method classes it instantiates again.
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <app/methods/method_info.hpp>
#include <app/methods/method_table.hpp>
#include <app/study/continual_study.hpp>
#include <app/study/run_method.hpp>
#include <fmt/format.h>

#include <inference/fit.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/problems/describe.hpp>
#include <inference/random.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

namespace ngvi::app::study {
namespace {

// The tasks' function and noise (the gap problem's).
constexpr double continual_noise_sd = 0.2;

// Stage t's fit as a ProblemSetup, so that the method table's study mapping (study_options) and
// the study's predictive (detail::test_metrics) apply to it unchanged; task j's test data are
// measured through the same setup with its test model swapped in.
ProblemSetup stage_setup(const ContinualSetup& c, std::size_t t) {
  ProblemSetup s;
  s.name = "continual";
  s.train = c.tasks[t].train;
  s.test = c.tasks[t].test;
  s.seed = c.seed;
  s.progress = false;
  s.loop = c.loop;
  s.prior_precision = c.prior_precision;
  s.steps = c.steps;
  s.full_covariance = c.full_covariance;
  s.curvature_study = false;
  s.final_predictive_samples = c.predictive_samples;
  return s;
}

// One method's sequence of fits (see continual_study.hpp): `row` names the method table's study
// row whose options every stage uses; with `carry` each stage after the first gets the previous
// stage's posterior as its prior.
template <class Options>
ContinualRun run_sequence(const ContinualSetup& c, const std::string& row, std::string method,
                          std::string label, bool carry) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t tasks = c.tasks.size();
  ContinualRun run;
  run.method = std::move(method);
  run.label = std::move(label);
  run.carried_prior = carry;
  run.test_log_likelihood.assign(tasks, std::vector<double>(tasks, nan));
  run.test_rmse = run.test_log_likelihood;
  Eigen::VectorXd mean;
  std::optional<vi::GaussianPrior> prior;
  for (std::size_t t = 0; t < tasks; ++t) {
    const ProblemSetup s = stage_setup(c, t);
    Options o = study_options<Options>(row, s);
    if (t > 0) {
      if constexpr (requires { o.initial_mean; })
        o.initial_mean = mean;
      else
        o.initial = mean;
      if (carry) o.prior = prior;
    }
    vi::Rng rng(detail::measuring_seed(c.seed, 7000 + t));
    const auto result = vi::fit(*s.train, o, rng);
    run.status.push_back(vi::to_string(result.status));
    if (result.status != vi::FitStatus::finished) break;
    const auto& q = result.posterior;
    mean = q.mean();
    run.mean = q.mean();
    run.sd = q.marginal_variances().cwiseSqrt();
    using Q = std::decay_t<decltype(q)>;
    if constexpr (!std::is_same_v<Q, vi::PointEstimate>) {
      prior = vi::prior_from(q);
      run.covariance =
          q.dim() <= small_problem_parameters ? Eigen::MatrixXd(q.covariance()) : Eigen::MatrixXd();
    }
    for (std::size_t j = 0; j < tasks; ++j) {
      ProblemSetup measured = s;
      measured.test = c.tasks[j].test;
      vi::Rng prng(detail::measuring_seed(c.seed, 8000 + 100 * t + j));
      const detail::TestMetrics m =
          detail::test_metrics(measured, q, c.predictive_samples, prng, false);
      run.test_log_likelihood[t][j] = m.log_likelihood;
      run.test_rmse[t][j] = m.rmse;
    }
  }
  return run;
}

}  // namespace

std::vector<ContinualTask> moving_sine_tasks(std::uint64_t seed, Eigen::Index examples,
                                             Eigen::Index test_examples) {
  if (examples < 1 || test_examples < 1)
    throw std::invalid_argument(
        fmt::format("ngvi::app::study::moving_sine_tasks: examples = {} and test_examples = {} "
                    "(need at least 1 each)",
                    examples, test_examples));
  vi::Rng rng(detail::measuring_seed(seed, 9000));
  const nn::Sequential net = nn::Sequential::mlp({1, 16, 1}, nn::Tanh{});
  const NetworkLikelihood likelihood(
      nn::GaussianFixedNoise(1.0 / (continual_noise_sd * continual_noise_sd)));
  std::vector<ContinualTask> out;
  for (int t = 0; t < 3; ++t) {
    const double low = -3.0 + 2.0 * t, high = low + 2.0;
    auto draw = [&](Eigen::Index n) {
      nn::Dataset d;
      d.X.resize(n, 1);
      d.Y.resize(n, 1);
      for (Eigen::Index i = 0; i < n; ++i) {
        d.X(i, 0) = vi::uniform_real(rng, low, high);
        d.Y(i, 0) = std::sin(2.0 * d.X(i, 0)) + continual_noise_sd * vi::standard_normal(rng, 1)(0);
      }
      return d;
    };
    nn::Dataset train = draw(examples);
    nn::Dataset test = draw(test_examples);
    out.push_back({std::make_shared<const NetworkModel>(net, likelihood, std::move(train)),
                   std::make_shared<const NetworkModel>(net, likelihood, std::move(test)), low,
                   high});
  }
  return out;
}

std::string describe_continual(const ContinualSetup& c) {
  std::string intervals;
  for (std::size_t t = 0; t < c.tasks.size(); ++t)
    intervals += fmt::format("{}task {}: x ~ U({}, {})", t == 0 ? "" : ", ", t + 1,
                             vi::problems::short_number(c.tasks[t].low),
                             vi::problems::short_number(c.tasks[t].high));
  const Eigen::Index n = c.tasks.empty() ? 0 : c.tasks.front().train->num_examples();
  return fmt::format(
      "{} tasks of y = sin(2x) + N(0, {}²) ({}), each N = {} training and {} test examples; "
      "1-16-1 tanh MLP; every stage {} epochs in minibatches of {}",
      c.tasks.size(), vi::problems::short_number(continual_noise_sd), intervals, n,
      c.tasks.empty() ? 0 : c.tasks.front().test->num_examples(), c.loop.epochs,
      c.loop.minibatch > 0 ? std::to_string(c.loop.minibatch) : std::string("all examples"));
}

ContinualStudy run_continual_study(const ContinualSetup& c) {
  if (c.tasks.empty())
    throw std::invalid_argument("ngvi::app::study::run_continual_study: no tasks");
  for (const ContinualTask& t : c.tasks)
    if (t.train->num_params() != c.tasks.front().train->num_params())
      throw std::invalid_argument(fmt::format(
          "ngvi::app::study::run_continual_study: the tasks' networks differ (P = {} and {})",
          c.tasks.front().train->num_params(), t.train->num_params()));
  ContinualStudy out;
  out.description = describe_continual(c);
  for (const ContinualTask& t : c.tasks) out.intervals.emplace_back(t.low, t.high);
  out.examples = c.tasks.front().train->num_examples();
  out.test_examples = c.tasks.front().test->num_examples();
  out.epochs = c.loop.epochs;
  out.minibatch = c.loop.minibatch;
  out.runs.push_back(run_sequence<vi::MapOptions>(c, "map_laplace", "map",
                                                  "MAP (isotropic prior at every stage)", false));
  if (c.full_covariance) {
    out.runs.push_back(run_sequence<vi::FullVognOptions>(
        c, "vogn_full_ggn", "vogn_full_ggn", method_info("vogn_full_ggn").label + ", prior carried",
        true));
    out.runs.push_back(run_sequence<vi::FullVognOptions>(
        c, "vogn_full_ggn", "vogn_full_ggn_no_prior",
        method_info("vogn_full_ggn").label + ", isotropic prior at every stage", false));
  }
  out.runs.push_back(run_sequence<vi::VognOptions>(
      c, "vogn_ggn", "vogn_ggn", method_info("vogn_ggn").label + ", prior carried", true));
  if (c.full_covariance)
    out.runs.push_back(run_sequence<vi::VonOptions>(
        c, "von", "von", method_info("von").label + ", prior carried", true));
  return out;
}

}  // namespace ngvi::app::study
