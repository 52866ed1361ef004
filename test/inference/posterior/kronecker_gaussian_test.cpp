// KroneckerGaussian against another route: the FullGaussian built from the dense precision
// Λ = blockdiag(c·S ⊗ A) assembled entry by entry in the test (log density, entropy, KL to the
// prior, marginal variances, covariance), sampling moments by Monte Carlo, and bad input.
#include <cmath>
#include <stdexcept>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/kronecker_gaussian.hpp>
#include <inference/posterior/posterior_concept.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(kronecker_gaussian_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

static_assert(vi::GaussianPosterior<vi::KroneckerGaussian>);

namespace {

MatrixXd random_spd(vi::Rng& rng, Eigen::Index n) {
  const MatrixXd B = vi::standard_normal(rng, n, n);
  return B * B.transpose() + 0.5 * MatrixXd::Identity(n, n);
}

// Two layers over P = 8: a 2×3 block on scattered θ indices and a 1×2 block.
struct Case {
  VectorXd mean;
  std::vector<vi::KroneckerBlock> blocks;
};

Case make_case() {
  vi::Rng rng(17);
  Case k;
  k.mean = vi::standard_normal(rng, 8);
  k.blocks.push_back({{7, 0, 2, 5, 1, 3}, random_spd(rng, 3), random_spd(rng, 2), 2.5});
  k.blocks.push_back({{4, 6}, random_spd(rng, 2), MatrixXd::Constant(1, 1, 1.7), 0.8});
  return k;
}

// Λ(index[r·a+c], index[r'·a+c']) = c·S(r, r')·A(c, c'), written out directly.
MatrixXd dense_precision(const Case& k) {
  MatrixXd L = MatrixXd::Zero(k.mean.size(), k.mean.size());
  for (const auto& b : k.blocks) {
    const Eigen::Index a = b.A.rows(), s = b.S.rows();
    for (Eigen::Index u = 0; u < s * a; ++u)
      for (Eigen::Index v = 0; v < s * a; ++v)
        L(b.index[std::size_t(u)], b.index[std::size_t(v)]) =
            b.scale * b.S(u / a, v / a) * b.A(u % a, v % a);
  }
  return L;
}

}  // namespace

BOOST_AUTO_TEST_CASE(closed_forms_match_the_dense_full_gaussian) {
  const Case k = make_case();
  const vi::KroneckerGaussian q(k.mean, k.blocks);
  const vi::FullGaussian full(k.mean, dense_precision(k));
  NGVI_CHECK_REPORT(compare(q.precision(), full.precision(), tol::closed_form, "dense precision"));
  NGVI_CHECK_REPORT(
      compare(q.covariance(), full.covariance(), tol::closed_form, "dense covariance"));
  NGVI_CHECK_REPORT(compare(q.marginal_variances(), full.marginal_variances(), tol::closed_form,
                            "marginal variances"));
  NGVI_CHECK_REPORT(
      compare(q.log_det_precision(), full.log_det_precision(), tol::closed_form, "log det Λ"));
  NGVI_CHECK_REPORT(compare(q.entropy(), full.entropy(), tol::closed_form, "entropy"));
  for (double delta : {0.3, 1.0, 4.0})
    NGVI_CHECK_REPORT(compare(q.kl_to_prior(delta), full.kl_to_prior(delta), tol::closed_form,
                              "KL to the prior"));
  vi::Rng rng(3);
  for (int t = 0; t < 4; ++t) {
    const VectorXd theta = k.mean + vi::standard_normal(rng, 8);
    NGVI_CHECK_REPORT(
        compare(q.log_density(theta), full.log_density(theta), tol::closed_form, "log density"));
  }
}

BOOST_AUTO_TEST_CASE(samples_have_the_posterior_moments) {
  const Case k = make_case();
  const vi::KroneckerGaussian q(k.mean, k.blocks);
  const MatrixXd Sigma = vi::FullGaussian(k.mean, dense_precision(k)).covariance();
  vi::Rng rng(8);
  constexpr int draws = 20000;
  VectorXd sum = VectorXd::Zero(8);
  MatrixXd outer = MatrixXd::Zero(8, 8);
  for (int t = 0; t < draws; ++t) {
    const VectorXd d = q.sample(rng) - k.mean;
    sum += d;
    outer += d * d.transpose();
  }
  const VectorXd mean = sum / draws;
  const MatrixXd cov = outer / draws;  // about the known mean
  for (Eigen::Index i = 0; i < 8; ++i) {
    NGVI_CHECK_MC(mean(i), 0.0, std::sqrt(Sigma(i, i) / draws));
    for (Eigen::Index j = 0; j <= i; ++j)  // Var of d_i d_j for a Gaussian: Σii Σjj + Σij²
      NGVI_CHECK_MC(cov(i, j), Sigma(i, j),
                    std::sqrt((Sigma(i, i) * Sigma(j, j) + Sigma(i, j) * Sigma(i, j)) / draws));
  }
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
  Case k = make_case();
  Case overlap = k;
  overlap.blocks[1].index = {4, 7};  // 7 twice, 6 never
  BOOST_CHECK_THROW(vi::KroneckerGaussian(overlap.mean, overlap.blocks), std::invalid_argument);
  Case not_pd = k;
  not_pd.blocks[0].A(0, 0) = -1.0;
  BOOST_CHECK_THROW(vi::KroneckerGaussian(not_pd.mean, not_pd.blocks), std::invalid_argument);
  Case bad_scale = k;
  bad_scale.blocks[1].scale = 0.0;
  BOOST_CHECK_THROW(vi::KroneckerGaussian(bad_scale.mean, bad_scale.blocks), std::invalid_argument);
  Case bad_size = k;
  bad_size.blocks[1].index = {4};
  BOOST_CHECK_THROW(vi::KroneckerGaussian(bad_size.mean, bad_size.blocks), std::invalid_argument);
  const vi::KroneckerGaussian q(k.mean, k.blocks);
  BOOST_CHECK_THROW(q.log_density(VectorXd::Zero(3)), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
