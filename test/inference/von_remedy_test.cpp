// VON's eigenvalue clipping (clip_eigenvalues_below, inference/von_remedy.hpp) against the closed
// form: a symmetric H = Q diag(λ) Qᵀ built from a chosen spectrum λ and a random orthogonal Q,
// whose clipped matrix Q diag(max(λ, floor)) Qᵀ is known without any eigensolver. The spectra have
// clearly negative eigenvalues, a block of exact zeros (which floating point turns into ±1e-16·‖H‖
// and which a floor of 0 must leave alone), clusters and a wide range of scales.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/QR>
#include <boost/test/unit_test.hpp>

#include <inference/von_remedy.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(von_remedy_test)

using namespace ngvi;
namespace tol = ngvi::test::vi_tolerances;

namespace {

// A random orthogonal P×P matrix: the Q of a Householder QR of a matrix of uniform entries
// (Eigen's Random; any full-rank matrix serves).
Eigen::MatrixXd random_orthogonal(Eigen::Index p, unsigned seed) {
  std::srand(seed);
  const Eigen::MatrixXd a = Eigen::MatrixXd::Random(p, p);
  return Eigen::HouseholderQR<Eigen::MatrixXd>(a).householderQ();
}

Eigen::MatrixXd with_spectrum(const Eigen::MatrixXd& q, const Eigen::VectorXd& lambda) {
  return q * lambda.asDiagonal() * q.transpose();
}

// The spectrum of a small network's Hessian in miniature: `negative` clearly negative
// eigenvalues, `zeros` exact zeros, the rest positive, spread over `decades` decades.
Eigen::VectorXd spectrum(Eigen::Index negative, Eigen::Index zeros, Eigen::Index positive,
                         double decades) {
  Eigen::VectorXd lambda(negative + zeros + positive);
  for (Eigen::Index i = 0; i < negative; ++i)
    lambda(i) = -std::pow(10.0, -decades * static_cast<double>(i) / static_cast<double>(negative));
  lambda.segment(negative, zeros).setZero();
  for (Eigen::Index i = 0; i < positive; ++i)
    lambda(negative + zeros + i) =
        3.0 * std::pow(10.0, -decades * static_cast<double>(i) / static_cast<double>(positive));
  return lambda;
}

// clip_eigenvalues_below(h, floor) against Q diag(max(λ, floor)) Qᵀ, entrywise relative to ‖H‖
// (so that any scale of H is held to the same bar), and symmetric to the bit.
void check_clip(const Eigen::MatrixXd& q, const Eigen::VectorXd& lambda, double floor,
                const std::string& what) {
  Eigen::MatrixXd h = with_spectrum(q, lambda);
  const double norm = lambda.cwiseAbs().maxCoeff();
  BOOST_TEST(vi::clip_eigenvalues_below(h, floor), what);
  const Eigen::MatrixXd expected = with_spectrum(q, lambda.cwiseMax(floor));
  NGVI_CHECK_REPORT(ad::verify::compare(h / norm, expected / norm, tol::eigen_reconstruction,
                                        what + ": clipped H / ‖H‖"));
  BOOST_TEST((h.array() == h.transpose().array()).all(), what << ": not symmetric");
}

}  // namespace

BOOST_AUTO_TEST_CASE(clipping_gives_the_closed_form_for_every_floor_and_scale) {
  const Eigen::MatrixXd q = random_orthogonal(40, 3);
  const Eigen::VectorXd lambda = spectrum(6, 20, 14, 6.0);
  check_clip(q, lambda, 0.0, "floor 0");
  // A positive floor also lifts the exact zeros and the small positive eigenvalues.
  check_clip(q, lambda, 1e-3, "floor 1e-3");
  // A floor above the whole spectrum leaves floor·I.
  check_clip(q, lambda, 10.0, "floor 10");
  // The same spectrum scaled to the edges of double precision: the scaling inside keeps it
  // from overflowing or losing the small eigenvalues.
  for (const double s : {1e-150, 1e150})
    check_clip(q, s * lambda, 0.0, "spectrum scaled by " + std::to_string(s));
  // A cluster of equal negative eigenvalues (a multiple eigenvalue's invariant subspace).
  Eigen::VectorXd clustered = lambda;
  clustered.head(6).setConstant(-0.5);
  check_clip(q, clustered, 0.0, "six equal negative eigenvalues");
  check_clip(random_orthogonal(1, 4), Eigen::VectorXd::Constant(1, -2.0), 0.5, "P = 1");
}

BOOST_AUTO_TEST_CASE(a_floor_inside_a_tight_cluster_is_still_the_closed_form) {
  // Twenty exact zeros come out of floating point spread over ~ε‖H‖. Floors swept upward from 0 in
  // steps of 1e-16‖H‖ put the end of the solver's interval (floor − P·ε·‖T‖) inside that spread
  // for some of them: LAPACK's MRRR solver reports failure there (info 22 in LAPACK 3.11, seen
  // when this test was written) and the clipping falls back to Eigen's eigensolver. Either way
  // the result is the closed form, up to the eigenvalues within tol of the floor.
  const Eigen::MatrixXd q = random_orthogonal(40, 3);
  Eigen::VectorXd lambda = spectrum(6, 20, 14, 6.0);
  lambda.head(6).setConstant(-0.5);
  const double norm = lambda.cwiseAbs().maxCoeff();
  for (int j = 0; j <= 400; ++j)
    check_clip(q, lambda, 1e-16 * norm * static_cast<double>(j),
               "floor " + std::to_string(j) + "e-16·‖H‖");
}

BOOST_AUTO_TEST_CASE(a_positive_semidefinite_matrix_is_left_to_the_bit) {
  // Exact zeros come out of any eigensolver as ±ε‖H‖: within the solver's accuracy of the floor 0,
  // so nothing is clipped and h is not touched.
  const Eigen::MatrixXd q = random_orthogonal(40, 5);
  const Eigen::MatrixXd h = with_spectrum(q, spectrum(0, 25, 15, 4.0));
  Eigen::MatrixXd clipped = h;
  BOOST_TEST(!vi::clip_eigenvalues_below(clipped, 0.0));
  BOOST_TEST((clipped.array() == h.array()).all());
  Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(5, 5);
  BOOST_TEST(!vi::clip_eigenvalues_below(zero, 0.0));
  BOOST_TEST(vi::clip_eigenvalues_below(zero, 2.0));
  NGVI_CHECK_REPORT(ad::verify::compare(zero, 2.0 * Eigen::MatrixXd::Identity(5, 5),
                                        tol::eigen_reconstruction, "zero matrix at floor 2"));
}

BOOST_AUTO_TEST_CASE(a_diagonal_is_clipped_entrywise) {
  Eigen::VectorXd d(4);
  d << -1.0, 0.0, 2.0, -0.25;
  BOOST_TEST(vi::clip_eigenvalues_below(d, 0.5));
  Eigen::VectorXd expected(4);
  expected << 0.5, 0.5, 2.0, 0.5;
  BOOST_TEST((d.array() == expected.array()).all());
  BOOST_TEST(!vi::clip_eigenvalues_below(d, 0.5));
}

BOOST_AUTO_TEST_SUITE_END()
