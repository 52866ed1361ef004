// The shared fit loop: iteration count and history, checkpoint + resume = the uninterrupted run
// (bitwise), a non-finite step stopping with the last good posterior and a message naming the
// iteration and the parameter block, a finite loss that runs away stopping as diverged
// (DivergenceRule), early stopping, and bad options (an iteration count that overflows among
// them). The method under test is a scripted gradient step on a quadratic, whose full-batch
// iterates have a closed form; VOGN, IVON and MAP at a step size too large for a small network
// show the rule on real methods.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/ivon.hpp>
#include <inference/map.hpp>
#include <inference/minibatch.hpp>
#include <inference/vogn.hpp>

#include <support/method_fixtures.hpp>
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

// The initial mean of a scripted fit from a generator seeded `seed` (fit() splits the history's
// stream off first), and μ after t full-batch steps: x̄ + (1 − η)^t (μ₀ − x̄).
VectorXd scripted_initial_mean(unsigned seed) {
  vi::Rng rng(seed);
  rng();
  return vi::standard_normal(rng, 2);
}
VectorXd scripted_mean_after(unsigned seed, double rate, int t) {
  VectorXd xbar = VectorXd::Zero(2);
  for (Eigen::Index i = 0; i < kN; ++i) xbar += point(i) / kN;
  return xbar + std::pow(1.0 - rate, t) * (scripted_initial_mean(seed) - xbar);
}
// The quadratic's loss per example at θ: (1/N) Σᵢ ½‖θ − xᵢ‖².
double loss_per_example(const VectorXd& theta) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < kN; ++i) sum += 0.5 * (theta - point(i)).squaredNorm();
  return sum / kN;
}
std::string six_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

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

BOOST_AUTO_TEST_CASE(a_loss_that_runs_away_stops_as_diverged_with_the_last_good_posterior) {
  // From iteration 5 on, μ(1) sits at 1000: every parameter finite, the loss ~5·10⁵ per example
  // against ~1 at the start. Rows 5, 6 and 7 explode; the third (patience 3) stops the run.
  const auto model = quadratic_model();
  ScriptedOptions o, good;
  o.loop.minibatch = good.loop.minibatch = 0;
  o.loop.epochs = 10;
  good.loop.epochs = 4;
  o.escape_from = 5;
  o.escape_until = 10;
  o.escape_to = 1000.0;
  vi::Rng rng_a(3), rng_b(3);
  const auto r = vi::fit(model, o, rng_a);
  const auto four = vi::fit(model, good, rng_b);
  BOOST_TEST(r.status == vi::FitStatus::failed);
  VectorXd at7 = scripted_mean_after(3, o.rate, 7);
  at7(1) = 1000.0;
  const std::string expected =
      "ngvi::vi::fit(scripted): the fit diverged: at iteration 7 the "
      "training loss at the posterior mean is " +
      six_digits(loss_per_example(at7)) + " per example";
  BOOST_TEST(r.message.find(expected) != std::string::npos, r.message);
  BOOST_TEST(r.message.find("on 3 consecutive history rows") != std::string::npos, r.message);
  BOOST_TEST(r.message.find("the one of iteration 4") != std::string::npos, r.message);
  BOOST_TEST(r.history.size() == 6u);  // rows 5 and 6 exploded but were kept; 7 stopped the run
  BOOST_TEST((r.posterior.mean().array() == four.posterior.mean().array()).all());
  // Without the rule only a non-finite value stops a run: this one ends "converged".
  o.loop.divergence.enabled = false;
  vi::Rng rng_c(3);
  BOOST_TEST(vi::fit(model, o, rng_c).ok());
}

BOOST_AUTO_TEST_CASE(a_transient_spike_is_not_a_divergence) {
  // Two exploded rows (5 and 6: μ(1) = 18, ~166 per example against a bound of ~100), fewer
  // than the patience of 3; the step then pulls μ(1) back to 12.6 (~82 per example), in bounds.
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 0;
  o.loop.epochs = 10;
  o.escape_from = 5;
  o.escape_until = 6;
  o.escape_to = 18.0;
  vi::Rng rng(3);
  const auto r = vi::fit(model, o, rng);
  BOOST_TEST(r.ok(), r.message);
  BOOST_TEST(r.counters.steps == 10);
  BOOST_TEST_REQUIRE(r.history.size() == 10u);
  BOOST_TEST(r.history[4].train_nll / kN > 150.0);  // the spike happened
  BOOST_TEST(r.history[6].train_nll / kN < 90.0);   // and was over after it
}

BOOST_AUTO_TEST_CASE(a_run_that_ends_exploded_is_diverged) {
  // Rows 9 and 10 explode: fewer than the patience, but the run ends there, so no result.
  const auto model = quadratic_model();
  ScriptedOptions o, good;
  o.loop.minibatch = good.loop.minibatch = 0;
  o.loop.epochs = 10;
  good.loop.epochs = 8;
  o.escape_from = 9;
  o.escape_until = 10;
  o.escape_to = 1000.0;
  vi::Rng rng_a(3), rng_b(3);
  const auto r = vi::fit(model, o, rng_a);
  const auto eight = vi::fit(model, good, rng_b);
  BOOST_TEST(r.status == vi::FitStatus::failed);
  BOOST_TEST(r.message.find("at iteration 10") != std::string::npos, r.message);
  BOOST_TEST(r.message.find("on 2 consecutive history rows ending the run") != std::string::npos,
             r.message);
  BOOST_TEST((r.posterior.mean().array() == eight.posterior.mean().array()).all());
}

BOOST_AUTO_TEST_CASE(the_divergence_threshold_is_factor_times_the_scale_above_the_best) {
  // One exploded row, the last (iteration 5, μ(1) = 10): it fails exactly when
  // (ℓ₅ − ℓ*) > factor · max(|ℓ₀|, |ℓ*|, 1), ℓ* = ℓ₄ (the full-batch iterates approach x̄
  // monotonically, so the loss falls until the escape). The ratio is computed here from the
  // closed form; 1 % either side of it the rule must flip.
  const double l0 = loss_per_example(scripted_initial_mean(3));
  const double best = loss_per_example(scripted_mean_after(3, 0.3, 4));
  VectorXd at5 = scripted_mean_after(3, 0.3, 5);
  at5(1) = 10.0;
  const double ratio = (loss_per_example(at5) - best) / std::max({std::abs(l0), best, 1.0});
  BOOST_TEST_REQUIRE(ratio > 1.0);
  const auto model = quadratic_model();
  for (const double f : {0.99, 1.01}) {
    ScriptedOptions o;
    o.loop.minibatch = 0;
    o.loop.epochs = 5;
    o.escape_from = o.escape_until = 5;
    o.escape_to = 10.0;
    o.loop.divergence.factor = f * ratio;
    vi::Rng rng(3);
    const auto r = vi::fit(model, o, rng);
    BOOST_TEST(r.ok() == (f > 1.0), "factor " << f << " × ratio: " << r.message);
  }
}

BOOST_AUTO_TEST_CASE(a_resumed_run_diverges_where_the_uninterrupted_one_does) {
  // The checkpoint after iteration 6 holds two exploded rows and the start's loss; resumed, the
  // run stops at iteration 7 as the whole run does.
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 0;
  o.loop.epochs = 10;
  o.escape_from = 5;
  o.escape_until = 10;
  o.escape_to = 1000.0;
  vi::Rng rng_a(3), rng_b(3);
  const auto whole = vi::fit(model, o, rng_a);
  CheckpointAt cp{6, std::nullopt};
  o.loop.divergence.enabled = false;  // run on to iteration 6 to take the checkpoint
  vi::fit(model, o, rng_b, cp);
  o.loop.divergence.enabled = true;
  BOOST_TEST_REQUIRE(cp.saved.has_value());
  const vi::FitCheckpoint c = vi::FitCheckpoint::decode(*cp.saved);
  BOOST_TEST(c.start_train_nll == kN * loss_per_example(scripted_initial_mean(3)),
             boost::test_tools::tolerance(1e-12));
  const auto resumed = vi::resume(model, o, c);
  BOOST_TEST(resumed.status == vi::FitStatus::failed);
  BOOST_TEST(resumed.message.find("at iteration 7") != std::string::npos, resumed.message);
  BOOST_TEST(resumed.message.find("on 3 consecutive") != std::string::npos, resumed.message);
  BOOST_TEST(whole.message.find("at iteration 7") != std::string::npos, whole.message);
}

BOOST_AUTO_TEST_CASE(a_step_size_too_large_is_a_diverged_fit_for_vogn_ivon_and_map) {
  // The 1-4-1 tanh network of method_fixtures.hpp: at these step sizes the mean runs away but
  // stays finite (a tanh layer bounds the hidden units), so only the divergence rule can see it;
  // at the default step sizes the same runs are fine.
  const auto model = tanh_mlp_problem();
  auto check = [&](auto o, double rate, auto set_rate, const std::string& name) {
    o.loop.epochs = 60;
    o.loop.minibatch = 5;
    vi::Rng rng_ok(7), rng_bad(7);
    const auto fine = vi::fit(model, o, rng_ok);
    BOOST_TEST(fine.ok(), name << " at its default step size: " << fine.message);
    set_rate(o, rate);
    const auto r = vi::fit(model, o, rng_bad);
    BOOST_TEST(r.status == vi::FitStatus::failed, name);
    BOOST_TEST(r.message.find("ngvi::vi::fit(" + name + "): the fit diverged: at iteration") !=
                   std::string::npos,
               r.message);
    // The divergence rule's message, not the non-finite check's: every parameter was finite.
    BOOST_TEST_MESSAGE(r.message);
    BOOST_TEST(r.message.find("training loss at the posterior mean is ") != std::string::npos,
               r.message);
    BOOST_TEST(r.message.find(" per example, more than 100 times its scale above its best") !=
                   std::string::npos,
               r.message);
    // The posterior returned is that of a row that had not exploded: its loss is finite and
    // within the rule's bound of the start.
    BOOST_TEST(std::isfinite(vi::total_nll(model, r.posterior.mean())), name);
  };
  check(
      vi::VognOptions{}, 1e3, [](auto& o, double a) { o.mean_rate = vi::Schedule{a}; }, "vogn");
  check(
      vi::IvonOptions{}, 1e3, [](auto& o, double a) { o.learning_rate = vi::Schedule{a}; }, "ivon");
  check(
      vi::MapOptions{}, 1e3, [](auto& o, double a) { o.learning_rate = vi::Schedule{a}; }, "map");
}

BOOST_AUTO_TEST_CASE(an_iteration_count_that_overflows_is_a_clear_error) {
  // 10 examples in minibatches of 3: 4 iterations an epoch; 2^62 epochs are 2^64 iterations.
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 3;
  o.loop.epochs = Eigen::Index(1) << 62;
  vi::Rng rng(1);
  try {
    vi::fit(model, o, rng);
    BOOST_FAIL("an overflowing iteration count was accepted");
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    BOOST_TEST(m.find("ngvi::vi::fit(scripted): loop.epochs × minibatches per epoch = "
                      "4611686018427387904 × 4") != std::string::npos,
               m);
  }
  // Capped by max_iterations the count is defined: the run makes exactly that many steps.
  o.loop.max_iterations = 5;
  BOOST_TEST(vi::fit(model, o, rng).counters.steps == 5);
  // The largest product that fits is fine to state (max_iterations stops it early).
  o.loop.epochs = std::numeric_limits<Eigen::Index>::max() / 4;
  BOOST_TEST(vi::fit(model, o, rng).counters.steps == 5);
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
  o.loop.epochs = 1;
  auto names = [&](auto edit, const std::string& field) {
    ScriptedOptions bad = o;
    edit(bad);
    try {
      vi::fit(model, bad, rng);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(field) != std::string::npos;
    }
    return false;
  };
  BOOST_TEST(names([](auto& b) { b.loop.divergence.factor = std::nan(""); },
                   "loop.divergence.factor must be positive and finite, got nan"));
  BOOST_TEST(
      names([](auto& b) { b.loop.divergence.scale_floor = 0.0; }, "loop.divergence.scale_floor"));
  BOOST_TEST(names([](auto& b) { b.loop.divergence.patience = 0; },
                   "loop.divergence.patience must be >= 1, got 0"));
}

BOOST_AUTO_TEST_SUITE_END()
