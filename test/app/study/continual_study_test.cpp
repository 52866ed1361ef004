// The continual-learning study (app/study/continual_study.hpp) against the closed form: on a model
// linear in θ with the Gaussian likelihood, p(θ | D₁, D₂, D₃) ∝ p(D₃|θ) p(D₂|θ) p(D₁|θ) p(θ) is
// Gaussian, so the carried-prior sequence of VON and of full VOGN (GGN) — full batch, expectations
// at the mean — must reach the one-shot posterior of all three tasks' data, Λ = τΦᵀΦ + δI,
// μ = Λ⁻¹τΦᵀy (computed here with Eigen from the concatenated data), while the same VOGN with the
// isotropic prior at every task reaches only the last task's posterior and MAP the last task's
// mode. And the study's own tasks: their intervals, data and sizes.
#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <app/study/continual_study.hpp>
#include <app/study/study_problem.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <inference/random.hpp>
#include <nn/activations.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>

#include <support/check_report.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(continual_study_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;

namespace {

constexpr double tau = 4.0, delta = 1.0;

// Three tasks of y = 0.7x − 0.4 + N(0, 1/τ) on the intervals (−3, −1), (−1, 1), (1, 3), 15
// training and 20 test inputs each, for the one dense layer f(x) = wx + b (linear in θ = (w, b)).
struct LinearTasks {
  std::vector<study::ContinualTask> tasks;
  Eigen::MatrixXd phi;  // every task's training design [x | 1], stacked
  Eigen::VectorXd y;
};

LinearTasks linear_tasks() {
  ngvi::vi::Rng rng(11);
  const ngvi::nn::Sequential net = ngvi::nn::Sequential::mlp({1, 1}, ngvi::nn::Tanh{});
  const ngvi::app::NetworkLikelihood lik{ngvi::nn::GaussianFixedNoise(tau)};
  LinearTasks out;
  out.phi.resize(45, 2);
  out.y.resize(45);
  for (int t = 0; t < 3; ++t) {
    const double low = -3.0 + 2.0 * t;
    auto draw = [&](Eigen::Index n, Eigen::Index offset) {
      ngvi::nn::Dataset d;
      d.X.resize(n, 1);
      d.Y.resize(n, 1);
      for (Eigen::Index i = 0; i < n; ++i) {
        d.X(i, 0) = ngvi::vi::uniform_real(rng, low, low + 2.0);
        d.Y(i, 0) = 0.7 * d.X(i, 0) - 0.4 + ngvi::vi::standard_normal(rng, 1)(0) / std::sqrt(tau);
        if (offset >= 0) {
          out.phi.row(offset + i) << d.X(i, 0), 1.0;
          out.y(offset + i) = d.Y(i, 0);
        }
      }
      return d;
    };
    ngvi::nn::Dataset train = draw(15, 15 * t);
    ngvi::nn::Dataset test = draw(20, -1);
    out.tasks.push_back({std::make_shared<const ngvi::app::NetworkModel>(net, lik, train),
                         std::make_shared<const ngvi::app::NetworkModel>(net, lik, test), low,
                         low + 2.0});
  }
  return out;
}

// The posterior N(μ, Λ⁻¹) of rows [from, from + n) of the data under N(0, δ⁻¹I).
struct Posterior {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
};
Posterior closed_form(const LinearTasks& d, Eigen::Index from, Eigen::Index n) {
  const Eigen::MatrixXd phi = d.phi.middleRows(from, n);
  Eigen::MatrixXd precision = tau * phi.transpose() * phi;
  precision.diagonal().array() += delta;
  const Eigen::LLT<Eigen::MatrixXd> llt(precision);
  return {llt.solve(tau * phi.transpose() * d.y.segment(from, n)),
          llt.solve(Eigen::MatrixXd::Identity(2, 2))};
}

study::ContinualSetup linear_setup(const LinearTasks& d) {
  study::ContinualSetup c;
  c.tasks = d.tasks;
  c.loop.epochs = 300;
  c.loop.minibatch = 0;
  c.loop.history_every = 300;
  c.prior_precision = delta;
  c.steps = study::linear_gaussian_steps();
  c.predictive_samples = 20;
  return c;
}

const study::ContinualRun& run_of(const study::ContinualStudy& s, const std::string& method) {
  for (const study::ContinualRun& r : s.runs)
    if (r.method == method) return r;
  BOOST_FAIL("no continual run " + method);
  return s.runs.front();
}

// Means and covariances of a 2-parameter Gaussian reached by iterating to the fixed point:
// round-off of 300 full-batch steps at rate 0.8 (the fixed point is reached to ~0.2³⁰⁰).
constexpr verify::Tolerance fixed_point{1e-9, 1e-9};

}  // namespace

BOOST_AUTO_TEST_CASE(carried_prior_reaches_the_one_shot_posterior_of_all_tasks) {
  const LinearTasks d = linear_tasks();
  const study::ContinualStudy s = study::run_continual_study(linear_setup(d));
  const Posterior all = closed_form(d, 0, 45);
  for (const char* method : {"von", "vogn_full_ggn"}) {
    BOOST_TEST_CONTEXT(method) {
      const study::ContinualRun& r = run_of(s, method);
      BOOST_TEST(r.carried_prior);
      BOOST_TEST((r.status == std::vector<std::string>(3, "finished")));
      NGVI_CHECK_REPORT(verify::compare(r.mean, all.mean, fixed_point, "mean"));
      NGVI_CHECK_REPORT(verify::compare(r.covariance, all.covariance, fixed_point, "covariance"));
    }
  }
  // Without the carried prior the last fit sees task 3 alone: its posterior, not all tasks'.
  const Posterior last = closed_form(d, 30, 15);
  const study::ContinualRun& control = run_of(s, "vogn_full_ggn_no_prior");
  NGVI_CHECK_REPORT(verify::compare(control.mean, last.mean, fixed_point, "control's mean"));
  NGVI_CHECK_REPORT(
      verify::compare(control.covariance, last.covariance, fixed_point, "control's covariance"));
  BOOST_TEST((control.mean - all.mean).norm() > 0.01);
}

// MAP with the isotropic prior at every task ends at task 3's mode, which for a Gaussian posterior
// is its mean; Adam at a constant step keeps a small oscillation about it.
BOOST_AUTO_TEST_CASE(map_forgets_all_but_the_last_task) {
  const LinearTasks d = linear_tasks();
  const study::ContinualStudy s = study::run_continual_study(linear_setup(d));
  const study::ContinualRun& map = run_of(s, "map");
  BOOST_TEST(!map.carried_prior);
  NGVI_CHECK_REPORT(
      verify::compare(map.mean, closed_form(d, 30, 15).mean, {1e-2, 1e-2}, "MAP's mean"));
  BOOST_TEST(map.covariance.size() == 0);
}

// Every task after every stage is measured; the carried-prior VOGN and its control share their
// first stage bit for bit (the same options, seed and isotropic prior), and differ afterwards.
BOOST_AUTO_TEST_CASE(matrix_of_task_after_stage_and_the_paired_first_stage) {
  const LinearTasks d = linear_tasks();
  const study::ContinualStudy s = study::run_continual_study(linear_setup(d));
  const std::set<std::string> expected = {"map", "vogn_full_ggn", "vogn_full_ggn_no_prior",
                                          "vogn_ggn", "von"};
  std::set<std::string> methods;
  for (const study::ContinualRun& r : s.runs) {
    methods.insert(r.method);
    BOOST_TEST_REQUIRE(r.test_log_likelihood.size() == 3u);
    for (std::size_t t = 0; t < 3; ++t) {
      BOOST_TEST_REQUIRE(r.test_log_likelihood[t].size() == 3u);
      for (std::size_t j = 0; j < 3; ++j) {
        BOOST_TEST(std::isfinite(r.test_log_likelihood[t][j]));
        BOOST_TEST(r.test_rmse[t][j] > 0.0);
      }
    }
  }
  BOOST_TEST((methods == expected));
  const study::ContinualRun& carried = run_of(s, "vogn_full_ggn");
  const study::ContinualRun& control = run_of(s, "vogn_full_ggn_no_prior");
  BOOST_TEST((carried.test_log_likelihood[0] == control.test_log_likelihood[0]));
  BOOST_TEST(carried.test_log_likelihood[2][0] != control.test_log_likelihood[2][0]);
  BOOST_TEST(s.intervals.size() == 3u);
  BOOST_TEST(s.examples == 15);
  BOOST_TEST(s.test_examples == 20);
}

BOOST_AUTO_TEST_CASE(the_study_tasks_move_along_the_input_range) {
  const std::vector<study::ContinualTask> tasks = study::moving_sine_tasks(3, 40, 100);
  BOOST_TEST_REQUIRE(tasks.size() == 3u);
  for (std::size_t t = 0; t < 3; ++t) {
    const double low = -3.0 + 2.0 * static_cast<double>(t);
    BOOST_TEST(tasks[t].low == low);
    BOOST_TEST(tasks[t].high == low + 2.0);
    BOOST_TEST(tasks[t].train->num_examples() == 40);
    BOOST_TEST(tasks[t].test->num_examples() == 100);
    BOOST_TEST(tasks[t].train->num_params() == 49);  // 1-16-1: 3·16 + 1
    for (const auto* m : {tasks[t].train.get(), tasks[t].test.get()}) {
      BOOST_TEST(m->data().X.minCoeff() >= low);
      BOOST_TEST(m->data().X.maxCoeff() <= low + 2.0);
      // sin(2x) plus noise of sd 0.2: every target within 6 sd of the curve.
      const Eigen::ArrayXd residual =
          m->data().Y.col(0).array() - (2.0 * m->data().X.col(0).array()).sin();
      BOOST_TEST(residual.abs().maxCoeff() < 1.2);
    }
  }
  // The seed draws the data: the same seed the same bits, another seed others.
  BOOST_TEST((study::moving_sine_tasks(3, 40, 100)[1].train->data().Y == tasks[1].train->data().Y));
  BOOST_TEST((study::moving_sine_tasks(4, 40, 100)[1].train->data().Y != tasks[1].train->data().Y));
  BOOST_CHECK_THROW(study::moving_sine_tasks(3, 0, 100), std::invalid_argument);
  BOOST_CHECK_THROW(study::run_continual_study(study::ContinualSetup{}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
