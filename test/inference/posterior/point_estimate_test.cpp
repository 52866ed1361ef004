// PointEstimate, the degenerate Gaussian N(θ*, 0): its members are the limits of N(θ*, εI) as
// ε → 0 (checked against a DiagonalGaussian of growing precision), it satisfies the posterior
// concept, draws leave the generator untouched, the ELBO estimate is −∞ with the exact NLL, and
// the Monte-Carlo predictive of a point is the plug-in predictive f(θ*) with the noise variance.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include <inference/elbo.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/point_estimate.hpp>
#include <inference/posterior/posterior_concept.hpp>
#include <inference/predictive.hpp>

#include <support/conjugate_linear.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(point_estimate_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

static_assert(vi::GaussianPosterior<vi::PointEstimate>);

BOOST_AUTO_TEST_CASE(members_are_the_zero_variance_limit) {
  const VectorXd mu = VectorXd::LinSpaced(3, -1.0, 2.0);
  const vi::PointEstimate q(mu);
  vi::Rng rng(4);
  const vi::Rng before = rng;
  BOOST_TEST((q.sample(rng) == mu));
  BOOST_TEST((rng == before));  // a point mass draws nothing
  BOOST_TEST(q.marginal_variances().isZero());
  BOOST_TEST(q.covariance().isZero());
  const double inf = std::numeric_limits<double>::infinity();
  BOOST_TEST(q.entropy() == -inf);
  BOOST_TEST(q.kl_to_prior(2.0) == inf);
  BOOST_TEST(q.log_density(mu) == inf);
  BOOST_TEST(q.log_density(mu + VectorXd::Constant(3, 1e-3)) == -inf);
  // N(μ, λ⁻¹I) with λ growing: entropy falls and KL rises without bound, in step with log λ.
  const vi::DiagonalGaussian a(mu, VectorXd::Constant(3, 1e6)), b(mu, VectorXd::Constant(3, 1e12));
  NGVI_CHECK_REPORT(compare(a.entropy() - b.entropy(), 1.5 * std::log(1e6), tol::closed_form,
                            "entropy falls by (P/2) log of the precision ratio"));
  BOOST_TEST(b.kl_to_prior(2.0) > a.kl_to_prior(2.0));
  BOOST_CHECK_THROW(vi::PointEstimate(VectorXd::Constant(2, std::nan(""))), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(elbo_and_predictive_of_a_point) {
  const auto c = ngvi::test::make_conjugate_linear(20, 2, 4.0, 1.0, 3);
  const auto model = c.model();
  const VectorXd theta = c.mean();
  const vi::PointEstimate q(theta);
  vi::Rng rng(1);
  const vi::ElboEstimate e = vi::estimate_elbo(model, q, 1.0, 1.0, 3, rng);
  BOOST_TEST(e.elbo == -std::numeric_limits<double>::infinity());
  NGVI_CHECK_REPORT(
      compare(e.expected_nll, model.total_loss(theta), tol::closed_form, "E_q[NLL] = NLL(θ*)"));
  // Plug-in predictive on the training inputs: mean Φθ*, variance 1/τ.
  vi::PredictiveOptions o;
  o.samples = 3;
  const auto r = vi::mc_regression_predictive(model, q, nn::Standardizer::identity(1), rng, o);
  NGVI_CHECK_REPORT(
      compare(r.mean.col(0), (c.Phi() * theta).eval(), tol::closed_form, "plug-in mean"));
  NGVI_CHECK_REPORT(compare(r.variance.col(0), VectorXd::Constant(20, 0.25), tol::closed_form,
                            "plug-in variance = 1/τ"));
}

BOOST_AUTO_TEST_SUITE_END()
