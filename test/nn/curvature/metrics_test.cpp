// Tests of nn/curvature/metrics.hpp against matrices whose answers are known in closed form.
#include <cmath>
#include <random>

#include <Eigen/QR>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/tolerances.hpp>
#include <nn/curvature/metrics.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(metrics_test)

namespace {

using namespace ngvi;
namespace tol = ad::verify::tolerances;
using ad::verify::compare;

// A symmetric eigensolver recovers eigenvalues to about P·ε·max|λ|; for these 6×6 matrices
// with |λ| ≤ 5 that is ~1e-14, so the closed-form tolerance (1e-11 relative) has margin.
Eigen::MatrixXd with_eigenvalues(const Eigen::VectorXd& lambda, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  Eigen::MatrixXd M(lambda.size(), lambda.size());
  for (Eigen::Index i = 0; i < M.size(); ++i) M(i) = z(rng);
  const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(M).householderQ();
  return Q * lambda.asDiagonal() * Q.transpose();
}

}  // namespace

BOOST_AUTO_TEST_CASE(relative_frobenius_error_closed_form) {
  Eigen::MatrixXd H(2, 2), A(2, 2);
  H << 3, 0, 0, 4;  // ‖H‖_F = 5
  A << 3, 1, 1, 4;  // ‖A − H‖_F = √2
  NGVI_CHECK_REPORT(compare(nn::relative_frobenius_error(A, H), std::sqrt(2.0) / 5.0,
                            tol::closed_form, "‖A − H‖/‖H‖"));
  BOOST_TEST(nn::relative_frobenius_error(H, H) == 0.0);
  BOOST_TEST(nn::relative_frobenius_error(Eigen::MatrixXd::Zero(2, 2),
                                          Eigen::MatrixXd::Zero(2, 2)) == 0.0);
  BOOST_TEST(std::isinf(nn::relative_frobenius_error(A, Eigen::MatrixXd::Zero(2, 2))));
  BOOST_CHECK_THROW(nn::relative_frobenius_error(A, Eigen::MatrixXd::Zero(3, 3)),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(cosine_closed_form) {
  NGVI_CHECK_REPORT(compare(nn::cosine_similarity(Eigen::Vector2d(1, 0), Eigen::Vector2d(1, 1)),
                            1.0 / std::sqrt(2.0), tol::closed_form, "cos 45°"));
  NGVI_CHECK_REPORT(compare(nn::cosine_similarity(Eigen::Vector2d(1, 2), Eigen::Vector2d(-2, -4)),
                            -1.0, tol::closed_form, "opposite vectors"));
  BOOST_TEST(std::isnan(nn::cosine_similarity(Eigen::Vector2d(0, 0), Eigen::Vector2d(1, 1))));
  Eigen::MatrixXd A = Eigen::Vector2d(1, 0).asDiagonal(), H = Eigen::Vector2d(1, 1).asDiagonal();
  A(0, 1) = A(1, 0) = 7.0;  // off-diagonal entries do not matter
  NGVI_CHECK_REPORT(compare(nn::diagonal_cosine(A, H), 1.0 / std::sqrt(2.0), tol::closed_form,
                            "diagonal cosine"));
  BOOST_CHECK_THROW(nn::cosine_similarity(Eigen::Vector2d(1, 0), Eigen::Vector3d(1, 0, 0)),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(spectrum_of_a_known_indefinite_matrix) {
  Eigen::VectorXd lambda(6);
  lambda << -2.0, -0.5, 0.1, 1.0, 3.0, 5.0;
  const Eigen::MatrixXd M = with_eigenvalues(lambda, 3);
  const nn::Spectrum s = nn::spectrum(M);
  NGVI_CHECK_REPORT(compare(s.eigenvalues, lambda, tol::closed_form, "eigenvalues"));
  BOOST_TEST(s.negative_count == 2);
  BOOST_TEST(!s.psd);
  NGVI_CHECK_REPORT(compare(s.min, -2.0, tol::closed_form, "smallest"));
  NGVI_CHECK_REPORT(
      compare(nn::smallest_eigenvalue(M), -2.0, tol::closed_form, "smallest_eigenvalue"));
  NGVI_CHECK_REPORT(compare(nn::top_eigenvalues(M, 3), Eigen::Vector3d(5.0, 3.0, 1.0),
                            tol::closed_form, "top 3"));
  BOOST_TEST(s.top(10).size() == 6);
}

BOOST_AUTO_TEST_CASE(rounding_noise_is_not_negative_curvature) {
  // GᵀG is PSD with a 2-dimensional null space; its computed zero eigenvalues are ±1e-16-ish.
  Eigen::MatrixXd G(4, 6);
  G << 1, 2, 3, 4, 5, 6, 0, 1, 0, 1, 0, 1, 2, 2, 1, 1, 3, 3, -1, 0, 2, 0, 1, 0;
  const nn::Spectrum s = nn::spectrum(G.transpose() * G);
  BOOST_TEST(s.psd);
  BOOST_TEST(s.negative_count == 0);
  // ... but a genuinely negative eigenvalue of relative size 1e-8 is reported.
  Eigen::VectorXd lambda(6);
  lambda << -1e-8, 0.0, 1.0, 1.0, 2.0, 3.0;
  BOOST_TEST(nn::spectrum(with_eigenvalues(lambda, 4)).negative_count == 1);
}

BOOST_AUTO_TEST_CASE(compare_curvature_summary) {
  Eigen::VectorXd lh(6), la(6);
  lh << -1.0, 0.5, 1.0, 2.0, 3.0, 4.0;
  const Eigen::MatrixXd H = with_eigenvalues(lh, 5);
  const Eigen::MatrixXd A = H + 0.25 * Eigen::MatrixXd::Identity(6, 6);  // eigenvalues shift by 1/4
  const nn::CurvatureComparison c = nn::compare_curvature(A, H, 2);
  NGVI_CHECK_REPORT(compare(c.relative_frobenius_error, 0.25 * std::sqrt(6.0) / lh.norm(),
                            tol::closed_form, "relative Frobenius error of a shift"));
  NGVI_CHECK_REPORT(
      compare(c.top_eigenvalues, Eigen::Vector2d(4.25, 3.25), tol::closed_form, "top 2"));
  NGVI_CHECK_REPORT(compare(c.relative_top_eigenvalue_error, 0.25 / 4.0, tol::closed_form,
                            "top eigenvalue error"));
  NGVI_CHECK_REPORT(compare(c.min_eigenvalue, -0.75, tol::closed_form, "smallest"));
  BOOST_TEST(c.negative_eigenvalues == 1);
  NGVI_CHECK_REPORT(compare(c.diagonal_cosine, nn::cosine_similarity(A.diagonal(), H.diagonal()),
                            tol::exact, "diagonal cosine"));
  BOOST_TEST(c.diagonal_cosine < 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
