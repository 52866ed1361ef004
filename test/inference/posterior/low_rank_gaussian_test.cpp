// LowRankGaussian against FullGaussian with the same dense precision UUᵀ + diag(d) (Cholesky
// routes): log density, entropy, KL, marginal variances, covariance and Λ⁻¹v; its sampling map
// θ − μ = Aε checked by A Aᵀ = Λ⁻¹ column by column; rank 0 against DiagonalGaussian bit for bit
// (the same formulas); and the constructor's errors.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/low_rank_gaussian.hpp>
#include <inference/posterior/posterior_concept.hpp>

#include <support/check_bitwise.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(low_rank_gaussian_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

static_assert(vi::GaussianPosterior<vi::LowRankGaussian>);

BOOST_AUTO_TEST_CASE(every_member_matches_the_dense_precision) {
  const Eigen::Index p = 6;
  vi::Rng rng(3);
  const VectorXd mu = VectorXd::LinSpaced(p, -1.0, 1.0);
  const VectorXd d = VectorXd::LinSpaced(p, 0.5, 2.0);
  for (const Eigen::Index l : {1, 3, 6}) {
    BOOST_TEST_CONTEXT("rank " << l) {
      // A rank-deficient U (its last column repeats the first) for l = 3: σ² = 0 is allowed.
      MatrixXd u = vi::standard_normal(rng, p, l);
      if (l == 3) u.col(2) = u.col(0);
      const vi::LowRankGaussian q(mu, u, d);
      MatrixXd lambda = u * u.transpose();
      lambda.diagonal() += d;
      const vi::FullGaussian f(mu, lambda);
      NGVI_CHECK_REPORT(compare(q.precision(), lambda, tol::closed_form, "Λ"));
      NGVI_CHECK_REPORT(compare(q.covariance(), f.covariance(), tol::closed_form, "Σ"));
      NGVI_CHECK_REPORT(
          compare(q.marginal_variances(), f.marginal_variances(), tol::closed_form, "diag Σ"));
      NGVI_CHECK_REPORT(
          compare(q.log_det_precision(), f.log_det_precision(), tol::closed_form, "log det Λ"));
      NGVI_CHECK_REPORT(compare(q.entropy(), f.entropy(), tol::closed_form, "entropy"));
      NGVI_CHECK_REPORT(compare(q.kl_to_prior(0.7), f.kl_to_prior(0.7), tol::closed_form, "KL"));
      const VectorXd v = vi::standard_normal(rng, p);
      NGVI_CHECK_REPORT(compare(q.solve(v), f.solve(v), tol::closed_form, "Λ⁻¹v"));
      const VectorXd theta = q.sample(rng);
      NGVI_CHECK_REPORT(
          compare(q.log_density(theta), f.log_density(theta), tol::closed_form, "log q(θ)"));
      // θ − μ = Aε is linear in ε: its columns on the unit vectors give A, and AAᵀ = Λ⁻¹.
      MatrixXd a(p, p);
      for (Eigen::Index j = 0; j < p; ++j) a.col(j) = q.sample_offset(VectorXd::Unit(p, j));
      NGVI_CHECK_REPORT(
          compare(MatrixXd(a * a.transpose()), f.covariance(), tol::closed_form, "AAᵀ = Λ⁻¹"));
    }
  }
}

BOOST_AUTO_TEST_CASE(rank_zero_is_the_diagonal_gaussian_bit_for_bit) {
  const VectorXd mu = VectorXd::LinSpaced(5, -1.0, 1.0), d = VectorXd::LinSpaced(5, 0.3, 3.0);
  const vi::LowRankGaussian q(mu, MatrixXd(5, 0), d);
  const vi::DiagonalGaussian g(mu, d);
  vi::Rng r1(4), r2(4);
  NGVI_CHECK_BITWISE(q.sample(r1), g.sample(r2), "θ ~ q");
  NGVI_CHECK_BITWISE(q.marginal_variances(), g.marginal_variances(), "diag Σ");
  NGVI_CHECK_BITWISE(q.solve(mu), VectorXd(mu.cwiseQuotient(d)), "Λ⁻¹μ");
}

BOOST_AUTO_TEST_CASE(bad_factors_are_rejected) {
  const VectorXd mu = VectorXd::Zero(3);
  ngvi::test::check_error_mentions(
      [&] { vi::LowRankGaussian(mu, MatrixXd::Zero(3, 1), VectorXd::Constant(3, 0.0)); },
      "diagonal(0) = 0.000000 is not positive and finite");
  ngvi::test::check_error_mentions(
      [&] { vi::LowRankGaussian(mu, MatrixXd::Zero(2, 1), VectorXd::Ones(3)); },
      "the low-rank factor 2 rows");
  ngvi::test::check_error_mentions(
      [&] {
        vi::LowRankGaussian(mu, MatrixXd::Constant(3, 1, std::numeric_limits<double>::infinity()),
                            VectorXd::Ones(3));
      },
      "non-finite");
}

BOOST_AUTO_TEST_SUITE_END()
