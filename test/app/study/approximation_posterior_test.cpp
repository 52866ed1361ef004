// What a Hessian approximation does to the posterior (app/study/approximation_posterior.hpp),
// against a second route: the KL from gaussian_kl (itself tested against the one-dimensional
// closed form) with the covariances formed as explicit inverses, and the linearised predictive
// variances as J Σ Jᵀ with the same inverses. An approximation equal to the Hessian scores zero
// on both; at a point where H + δI is not positive definite there is no posterior to compare.
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <Eigen/LU>
#include <app/study/approximation_posterior.hpp>
#include <app/study/gaussian_kl.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <inference/random.hpp>

#include <support/check_report.hpp>
#include <support/study_tolerances.hpp>

BOOST_AUTO_TEST_SUITE(approximation_posterior_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;
namespace vi = ngvi::vi;
namespace study_tol = ngvi::test::study_tolerances;

namespace {
constexpr Eigen::Index p = 6;
constexpr double delta = 0.7;

// (M + δI)⁻¹ by LU, the route the class avoids.
Eigen::MatrixXd covariance(const Eigen::MatrixXd& m) {
  return (m + delta * Eigen::MatrixXd::Identity(p, p)).inverse();
}
}  // namespace

BOOST_AUTO_TEST_CASE(kl_and_variance_ratio_match_explicit_inverses) {
  vi::Rng rng(11);
  const Eigen::MatrixXd b = vi::standard_normal(rng, p, p);
  const Eigen::MatrixXd c = vi::standard_normal(rng, p, 3);
  const Eigen::MatrixXd h = b * b.transpose() + Eigen::MatrixXd::Identity(p, p);
  const Eigen::MatrixXd a = c * c.transpose();  // rank 3: positive semi-definite, as a GGN
  const Eigen::MatrixXd j = vi::standard_normal(rng, 4, p);
  const Eigen::VectorXd theta = vi::standard_normal(rng, p);

  const study::HessianPosterior exact(h, delta, j);
  BOOST_TEST(exact.positive_definite());
  const study::HessianPosterior::Errors e = exact.errors(a);
  const Eigen::MatrixXd sa = covariance(a), sh = covariance(h);
  const double kl = study::gaussian_kl(theta, sa, theta, sh);
  BOOST_TEST(kl > 0.1);  // the two posteriors differ
  NGVI_CHECK_REPORT(verify::compare(e.kl, kl, study_tol::small_dense_algebra, "KL"));
  double ratio = 0.0;
  for (Eigen::Index k = 0; k < j.rows(); ++k)
    ratio += std::log(j.row(k).dot(sa * j.row(k).transpose())) -
             std::log(j.row(k).dot(sh * j.row(k).transpose()));
  ratio /= static_cast<double>(j.rows());
  NGVI_CHECK_REPORT(verify::compare(e.log_variance_ratio, ratio, study_tol::small_dense_algebra,
                                    "mean log variance ratio"));

  const study::HessianPosterior::Errors same = exact.errors(h);
  NGVI_CHECK_REPORT(verify::compare(same.kl, 0.0, study_tol::small_dense_algebra, "KL of H"));
  NGVI_CHECK_REPORT(verify::compare(same.log_variance_ratio, 0.0, study_tol::small_dense_algebra,
                                    "variance ratio of H"));
}

BOOST_AUTO_TEST_CASE(no_posterior_where_h_plus_delta_is_indefinite) {
  Eigen::MatrixXd h = Eigen::MatrixXd::Identity(p, p);
  h(2, 2) = -2.0 * delta;  // H + δI has the eigenvalue −δ
  const study::HessianPosterior exact(h, delta, Eigen::MatrixXd::Ones(2, p));
  BOOST_TEST(!exact.positive_definite());
  const study::HessianPosterior::Errors e = exact.errors(Eigen::MatrixXd::Identity(p, p));
  BOOST_TEST(std::isnan(e.kl));
  BOOST_TEST(std::isnan(e.log_variance_ratio));
}

BOOST_AUTO_TEST_CASE(mismatched_sizes_are_named) {
  const Eigen::MatrixXd h = Eigen::MatrixXd::Identity(p, p);
  auto names = [](const char* what) {
    return [what](const std::invalid_argument& e) {
      return std::string(e.what()).find(what) != std::string::npos;
    };
  };
  BOOST_CHECK_EXCEPTION(study::HessianPosterior(h, delta, Eigen::MatrixXd::Ones(2, p + 1)),
                        std::invalid_argument, names("jacobians 2×7"));
  BOOST_CHECK_EXCEPTION(study::HessianPosterior(h, 0.0, Eigen::MatrixXd::Ones(2, p)),
                        std::invalid_argument, names("delta = 0"));
  const study::HessianPosterior exact(h, delta, Eigen::MatrixXd::Ones(2, p));
  BOOST_CHECK_EXCEPTION(exact.errors(Eigen::MatrixXd::Identity(p - 1, p - 1)),
                        std::invalid_argument, names("approximation is 5×5"));
}

BOOST_AUTO_TEST_SUITE_END()
