// MAP by Adam in the fit loop: convergence to the closed-form ridge-regression MAP, the first
// step against Adam's first step computed here from the closed-form gradient, the minibatch
// gradient through batch_loss against the closed form and against the per-example route, the
// history of a point estimate (ELBO −∞, KL +∞, exact training NLL), and bad input other than
// options. Threads, resume and bad options: method_contract_test.cpp.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/map.hpp>
#include <nn/model_concept.hpp>

#include <support/conjugate_linear.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(map_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::ConjugateLinear;

namespace {

ConjugateLinear problem() { return ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 23); }

// ∇ Σ_{i∈B} ℓᵢ = −τ Φ_Bᵀ (y_B − Φ_B θ).
VectorXd closed_form_gradient(const ConjugateLinear& c, const VectorXd& theta,
                              const std::vector<Eigen::Index>& b) {
  const MatrixXd P = c.Phi();
  VectorXd g = VectorXd::Zero(theta.size());
  for (const Eigen::Index i : b)
    g -= c.tau * (c.Y(i, 0) - P.row(i).dot(theta)) * P.row(i).transpose();
  return g;
}

vi::MapOptions full_batch(Eigen::Index epochs) {
  vi::MapOptions o;
  o.loop.epochs = epochs;
  o.loop.minibatch = 0;
  o.learning_rate = {.initial = 0.05, .decay = 0.01, .power = 1.0};
  o.initial = VectorXd::Zero(4);
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(converges_to_the_ridge_solution) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  vi::Rng rng(1);
  const auto r = vi::fit(model, full_batch(3000), rng);
  BOOST_TEST(r.ok(), r.message);
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), c.mean(), tol::iterative, "MAP vs (τΦᵀΦ + δI)⁻¹τΦᵀy"));
}

BOOST_AUTO_TEST_CASE(first_step_is_adams) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  vi::MapOptions o = full_batch(1);
  o.initial = VectorXd::LinSpaced(4, -0.3, 0.4);
  vi::Rng rng(1);
  const auto r = vi::fit(model, o, rng);
  // With m̂ = g and v̂ = g² after one step: θ₁ = θ₀ − α g/(|g| + ε), g = ∇Σℓᵢ + δθ₀ (N/M = 1).
  std::vector<Eigen::Index> all(40);
  for (Eigen::Index i = 0; i < 40; ++i) all[static_cast<std::size_t>(i)] = i;
  const VectorXd g = closed_form_gradient(c, o.initial, all) + c.delta * o.initial;
  const VectorXd expected =
      o.initial.array() - 0.05 * g.array() / (g.array().abs() + o.adam.epsilon);
  NGVI_CHECK_REPORT(compare(r.posterior.mean(), expected, tol::closed_form, "first Adam step"));
}

BOOST_AUTO_TEST_CASE(minibatch_gradient_routes_agree) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  // The same loss as a CallableModel without batch_loss: the per-example route.
  const MatrixXd P = c.Phi();
  const auto per_example = nn::make_model(
      [&](const auto& th, Eigen::Index i) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        T f(0.0);
        for (Eigen::Index j = 0; j < 4; ++j) f += P(i, j) * th(j);
        const T r = c.Y(i, 0) - f;
        return T(0.5 * c.tau * r * r - 0.5 * std::log(c.tau) +
                 0.5 * std::log(2.0 * std::numbers::pi));
      },
      40, 4);
  const std::vector<Eigen::Index> b = {3, 17, 17, 0, 39};
  const VectorXd theta = VectorXd::LinSpaced(4, 0.5, -0.5);
  VectorXd g1, g2;
  const double l1 = vi::minibatch_loss_and_gradient(model, theta, b, g1);
  const double l2 = vi::minibatch_loss_and_gradient(per_example, theta, b, g2);
  NGVI_CHECK_REPORT(
      compare(g1, closed_form_gradient(c, theta, b), tol::closed_form, "batched vs closed form"));
  NGVI_CHECK_REPORT(compare(g2, g1, tol::closed_form, "per-example vs batched"));
  NGVI_CHECK_REPORT(compare(l2, l1, tol::closed_form, "losses"));
}

BOOST_AUTO_TEST_CASE(history_of_a_point_estimate) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  vi::MapOptions o = full_batch(5);
  o.loop.history_every = 1;
  vi::Rng rng(1);
  const auto r = vi::fit(model, o, rng);
  BOOST_TEST(r.history.size() == 5u);
  const auto& row = r.history.back();
  BOOST_TEST(row.elbo == -std::numeric_limits<double>::infinity());
  BOOST_TEST(row.kl == std::numeric_limits<double>::infinity());
  NGVI_CHECK_REPORT(compare(row.expected_nll, model.total_loss(r.posterior.mean()),
                            tol::closed_form, "expected NLL under a point mass = NLL"));
  BOOST_TEST(row.train_nll == row.expected_nll);
  NGVI_CHECK_REPORT(compare(vi::map_objective(model, r.posterior.mean(), 1.0),
                            row.train_nll + 0.5 * r.posterior.mean().squaredNorm(),
                            tol::closed_form, "MAP objective"));
  BOOST_TEST(r.posterior.marginal_variances().isZero());
}

BOOST_AUTO_TEST_CASE(no_examples_and_a_non_finite_point_are_clear_errors) {
  const ConjugateLinear c = problem();
  vi::Rng rng(1);
  const auto empty = c.model_over(MatrixXd(0, 3), MatrixXd(0, 1));
  BOOST_CHECK_THROW(vi::fit(empty, full_batch(1), rng), std::invalid_argument);
  BOOST_CHECK_THROW(vi::PointEstimate(VectorXd::Constant(2, std::nan(""))), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
