// Checks every ngvi::vi method's test runs through the shared fit loop: the same seed gives the
// same bits for 1 and 2 threads, and checkpoint + resume continues bitwise like the
// uninterrupted run (posterior and history). Written once here so each method's test states
// only its own options.
#pragma once

#include <optional>
#include <span>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/checkpoint.hpp>
#include <inference/fit.hpp>
#include <inference/random.hpp>

namespace ngvi::test {

namespace detail {
// Keeps the checkpoint taken at iteration `at` (the run goes on).
struct CheckpointAt {
  Eigen::Index at;
  std::optional<std::string> saved;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (ctx.iteration() == at) saved = ctx.checkpoint().encode();
    return false;
  }
};
}  // namespace detail

// The StepInput of iteration t on `batch` when a test drives a method's step() itself: N = the
// batch size (full batch), one thread (no scheduling overhead in loops of thousands of steps).
inline vi::StepInput step_on(std::span<const Eigen::Index> batch, Eigen::Index t) {
  return vi::StepInput{batch, t, static_cast<Eigen::Index>(batch.size()), {1, 16}};
}

// Bitwise equality of two posteriors' means and marginal variances.
template <class Q>
void check_same_bits(const Q& a, const Q& b) {
  BOOST_TEST((a.mean().array() == b.mean().array()).all(), "posterior means differ");
  BOOST_TEST((a.marginal_variances().array() == b.marginal_variances().array()).all(),
             "posterior variances differ");
}

// fit with options.loop.threads = 1 and = 2 from the same seed: identical bits.
template <class Model, class Options>
void check_thread_count_invariance(const Model& model, Options options, std::uint64_t seed) {
  Options two = options;
  options.loop.threads = 1;
  two.loop.threads = 2;
  vi::Rng r1(seed), r2(seed);
  const auto a = vi::fit(model, options, r1);
  const auto b = vi::fit(model, two, r2);
  BOOST_TEST(a.ok(), a.message);
  check_same_bits(a.posterior, b.posterior);
  BOOST_TEST_REQUIRE(a.history.size() == b.history.size());
  for (std::size_t k = 0; k < a.history.size(); ++k)
    BOOST_TEST(a.history[k].elbo == b.history[k].elbo);
}

// A run stopped for a checkpoint at iteration `at` and resumed from it equals the whole run.
template <class Model, class Options>
void check_resume_is_bitwise(const Model& model, const Options& options, std::uint64_t seed,
                             Eigen::Index at) {
  vi::Rng ra(seed), rb(seed);
  const auto whole = vi::fit(model, options, ra);
  detail::CheckpointAt cp{at, std::nullopt};
  vi::fit(model, options, rb, cp);
  BOOST_TEST_REQUIRE(cp.saved.has_value());
  const auto resumed = vi::resume(model, options, vi::FitCheckpoint::decode(*cp.saved));
  BOOST_TEST(resumed.counters.steps == whole.counters.steps);
  check_same_bits(resumed.posterior, whole.posterior);
  BOOST_TEST_REQUIRE(resumed.history.size() == whole.history.size());
  for (std::size_t k = 0; k < whole.history.size(); ++k)
    BOOST_TEST(resumed.history[k].elbo == whole.history[k].elbo);
}

// A failed fit r whose message names the iteration it failed at and `block` (a parameter block
// with what went non-finite, e.g. "mean of dense0."), and whose posterior is finite.
template <class Result>
void check_failed_naming(const Result& r, Eigen::Index iteration, const std::string& block) {
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST_MESSAGE(r.message);
  BOOST_TEST(r.message.find("at iteration " + std::to_string(iteration)) != std::string::npos,
             r.message);
  BOOST_TEST(r.message.find(block) != std::string::npos, r.message);
  BOOST_TEST(r.posterior.mean().allFinite());
}

// A fit whose step size makes some block of `block` overflow after a few steps (options as
// given; loop.max_iterations is set here): it fails naming the iteration and the block, and
// keeps the last good posterior — bitwise that of a run stopped just before the failing step.
// (That run's loss has run away already, so it runs without the divergence rule, which would
// fail it too and return its start.)
template <class Model, class Options>
void check_overflow_keeps_last_good(const Model& model, Options options, std::uint64_t seed,
                                    const std::string& block) {
  auto run = [&](Eigen::Index max_iterations) {
    options.loop.max_iterations = max_iterations;
    options.loop.divergence.enabled = max_iterations == 0;
    vi::Rng rng(seed);
    return vi::fit(model, options, rng);
  };
  const auto r = run(0);
  const Eigen::Index failed_at = r.counters.steps;
  BOOST_TEST_REQUIRE(failed_at >= 2);
  check_failed_naming(r, failed_at, block);
  check_same_bits(r.posterior, run(failed_at - 1).posterior);
}

// fit(model, options) throws std::invalid_argument whose message names `field`.
template <class Model, class Options>
void check_rejects(const Model& model, const Options& options, const std::string& field) {
  vi::Rng rng(1);
  try {
    vi::fit(model, options, rng);
    BOOST_ERROR("no exception for a bad " + field);
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find(field) != std::string::npos, e.what());
  }
}

}  // namespace ngvi::test
