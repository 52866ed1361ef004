// The two-moons problem: alternating labels, every point within noise of its half circle (the
// Monte-Carlo mean of its distance to the moon's centre is the radius 1), points on the right
// half of each circle, determinism, and bad options.
#include <cmath>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include <inference/problems/two_moons.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(two_moons_test)

namespace problems = ngvi::vi::problems;
using Eigen::VectorXd;

BOOST_AUTO_TEST_CASE(points_lie_on_their_moons) {
  const double noise = 0.01;
  const problems::TwoMoons p =
      problems::make_two_moons({.examples = 2000, .test_examples = 10, .noise = noise});
  const auto& X = p.model.data().X;
  const auto& Y = p.model.data().Y;
  VectorXd r_upper(1000), r_lower(1000);
  for (Eigen::Index i = 0; i < 2000; ++i) {
    const bool upper = i % 2 == 0;
    BOOST_TEST(Y(i, 0) == (upper ? 1.0 : 0.0));
    // Upper moon: centre (−½, −¼), y above it; lower: centre (½, ¼), y below it.
    const double cx = upper ? -0.5 : 0.5, cy = upper ? -0.25 : 0.25;
    const double dx = X(i, 0) - cx, dy = X(i, 1) - cy;
    BOOST_TEST((upper ? dy > -5 * noise : dy < 5 * noise));
    (upper ? r_upper : r_lower)(i / 2) = std::hypot(dx, dy);
  }
  // |c + ε| − 1 has mean ≈ σ²/2 and sd σ: the radius bias is far below the error bar here.
  NGVI_CHECK_MC(r_upper.mean(), 1.0, noise / std::sqrt(1000.0));
  NGVI_CHECK_MC(r_lower.mean(), 1.0, noise / std::sqrt(1000.0));
  BOOST_TEST(p.test_model.num_examples() == 10);
  BOOST_TEST(p.model.num_params() == 4 * 16 + 1);
}

BOOST_AUTO_TEST_CASE(seeded_and_deterministic) {
  const auto a = problems::make_two_moons({.seed = 2});
  const auto b = problems::make_two_moons({.seed = 2});
  const auto c = problems::make_two_moons({.seed = 3});
  BOOST_TEST((a.model.data().X == b.model.data().X));
  BOOST_TEST((a.test_model.data().X == b.test_model.data().X));
  BOOST_TEST((a.model.data().X != c.model.data().X));
}

BOOST_AUTO_TEST_CASE(bad_options) {
  BOOST_CHECK_THROW(problems::make_two_moons({.examples = 0}), std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_two_moons({.noise = std::nan("")}), std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_two_moons({.hidden_units = 0}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
