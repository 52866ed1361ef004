// FullGaussian and DiagonalGaussian against independent routes: densities against Boost.Math's
// normal distribution and against the covariance form computed by LU; KL and entropy against
// Monte-Carlo averages of log q − log p₀ and of −log q; samples' moments against Λ⁻¹; the diagonal
// family against the full one with a diagonal precision.
#include <cmath>
#include <numbers>

#include <Eigen/Dense>
#include <boost/math/distributions/normal.hpp>
#include <boost/test/unit_test.hpp>

#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/posterior_concept.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(full_gaussian_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

static_assert(vi::GaussianPosterior<vi::FullGaussian>);
static_assert(vi::GaussianPosterior<vi::DiagonalGaussian>);

namespace {

// A well-conditioned SPD precision with correlations.
MatrixXd test_precision(Eigen::Index p) {
  vi::Rng rng(3);
  const MatrixXd A = vi::standard_normal(rng, p, p);
  return A * A.transpose() / static_cast<double>(p) + MatrixXd::Identity(p, p);
}

// log N(θ; μ, Σ) by the covariance form: Σ⁻¹ and log det Σ from an LU of Σ = Λ⁻¹.
double log_density_by_covariance(const VectorXd& theta, const VectorXd& mu,
                                 const MatrixXd& precision) {
  const MatrixXd sigma = precision.fullPivLu().inverse();
  const Eigen::FullPivLU<MatrixXd> lu(sigma);
  const VectorXd d = theta - mu;
  const double p = static_cast<double>(mu.size());
  return -0.5 *
         (d.dot(lu.solve(d)) + std::log(lu.determinant()) + p * std::log(2.0 * std::numbers::pi));
}

}  // namespace

BOOST_AUTO_TEST_CASE(log_density_matches_the_covariance_form) {
  const Eigen::Index p = 5;
  const VectorXd mu = VectorXd::LinSpaced(p, -1.0, 1.0);
  const vi::FullGaussian q(mu, test_precision(p));
  vi::Rng rng(7);
  for (int k = 0; k < 5; ++k) {
    const VectorXd theta = q.sample(rng);
    NGVI_CHECK_REPORT(compare(q.log_density(theta),
                              log_density_by_covariance(theta, mu, test_precision(p)),
                              tol::closed_form, "log q(θ)"));
  }
}

BOOST_AUTO_TEST_CASE(diagonal_density_matches_boost_normals) {
  const VectorXd mu = (VectorXd(3) << 0.5, -2.0, 1.0).finished();
  const VectorXd lambda = (VectorXd(3) << 4.0, 0.25, 1.5).finished();
  const vi::DiagonalGaussian q(mu, lambda);
  const VectorXd theta = (VectorXd(3) << 0.1, 0.3, -0.7).finished();
  double ref = 0.0;
  for (int i = 0; i < 3; ++i)
    ref += std::log(
        boost::math::pdf(boost::math::normal(mu(i), 1.0 / std::sqrt(lambda(i))), theta(i)));
  NGVI_CHECK_REPORT(compare(q.log_density(theta), ref, tol::closed_form, "diagonal log q(θ)"));
}

BOOST_AUTO_TEST_CASE(diagonal_family_equals_full_family_with_diagonal_precision) {
  const VectorXd mu = (VectorXd(4) << 0.5, -2.0, 1.0, 0.0).finished();
  const VectorXd lambda = (VectorXd(4) << 4.0, 0.25, 1.5, 9.0).finished();
  const vi::DiagonalGaussian d(mu, lambda);
  const vi::FullGaussian f(mu, lambda.asDiagonal().toDenseMatrix());
  NGVI_CHECK_REPORT(compare(d.entropy(), f.entropy(), tol::closed_form, "entropy"));
  NGVI_CHECK_REPORT(
      compare(d.kl_to_prior(2.0), f.kl_to_prior(2.0), tol::closed_form, "KL to N(0, I/2)"));
  NGVI_CHECK_REPORT(
      compare(d.marginal_variances(), f.marginal_variances(), tol::closed_form, "variances"));
  const VectorXd eps = (VectorXd(4) << 0.3, -1.0, 2.0, 0.5).finished();
  NGVI_CHECK_REPORT(compare(d.sample_from(eps), f.sample_from(eps), tol::closed_form, "θ(ε)"));
}

BOOST_AUTO_TEST_CASE(marginal_variances_and_covariance_invert_the_precision) {
  const MatrixXd lambda = test_precision(6);
  const vi::FullGaussian q(VectorXd::Zero(6), lambda);
  const MatrixXd sigma = lambda.fullPivLu().inverse();
  NGVI_CHECK_REPORT(compare(q.covariance(), sigma, tol::closed_form, "Σ"));
  NGVI_CHECK_REPORT(
      compare(q.marginal_variances(), VectorXd(sigma.diagonal()), tol::closed_form, "diag Σ"));
  NGVI_CHECK_REPORT(compare(q.solve(VectorXd::Ones(6)), VectorXd(sigma * VectorXd::Ones(6)),
                            tol::closed_form, "Λ⁻¹1"));
}

BOOST_AUTO_TEST_CASE(samples_have_the_posterior_moments) {
  const Eigen::Index p = 3;
  const MatrixXd lambda = test_precision(p);
  const VectorXd mu = (VectorXd(p) << 1.0, -1.0, 0.5).finished();
  const vi::FullGaussian q(mu, lambda);
  const MatrixXd sigma = q.covariance();
  const int n = 40000;
  vi::Rng rng(11);
  VectorXd sum = VectorXd::Zero(p);
  MatrixXd outer = MatrixXd::Zero(p, p);
  for (int s = 0; s < n; ++s) {
    const VectorXd d = q.sample(rng) - mu;
    sum += d;
    outer += d * d.transpose();
  }
  for (Eigen::Index i = 0; i < p; ++i) {
    NGVI_CHECK_MC(sum(i) / n, 0.0, std::sqrt(sigma(i, i) / n));
    for (Eigen::Index j = 0; j <= i; ++j) {
      // Var(dᵢdⱼ) = ΣᵢᵢΣⱼⱼ + Σᵢⱼ² for a zero-mean Gaussian.
      const double se = std::sqrt((sigma(i, i) * sigma(j, j) + sigma(i, j) * sigma(i, j)) / n);
      NGVI_CHECK_MC(outer(i, j) / n, sigma(i, j), se);
    }
  }
}

BOOST_AUTO_TEST_CASE(kl_and_entropy_match_monte_carlo) {
  const Eigen::Index p = 4;
  const double delta = 0.7;
  const vi::FullGaussian q(VectorXd::LinSpaced(p, -0.5, 1.0), test_precision(p));
  const vi::DiagonalGaussian prior(VectorXd::Zero(p), VectorXd::Constant(p, delta));
  const int n = 40000;
  vi::Rng rng(5);
  double kl = 0.0, kl2 = 0.0, h = 0.0, h2 = 0.0;
  for (int s = 0; s < n; ++s) {
    const VectorXd t = q.sample(rng);
    const double r = q.log_density(t) - prior.log_density(t), l = -q.log_density(t);
    kl += r, kl2 += r * r, h += l, h2 += l * l;
  }
  kl /= n, h /= n;
  NGVI_CHECK_MC(kl, q.kl_to_prior(delta), std::sqrt((kl2 / n - kl * kl) / n));
  NGVI_CHECK_MC(h, q.entropy(), std::sqrt((h2 / n - h * h) / n));
}

BOOST_AUTO_TEST_CASE(rejects_a_precision_that_is_not_positive_definite) {
  MatrixXd lambda = MatrixXd::Identity(2, 2);
  lambda(0, 1) = lambda(1, 0) = 2.0;  // eigenvalues 3 and −1
  BOOST_TEST(!vi::FullGaussian::from_precision_if_pd(VectorXd::Zero(2), lambda).has_value());
  BOOST_CHECK_THROW(vi::FullGaussian(VectorXd::Zero(2), lambda), std::invalid_argument);
  BOOST_CHECK_THROW(vi::FullGaussian(VectorXd::Zero(3), MatrixXd::Identity(2, 2)),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vi::DiagonalGaussian(VectorXd::Zero(2), VectorXd::Constant(2, -1.0)),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
