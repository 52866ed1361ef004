// The 1-D gap regression problem: no training input inside the gap while test inputs cover it,
// noise residuals y − sin(2x) with the stated standard deviation (Monte-Carlo checks of their
// mean and variance), the model's loss against τ/2 Σ (y − f)² + const, determinism, and bad
// options.
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include <inference/problems/regression_1d_gap.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(regression_1d_gap_test)

namespace vi = ngvi::vi;
namespace problems = ngvi::vi::problems;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

BOOST_AUTO_TEST_CASE(data_have_the_gap_and_the_noise) {
  problems::Regression1dGapOptions o;
  o.examples = 2000;
  o.test_examples = 2000;
  o.gap_width = 1.2;
  o.seed = 3;
  const problems::Regression1dGap p = problems::make_regression_1d_gap(o);
  const VectorXd x = p.model.data().X.col(0), xs = p.test_model.data().X.col(0);
  BOOST_TEST(((x.array() <= -0.6) || (x.array() >= 0.6)).all());
  BOOST_TEST(((x.array() >= -2.0) && (x.array() < 2.0)).all());
  BOOST_TEST(((xs.array().abs() < 0.6)).count() > 0);  // test inputs inside the gap
  const VectorXd r =
      p.model.data().Y.col(0) - x.unaryExpr([](double v) { return std::sin(2.0 * v); });
  const double n = static_cast<double>(r.size()), var = 0.2 * 0.2;
  NGVI_CHECK_MC(r.mean(), 0.0, std::sqrt(var / n));
  NGVI_CHECK_MC(r.squaredNorm() / n, var, var * std::sqrt(2.0 / n));
  // Training inputs uniform on the two pieces: mean 0, E[x²] = (2³ − 0.6³)/(3·1.4).
  const double ex2 = (8.0 - 0.216) / (3.0 * 1.4);
  NGVI_CHECK_MC(x.mean(), 0.0, std::sqrt(ex2 / n));
  NGVI_CHECK_REPORT(compare(p.noise_precision, 25.0, tol::closed_form, "τ = 1/σ²"));
}

BOOST_AUTO_TEST_CASE(loss_is_the_gaussian_nll_of_the_network) {
  const problems::Regression1dGap p =
      problems::make_regression_1d_gap({.examples = 20, .hidden_units = 3});
  BOOST_TEST(p.model.num_params() == 10);
  vi::Rng rng(1);
  const VectorXd theta = vi::standard_normal(rng, 10);
  // f(x) = w2 · tanh(W1 x + b1) + b2 with θ = [W1 (3×1) | b1 | w2 (1×3) | b2], written out here.
  double sum = 0.0;
  for (Eigen::Index i = 0; i < 20; ++i) {
    const double xi = p.model.data().X(i, 0);
    double f = theta(9);
    for (int h = 0; h < 3; ++h) f += theta(6 + h) * std::tanh(theta(h) * xi + theta(3 + h));
    const double r = p.model.data().Y(i, 0) - f;
    sum += 0.5 * 25.0 * r * r - 0.5 * std::log(25.0) + 0.5 * std::log(2.0 * std::numbers::pi);
  }
  NGVI_CHECK_REPORT(
      compare(p.model.total_loss(theta), sum, tol::closed_form, "Σ ℓᵢ vs hand-written"));
}

BOOST_AUTO_TEST_CASE(seeded_and_deterministic) {
  const auto a = problems::make_regression_1d_gap({.seed = 5});
  const auto b = problems::make_regression_1d_gap({.seed = 5});
  const auto c = problems::make_regression_1d_gap({.seed = 6});
  BOOST_TEST((a.model.data().X == b.model.data().X));
  BOOST_TEST((a.test_model.data().Y == b.test_model.data().Y));
  BOOST_TEST((a.model.data().X != c.model.data().X));
  // The training set does not depend on how many test examples follow it.
  const auto d = problems::make_regression_1d_gap({.test_examples = 0, .seed = 5});
  BOOST_TEST((a.model.data().Y == d.model.data().Y));
  BOOST_TEST(d.test_model.num_examples() == 0);
}

BOOST_AUTO_TEST_CASE(bad_options) {
  BOOST_CHECK_THROW(problems::make_regression_1d_gap({.examples = 0}), std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_regression_1d_gap({.gap_width = 4.0}), std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_regression_1d_gap({.noise_sd = -1.0}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
