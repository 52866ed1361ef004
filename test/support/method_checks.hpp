// Checks the inference methods' own tests share: a step's input when a test drives step() itself,
// a bitwise comparison of two posteriors, a failed fit that names the iteration and the block
// and keeps the last good posterior, and a fit that rejects its options naming a field. The
// contract every method keeps (threads, resume, bad options) is written once in
// test/inference/method_contract_test.cpp.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/random.hpp>

namespace ngvi::test {

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
