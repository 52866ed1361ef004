// The compiled instances (inference/instances.hpp, library ngvi::instances) against the
// header-only route: each fit and predictive the library ships, called through the library, gives
// the same bits as the same code compiled here. This program links ngvi::instances, so the calls
// on the gap problem's own model type go to the library; the header-only route is the same model
// under another type (a class derived from it), which no extern declaration names and so is
// instantiated in this file. Both are compiled for the same instruction set (the test is
// PORTABLE, as the library), so any difference in bits would be a difference in the code.
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/inference.hpp>
#include <inference/problems/regression_1d_gap.hpp>

#include <support/check_bitwise.hpp>

BOOST_AUTO_TEST_SUITE(instances_test)

namespace vi = ngvi::vi;
namespace problems = ngvi::vi::problems;

#if !defined(NGVI_INSTANCES)
#error "instances_test must link ngvi::instances (which defines NGVI_INSTANCES)"
#endif

// The gap problem's model under a type of its own: fit<HeaderOnlyModel, ...> is compiled here.
struct HeaderOnlyModel : problems::Regression1dGap::model_type {
  explicit HeaderOnlyModel(const problems::Regression1dGap::model_type& m)
      : problems::Regression1dGap::model_type(m) {}
};

// A small gap problem (N = 40, 8 hidden units: P = 25) and its header-only twin.
struct Setup {
  problems::Regression1dGap p =
      problems::make_regression_1d_gap({.examples = 40, .test_examples = 30, .hidden_units = 8});
  HeaderOnlyModel twin{p.model};
  HeaderOnlyModel twin_test{p.test_model};
};

template <class Q>
void check_same_fit(const vi::FitResult<Q>& a, const vi::FitResult<Q>& b) {
  BOOST_TEST_REQUIRE(a.ok(), a.message);
  BOOST_TEST_REQUIRE(b.ok(), b.message);
  NGVI_CHECK_BITWISE(a.posterior.mean(), b.posterior.mean(), "posterior mean");
  NGVI_CHECK_BITWISE(a.posterior.precision(), b.posterior.precision(), "posterior precision");
  BOOST_TEST_REQUIRE(a.history.size() == b.history.size());
  for (std::size_t k = 0; k < a.history.size(); ++k)
    NGVI_CHECK_BITWISE(a.history[k].elbo, b.history[k].elbo, "ELBO of row " + std::to_string(k));
}

template <class Q>
void check_same_predictive(const Setup& s, const Q& q) {
  vi::Rng rng_a(7), rng_b(7);
  const vi::RegressionPredictive a =
      vi::mc_regression_predictive(s.p.test_model, q, s.p.targets, rng_a);
  const vi::RegressionPredictive b =
      vi::mc_regression_predictive(s.twin_test, q, s.p.targets, rng_b);
  NGVI_CHECK_BITWISE(a.mean, b.mean, "predictive mean");
  NGVI_CHECK_BITWISE(a.variance, b.variance, "predictive variance");
  NGVI_CHECK_BITWISE(a.log_likelihood, b.log_likelihood, "log p(y | D)");
}

BOOST_AUTO_TEST_CASE(von_fit_and_its_predictive_match_the_header_only_route) {
  const Setup s;
  vi::VonOptions o;
  o.loop.epochs = 5;
  o.loop.minibatch = 10;
  vi::Rng rng_a(3), rng_b(3);
  const auto a = vi::fit(s.p.model, o, rng_a);
  const auto b = vi::fit(s.twin, o, rng_b);
  check_same_fit(a, b);
  check_same_predictive(s, a.posterior);
}

BOOST_AUTO_TEST_CASE(vogn_fit_and_its_predictive_match_the_header_only_route) {
  const Setup s;
  vi::VognOptions o;
  o.loop.epochs = 10;
  o.loop.minibatch = 10;
  o.curvature = vi::VognCurvature::ggn;
  vi::Rng rng_a(3), rng_b(3);
  const auto a = vi::fit(s.p.model, o, rng_a);
  const auto b = vi::fit(s.twin, o, rng_b);
  check_same_fit(a, b);
  check_same_predictive(s, a.posterior);
}

BOOST_AUTO_TEST_CASE(ivon_fit_matches_the_header_only_route) {
  const Setup s;
  vi::IvonOptions o;  // vi_tour's settings
  o.loop.epochs = 10;
  o.loop.minibatch = 10;
  o.learning_rate = vi::Schedule{0.05};
  o.beta2 = 0.99;
  vi::Rng rng_a(3), rng_b(3);
  check_same_fit(vi::fit(s.p.model, o, rng_a), vi::fit(s.twin, o, rng_b));
}

BOOST_AUTO_TEST_SUITE_END()
