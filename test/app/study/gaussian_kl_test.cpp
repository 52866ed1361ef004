// The KL divergence between two Gaussians (app/study/gaussian_kl.hpp) against the one-dimensional
// closed form: per coordinate for independent coordinates, and for correlated Gaussians by
// rotating both, which leaves the divergence unchanged.
#include <cmath>
#include <stdexcept>

#include <Eigen/Core>
#include <app/study/gaussian_kl.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(gaussian_kl_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;

namespace {
// Cholesky factors and a few sums of numbers of order one.
constexpr verify::Tolerance few_operations{1e-13, 1e-14};

// KL(N(m0, s0²) ‖ N(m1, s1²)) = log(s1/s0) + (s0² + (m0 − m1)²)/(2 s1²) − ½.
double kl_1d(double m0, double s0, double m1, double s1) {
  return std::log(s1 / s0) + (s0 * s0 + (m0 - m1) * (m0 - m1)) / (2.0 * s1 * s1) - 0.5;
}
}  // namespace

BOOST_AUTO_TEST_CASE(independent_coordinates_add_up) {
  const Eigen::Vector3d m0(0.5, -1.0, 2.0), m1(0.0, 0.3, 2.5), s0(0.7, 1.5, 0.2), s1(1.1, 0.4, 0.3);
  double expected = 0.0;
  for (int j = 0; j < 3; ++j) expected += kl_1d(m0(j), s0(j), m1(j), s1(j));
  const Eigen::MatrixXd c0 = s0.cwiseAbs2().asDiagonal(), c1 = s1.cwiseAbs2().asDiagonal();
  NGVI_CHECK_REPORT(
      verify::compare(study::gaussian_kl(m0, c0, m1, c1), expected, few_operations, "KL"));
  NGVI_CHECK_REPORT(
      verify::compare(study::gaussian_kl(m0, c0, m0, c0), 0.0, few_operations, "KL of q from q"));
}

// Rotating both Gaussians by R (μ → Rμ, Σ → RΣRᵀ) makes them correlated and keeps the KL.
BOOST_AUTO_TEST_CASE(correlated_gaussians_by_rotation) {
  const double a = 0.6;
  Eigen::Matrix2d r;
  r << std::cos(a), -std::sin(a), std::sin(a), std::cos(a);
  const Eigen::Vector2d m0(1.0, -0.5), m1(0.2, 0.4), s0(0.3, 2.0), s1(0.9, 1.2);
  const Eigen::Matrix2d c0 = s0.cwiseAbs2().asDiagonal(), c1 = s1.cwiseAbs2().asDiagonal();
  const double expected = kl_1d(m0(0), s0(0), m1(0), s1(0)) + kl_1d(m0(1), s0(1), m1(1), s1(1));
  const Eigen::MatrixXd rc0 = r * c0 * r.transpose(), rc1 = r * c1 * r.transpose();
  BOOST_TEST(std::abs(rc0(0, 1)) > 0.1);  // the rotated covariances are correlated
  NGVI_CHECK_REPORT(verify::compare(study::gaussian_kl(r * m0, rc0, r * m1, rc1), expected,
                                    few_operations, "KL of rotated Gaussians"));
}

BOOST_AUTO_TEST_CASE(sizes_and_positive_definiteness_are_checked) {
  const Eigen::VectorXd m = Eigen::VectorXd::Zero(2);
  const Eigen::MatrixXd c = Eigen::MatrixXd::Identity(2, 2);
  BOOST_CHECK_THROW(study::gaussian_kl(m, c, Eigen::VectorXd::Zero(3), c), std::invalid_argument);
  Eigen::MatrixXd indefinite = c;
  indefinite(1, 1) = -1.0;
  BOOST_CHECK_THROW(study::gaussian_kl(m, indefinite, m, c), std::invalid_argument);
  BOOST_CHECK_THROW(study::gaussian_kl(m, c, m, indefinite), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
