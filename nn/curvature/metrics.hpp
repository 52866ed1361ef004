// Metrics that say how far a curvature approximation is from a reference (usually the exact
// Hessian): relative Frobenius error, cosine similarity of the diagonals, and spectra (top-k
// eigenvalues, the smallest eigenvalue, the count of negative eigenvalues, PSD or not).
//
// Spectra come from Eigen's SelfAdjointEigenSolver on the symmetric part (M + Mᵀ)/2, so a
// matrix that is symmetric only up to rounding is handled as intended. "Negative" is relative:
// an eigenvalue counts as negative when it is below −negative_tolerance · max|λ|, so the rounding
// noise of an exactly PSD matrix (eigenvalues like −1e-15·max|λ|) is not reported as
// indefiniteness.
// Functions that would not otherwise be templates are written `template <int = 0>` (called as
// usual), so that a program compiles their Eigen code — the eigensolver above all — only if it
// calls them (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

namespace ngvi::nn {

namespace detail {
template <int = 0>
void check_same_shape(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const char* who) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument(std::string("ngvi::nn::") + who + ": approximation is " +
                                std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                                ", reference is " + std::to_string(b.rows()) + "x" +
                                std::to_string(b.cols()));
}
template <int = 0>
void check_square(const Eigen::MatrixXd& m, const char* who) {
  if (m.rows() != m.cols())
    throw std::invalid_argument(std::string("ngvi::nn::") + who +
                                ": expected a square matrix, got " + std::to_string(m.rows()) +
                                "x" + std::to_string(m.cols()));
}
}  // namespace detail

// ‖A − H‖_F / ‖H‖_F. 0 when both are zero, +inf when only H is. Cost: O(P²).
template <int = 0>
double relative_frobenius_error(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& reference) {
  detail::check_same_shape(approx, reference, "relative_frobenius_error");
  const double diff = (approx - reference).norm();
  const double ref = reference.norm();
  if (ref == 0.0) return diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return diff / ref;
}

// aᵀb / (‖a‖‖b‖) ∈ [−1, 1]; NaN if either vector is zero (the angle is undefined). Cost: O(P).
template <int = 0>
double cosine_similarity(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("ngvi::nn::cosine_similarity: vectors have " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                " entries");
  const double na = a.norm(), nb = b.norm();
  if (na == 0.0 || nb == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return std::clamp(a.dot(b) / (na * nb), -1.0, 1.0);
}

// Cosine similarity of diag(A) and diag(H). Cost: O(P).
template <int = 0>
double diagonal_cosine(const Eigen::MatrixXd& approx, const Eigen::MatrixXd& reference) {
  detail::check_same_shape(approx, reference, "diagonal_cosine");
  return cosine_similarity(approx.diagonal(), reference.diagonal());
}

struct SpectrumOptions {
  // An eigenvalue is "negative" when below −negative_tolerance·max|λ|. 1e-10 is far above the
  // rounding noise of P ≲ 10³ sums of order-one terms (≈ P·ε ≈ 1e-13) and far below the
  // negative curvature of a non-convex loss that matters for a Laplace/VON precision.
  double negative_tolerance = 1e-10;
};

struct Spectrum {
  Eigen::VectorXd eigenvalues;      // ascending
  double min = 0.0, max = 0.0;      // smallest and largest eigenvalue (0 for an empty matrix)
  Eigen::Index negative_count = 0;  // eigenvalues below −negative_tolerance·max|λ|
  bool psd = true;                  // negative_count == 0

  // The k largest eigenvalues, largest first (fewer if the matrix is smaller).
  Eigen::VectorXd top(Eigen::Index k) const {
    const Eigen::Index n = std::min<Eigen::Index>(std::max<Eigen::Index>(k, 0), eigenvalues.size());
    return eigenvalues.tail(n).reverse();
  }
};

// The eigenvalues of the symmetric part of M. Cost: one symmetric eigendecomposition, O(P³).
template <int = 0>
Spectrum spectrum(const Eigen::MatrixXd& m, const SpectrumOptions& options = {}) {
  detail::check_square(m, "spectrum");
  Spectrum s;
  if (m.rows() == 0) return s;
  const Eigen::MatrixXd sym = 0.5 * (m + m.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(sym, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success)
    throw std::runtime_error(
        "ngvi::nn::spectrum: the eigensolver did not converge (NaN or Inf in "
        "the matrix?)");
  s.eigenvalues = solver.eigenvalues();
  s.min = s.eigenvalues(0);
  s.max = s.eigenvalues(s.eigenvalues.size() - 1);
  const double scale = s.eigenvalues.cwiseAbs().maxCoeff();
  const double threshold = -options.negative_tolerance * scale;
  s.negative_count = (s.eigenvalues.array() < threshold).count();
  s.psd = s.negative_count == 0;
  return s;
}

// The k largest eigenvalues, largest first. Cost: O(P³).
template <int = 0>
Eigen::VectorXd top_eigenvalues(const Eigen::MatrixXd& m, Eigen::Index k) {
  return spectrum(m).top(k);
}

// The smallest eigenvalue (negative: the matrix is not PSD). Cost: O(P³).
template <int = 0>
double smallest_eigenvalue(const Eigen::MatrixXd& m) {
  return spectrum(m).min;
}

// How an approximation A compares with a reference H (usually the exact Hessian).
struct CurvatureComparison {
  double relative_frobenius_error = 0.0;  // ‖A − H‖_F / ‖H‖_F
  double diagonal_cosine = 0.0;           // cos∠(diag A, diag H)
  // Cosine of the top eigenvector directions is not reported: with near-degenerate top
  // eigenvalues it is ill-defined. The top eigenvalues themselves are.
  Eigen::VectorXd top_eigenvalues;             // A's k largest, largest first
  double relative_top_eigenvalue_error = 0.0;  // |λmax(A) − λmax(H)| / |λmax(H)|
  double min_eigenvalue = 0.0;                 // A's smallest eigenvalue
  Eigen::Index negative_eigenvalues = 0;       // A's count (see SpectrumOptions)
};

// Compares A with H. Pass H's spectrum if already computed (it is reused across approximations).
// Cost: one eigendecomposition of A (O(P³)) + O(P²).
template <int = 0>
CurvatureComparison compare_curvature(const Eigen::MatrixXd& approx,
                                      const Eigen::MatrixXd& reference,
                                      const Spectrum& reference_spectrum, Eigen::Index k = 5,
                                      const SpectrumOptions& options = {}) {
  detail::check_same_shape(approx, reference, "compare_curvature");
  CurvatureComparison c;
  c.relative_frobenius_error = relative_frobenius_error(approx, reference);
  c.diagonal_cosine = diagonal_cosine(approx, reference);
  const Spectrum s = spectrum(approx, options);
  c.top_eigenvalues = s.top(k);
  c.relative_top_eigenvalue_error =
      reference_spectrum.max != 0.0
          ? std::abs(s.max - reference_spectrum.max) / std::abs(reference_spectrum.max)
          : std::numeric_limits<double>::infinity();
  c.min_eigenvalue = s.min;
  c.negative_eigenvalues = s.negative_count;
  return c;
}

// As above, computing the reference's spectrum. Cost: two eigendecompositions.
template <int = 0>
CurvatureComparison compare_curvature(const Eigen::MatrixXd& approx,
                                      const Eigen::MatrixXd& reference, Eigen::Index k = 5,
                                      const SpectrumOptions& options = {}) {
  return compare_curvature(approx, reference, spectrum(reference, options), k, options);
}

}  // namespace ngvi::nn
