// The shared fit loop: iteration count and history, checkpoint + resume = the uninterrupted run
// (bitwise), a non-finite step stopping with the last good posterior and a message naming the
// iteration and the parameter block, early stopping, and bad options. The method under test is a
// scripted gradient step on a quadratic, whose full-batch iterates have a closed form.
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/minibatch.hpp>

#include <support/posterior_checks.hpp>
#include <support/scripted_method.hpp>

BOOST_AUTO_TEST_SUITE(fit_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

using namespace ngvi::test;

namespace {

// Stops the run at a given iteration and keeps the checkpoint taken there.
struct CheckpointAt {
  Eigen::Index at;
  std::optional<std::string> saved;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (ctx.iteration() == at) saved = ctx.checkpoint().encode();
    return false;
  }
};

struct StopAt {
  Eigen::Index at;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    return ctx.iteration() == at;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sampler_visits_every_example_once_per_epoch) {
  vi::MinibatchSampler s(10, 4);
  vi::Rng rng(1);
  BOOST_TEST(s.batches_per_epoch() == 3);
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::multiset<Eigen::Index> seen;
    std::vector<std::size_t> sizes;
    do {
      auto b = s.next(rng);
      sizes.push_back(b.size());
      seen.insert(b.begin(), b.end());
    } while (!s.epoch_finished());
    BOOST_TEST(sizes == (std::vector<std::size_t>{4, 4, 2}), boost::test_tools::per_element());
    BOOST_TEST(seen.size() == 10u);
    for (Eigen::Index i = 0; i < 10; ++i) BOOST_TEST(seen.count(i) == 1u);
  }
  vi::MinibatchSampler full(5, 0);
  auto b = full.next(rng);
  BOOST_TEST(
      std::vector<Eigen::Index>(b.begin(), b.end()) == (std::vector<Eigen::Index>{0, 1, 2, 3, 4}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(full_batch_iterates_match_the_closed_form) {
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 0;
  o.loop.epochs = 7;
  o.loop.elbo_samples = 0;
  vi::Rng rng(42), rng_copy(42);
  vi::Rng eval_split = rng_copy;  // fit() splits the history stream off first
  eval_split();
  const VectorXd mu0 = vi::standard_normal(eval_split, 2);
  const auto r = vi::fit(model, o, rng);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.counters.steps == 7);
  BOOST_TEST(r.history.size() == 7u);  // one row per (full-batch) epoch
  BOOST_TEST(r.counters.times_fired("every third step") == 2);
  VectorXd xbar = VectorXd::Zero(2);
  for (Eigen::Index i = 0; i < kN; ++i) xbar += point(i) / kN;
  const VectorXd expected = xbar + std::pow(1.0 - o.rate, 7) * (mu0 - xbar);
  NGVI_CHECK_REPORT(compare(r.posterior.mean(), expected, tol::closed_form, "μ after 7 steps"));
  // History at the mean: Σᵢ ½‖μ − xᵢ‖²; the KL is the diagonal family's closed form.
  double nll = 0.0;
  for (Eigen::Index i = 0; i < kN; ++i) nll += 0.5 * (expected - point(i)).squaredNorm();
  NGVI_CHECK_REPORT(compare(r.history.back().train_nll, nll, tol::closed_form, "train NLL"));
  NGVI_CHECK_REPORT(compare(r.history.back().elbo, -nll - r.posterior.kl_to_prior(1.0),
                            tol::closed_form, "ELBO"));
}

BOOST_AUTO_TEST_CASE(resume_from_a_checkpoint_is_bitwise_the_uninterrupted_run) {
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 3;
  o.loop.epochs = 6;
  o.loop.history_every = 2;
  vi::Rng rng_a(9), rng_b(9);
  const auto whole = vi::fit(model, o, rng_a);
  CheckpointAt cp{13, std::nullopt};
  vi::fit(model, o, rng_b, cp);
  BOOST_TEST_REQUIRE(cp.saved.has_value());
  const auto resumed = vi::resume(model, o, vi::FitCheckpoint::decode(*cp.saved));
  BOOST_TEST(resumed.counters.steps == whole.counters.steps);
  BOOST_TEST((resumed.posterior.mean().array() == whole.posterior.mean().array()).all());
  BOOST_TEST_REQUIRE(resumed.history.size() == whole.history.size());
  for (std::size_t k = 0; k < whole.history.size(); ++k) {
    BOOST_TEST(resumed.history[k].iteration == whole.history[k].iteration);
    BOOST_TEST(resumed.history[k].elbo == whole.history[k].elbo);  // same bits: exact ==
  }
  BOOST_CHECK_THROW(vi::FitCheckpoint::decode("{\"format\": \"something else\"}"),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vi::FitCheckpoint::decode("not json"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_checkpoint_keeps_non_finite_history_numbers) {
  // A point estimate's history has NaN ELBO and KL; a diverged loss is ±∞. JSON has no such
  // numbers, so they are written as strings and must read back as themselves.
  vi::FitCheckpoint c;
  c.method = "map";
  c.rng = vi::save_rng(vi::Rng(3));
  c.eval_rng = c.rng;
  vi::HistoryRow h;
  h.elbo = std::numeric_limits<double>::quiet_NaN();
  h.kl = -std::numeric_limits<double>::infinity();
  h.expected_nll = std::numeric_limits<double>::infinity();
  h.train_nll = 0.1;
  h.metrics = {{"test_log_likelihood", std::numeric_limits<double>::quiet_NaN()}, {"rmse", 2.5}};
  c.history = {h};
  const vi::FitCheckpoint back = vi::FitCheckpoint::decode(c.encode());
  BOOST_TEST_REQUIRE(back.history.size() == 1u);
  const vi::HistoryRow& b = back.history.front();
  BOOST_TEST(std::isnan(b.elbo));
  BOOST_TEST(b.kl == -std::numeric_limits<double>::infinity());
  BOOST_TEST(b.expected_nll == std::numeric_limits<double>::infinity());
  BOOST_TEST(b.train_nll == 0.1);
  BOOST_TEST_REQUIRE(b.metrics.size() == 2u);
  BOOST_TEST(std::isnan(b.metrics[0].second));
  BOOST_TEST(b.metrics[1].second == 2.5);
  std::string text = c.encode();
  const std::size_t at = text.find("\"NaN\"");
  BOOST_TEST_REQUIRE(at != std::string::npos);
  text.replace(at, 5, "\"nan\"");
  BOOST_CHECK_THROW(vi::FitCheckpoint::decode(text), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_non_finite_step_stops_with_the_last_good_posterior) {
  const auto model = quadratic_model();
  ScriptedOptions o, good;
  o.loop.minibatch = good.loop.minibatch = 0;
  o.loop.epochs = 10;
  good.loop.epochs = 4;
  o.blow_up_at = 5;
  vi::Rng rng_a(3), rng_b(3);
  const auto r = vi::fit(model, o, rng_a);
  const auto four = vi::fit(model, good, rng_b);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.status == vi::FitStatus::failed);
  BOOST_TEST(r.message.find("iteration 5") != std::string::npos, r.message);
  BOOST_TEST(r.message.find("location(1, 0)") != std::string::npos, r.message);
  BOOST_TEST((r.posterior.mean().array() == four.posterior.mean().array()).all());
}

BOOST_AUTO_TEST_CASE(a_loss_that_overflows_stops_with_the_last_finite_posterior) {
  const auto model = quadratic_model();
  ScriptedOptions o, good;
  o.loop.minibatch = good.loop.minibatch = 0;
  o.loop.epochs = 10;
  good.loop.epochs = 4;
  o.overflow_at = 5;  // μ stays finite; ½‖μ − x‖² overflows
  vi::Rng rng_a(3), rng_b(3);
  const auto r = vi::fit(model, o, rng_a);
  const auto four = vi::fit(model, good, rng_b);
  BOOST_TEST(r.status == vi::FitStatus::failed);
  BOOST_TEST(r.message.find("diverged: at iteration 5 the training loss") != std::string::npos,
             r.message);
  BOOST_TEST(r.message.find("the one of iteration 4") != std::string::npos, r.message);
  BOOST_TEST(r.history.size() == 4u);
  BOOST_TEST((r.posterior.mean().array() == four.posterior.mean().array()).all());
}

BOOST_AUTO_TEST_CASE(a_callback_stops_the_run) {
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 4;
  vi::Rng rng(1);
  StopAt stop{3};
  const auto r = vi::fit(model, o, rng, stop);
  BOOST_TEST(r.status == vi::FitStatus::stopped_early);
  BOOST_TEST(r.counters.steps == 3);
}

BOOST_AUTO_TEST_CASE(bad_options_are_clear_errors) {
  const auto model = quadratic_model();
  vi::Rng rng(1);
  ScriptedOptions o;
  o.loop.minibatch = 11;
  BOOST_CHECK_THROW(vi::fit(model, o, rng), std::invalid_argument);
  o.loop.minibatch = 2;
  o.prior_precision = 0.0;
  BOOST_CHECK_THROW(vi::fit(model, o, rng), std::invalid_argument);
  o.prior_precision = 1.0;
  o.loop.epochs = 0;
  BOOST_CHECK_THROW(vi::fit(model, o, rng), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
