// Adam against its closed forms: the bias-corrected first step is α·g/(|g| + ε) whatever β₁, β₂;
// a constant gradient gives steps of exactly α·g/(|g|+ε) for every t (m̂ = g, v̂ = g²); on a
// strictly convex quadratic it converges to the minimiser; state round-trips through restore.
#include <boost/test/unit_test.hpp>

#include <inference/adam.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(adam_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

BOOST_AUTO_TEST_CASE(constant_gradients_give_normalised_steps) {
  const VectorXd g = (VectorXd(3) << 2.0, -0.5, 1e-3).finished();
  vi::Adam adam(3, {.learning_rate = 0.1, .beta1 = 0.8, .beta2 = 0.95, .epsilon = 1e-8});
  VectorXd x = VectorXd::Zero(3);
  for (int t = 1; t <= 5; ++t) {
    const VectorXd before = x;
    adam.step(x, g);
    const VectorXd expected = before.array() - 0.1 * g.array() / (g.array().abs() + 1e-8);
    NGVI_CHECK_REPORT(compare(x, expected, tol::closed_form, "Adam step " + std::to_string(t)));
  }
}

BOOST_AUTO_TEST_CASE(converges_on_a_quadratic_and_restores_state) {
  // f(x) = ½ Σ cᵢ (xᵢ − aᵢ)², minimiser a.
  const VectorXd c = (VectorXd(2) << 1.0, 10.0).finished(),
                 a = (VectorXd(2) << 1.0, -2.0).finished();
  vi::Adam adam(2, {.learning_rate = 0.05});
  VectorXd x = VectorXd::Zero(2);
  for (int t = 0; t < 3000; ++t)
    adam.step(x, (c.array() * (x - a).array()).matrix(), 0.05 / (1.0 + 0.01 * t));
  NGVI_CHECK_REPORT(compare(x, a, tol::iterative, "Adam minimiser"));
  vi::Adam copy(2, {.learning_rate = 0.05});
  copy.restore(adam.state("opt"), "opt");
  VectorXd x1 = x, x2 = x;
  const VectorXd g = (VectorXd(2) << 0.3, -0.1).finished();
  adam.step(x1, g);
  copy.step(x2, g);
  BOOST_TEST((x1.array() == x2.array()).all());
  BOOST_CHECK_THROW(adam.step(x1, VectorXd::Zero(3)), std::invalid_argument);
  BOOST_CHECK_THROW(vi::Adam(2, {.learning_rate = -1.0}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
