// The remedies of VON (von.hpp) for an indefinite Hessian. Away from a minimum of a non-convex
// loss the exact minibatch Hessian Ĥ can be indefinite, and VON's precision update
// Λ ← (1−β)Λ + β(NĤ/λ + δI) can then leave Λ non-positive-definite — no longer a Gaussian's
// precision. VonRemedy names what VON does about it (clip Ĥ's eigenvalues, damp or reject the
// step, add damping, fall back to the Gauss-Newton matrix, or stop), von_remedy_name the key under
// which each firing is counted, and clip_eigenvalues_below the clipping itself. The switch that
// applies a remedy inside a step stays in von.hpp, beside the update it repairs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <lapacke.h>

namespace ngvi::vi {

// What VON does when the exact Hessian would make Λ non-positive-definite. Every remedy keeps Λ
// positive definite; each counts the steps on which it fired (Counters::times_fired with
// von_remedy_name(remedy)). All but clip_eigenvalues detect the problem by the Cholesky
// factorisation of the new Λ, which the step computes anyway, and of Λ − κδI (κ =
// precision_floor, one more Cholesky), so they cost no eigendecomposition and nothing else on
// steps where the new Λ passes.
enum class VonRemedy {
  // Replace Ĥ by V max(D, eigenvalue_floor) Vᵀ (its eigendecomposition Ĥ = V D Vᵀ) on every step,
  // so NĤ/λ + δI ⪰ δI and Λ ⪰ min(Λ₀, δI) stays positive definite without a check. Fires on the
  // steps where an eigenvalue was below the floor by more than the eigensolver's accuracy
  // (clip_eigenvalues_below). Costs a tridiagonalisation of Ĥ and its clipped eigenpairs per
  // step, not a whole eigendecomposition. This is the remedy of the PyTorch reference
  // implementation that bench_vi compares against (its "clip_H"). Diagonal VON clips the entries
  // of diag Ĥ (no eigendecomposition).
  clip_eigenvalues,
  // Damp the step: if the Cholesky of the new Λ fails, halve β (for the precision update only;
  // α is unchanged) and retry, up to max_step_halvings times; since the old Λ is positive
  // definite a small enough β always succeeds. If all halvings fail, the step is rejected.
  damp_step,
  // If the Cholesky of the new Λ fails, add ρI to it, ρ = damping·δ, then 10ρ, 100ρ, ... until it
  // succeeds (at most max_damping_increases times, else the run stops with an error). The added
  // damping stays in Λ (a later step forgets it at rate β).
  add_damping,
  // If the Cholesky of the new Λ fails, reject the whole step: μ and Λ stay as they were.
  reject_step,
  // If the new Λ fails the check, redo this step's curvature with the generalized Gauss-Newton
  // matrix (nn::ggn on the same minibatch at the same θₛ; positive semi-definite for the
  // likelihoods of nn/, so the new Λ − κδI ⪰ (1−β)(Λ − κδI) + β(1−κ)δI stays positive definite
  // by induction from Λ₀). Needs a model with outputs and a likelihood (nn::Supervised); checked
  // when the method is constructed.
  ggn_fallback,
  // No remedy: if the Cholesky of the new Λ fails, stop the run (the step throws StepFailure, so
  // the fit returns status failed, naming the iteration, with the last good q). For studying how
  // often the exact update breaks down.
  fail,
};

// The Counters key under which a remedy's firings are counted.
inline const char* von_remedy_name(VonRemedy r) {
  switch (r) {
    case VonRemedy::clip_eigenvalues:
      return "von: negative Hessian eigenvalues clipped";
    case VonRemedy::damp_step:
      return "von: precision step damped (beta halved)";
    case VonRemedy::add_damping:
      return "von: damping added to a non-PD precision";
    case VonRemedy::reject_step:
      return "von: step rejected (non-PD precision)";
    case VonRemedy::ggn_fallback:
      return "von: GGN used for a non-PD precision";
    case VonRemedy::fail:
      return "von: non-PD precision (fail)";
  }
  return "von: unknown remedy";
}

// Ĥ ← V max(D, floor) Vᵀ, with Ĥ = V D Vᵀ its eigendecomposition (a P×P matrix; its lower
// triangle is read), or the entrywise max(Ĥᵢᵢ, floor) of a diagonal given as its P entries (a
// column). The full case never forms V: it reduces Ĥ to a tridiagonal T = QᵀĤQ (Householder,
// Eigen's Tridiagonalization), counts the k eigenvalues of T below the floor (Sturm), asks LAPACK's
// MRRR solver (dstemr, Dhillon, Parlett & Vömel 2006) for those k eigenpairs only, and adds their
// correction,
//   Ĥ ← Ĥ + Σ_{λᵢ < floor − tol} (floor − λᵢ) vᵢvᵢᵀ,  vᵢ = Q zᵢ,
// which is V max(D, floor) Vᵀ in exact arithmetic. tol = P·ε·‖T‖ (‖T‖ by Gershgorin) is the
// accuracy to which any backward-stable eigensolver returns an eigenvalue: an eigenvalue within
// it of the floor is the floor in floating point and is left as it is (a network's Hessian has
// dozens of exact zeros that come out as ±1e-16·‖Ĥ‖; clipping them would change Ĥ by rounding
// and cost an eigenvector each). Where MRRR fails (the k-th eigenvalue inside a tight cluster),
// Eigen's QR-based eigensolver of Ĥ gives the pairs instead. The result is symmetric (its lower
// triangle mirrored). Returns true if anything was clipped (h is then changed), false otherwise
// (h untouched, also when both eigensolvers fail). Cost: full, the tridiagonalisation (4P³/3
// flops) and, for the k clipped eigenpairs, O(P·k) for them, 2P²k to back-transform and P²k for
// the update — against ≈ 9P³ for a whole eigendecomposition (the fallback's cost); diagonal,
// O(P). The bits do not depend on any thread count (dstemr is sequential); they depend on the
// LAPACK build, as -march=native's do on the CPU.
template <class Mat>
bool clip_eigenvalues_below(Mat& h, double floor) {
  if constexpr (Mat::ColsAtCompileTime == 1) {
    if (!(h.minCoeff() < floor)) return false;
    h = h.cwiseMax(floor);
    return true;
  } else {
    const Eigen::Index p = h.rows();
    // T of Ĥ/s, s = max |Ĥᵢⱼ| (as Eigen's eigensolvers scale, against overflow in the reflectors).
    Eigen::MatrixXd t = h.template triangularView<Eigen::Lower>();
    double scale = t.cwiseAbs().maxCoeff();
    if (scale == 0.0) scale = 1.0;
    t /= scale;
    const Eigen::Tridiagonalization<Eigen::MatrixXd> tri(t);
    Eigen::VectorXd d = tri.diagonal();
    Eigen::VectorXd e = Eigen::VectorXd::Zero(p);  // dstemr uses e(P−1) as workspace
    e.head(p - 1) = tri.subDiagonal();
    double norm = 0.0;  // Gershgorin: every eigenvalue of T is in [−norm, norm]
    for (Eigen::Index i = 0; i < p; ++i)
      norm = std::max(norm, std::abs(d(i)) + std::abs(e(i)) + (i > 0 ? std::abs(e(i - 1)) : 0.0));
    const double tol = static_cast<double>(p) * std::numeric_limits<double>::epsilon() * norm;
    // Those below upper = floor − tol are clipped: k of them, the negative pivots of the LDLᵀ
    // factorisation of T − upper·I (Sylvester's law of inertia; the Sturm count of bisection).
    // Counting first also keeps dstemr from an empty interval, where LAPACK 3.11's reads
    // uninitialised workspace (found by valgrind; it crashed the tool now and then).
    const double upper = std::min(floor / scale - tol, 2.0 * norm + 1.0);
    const double tiny = std::numeric_limits<double>::min();
    lapack_int k = 0;
    double pivot = 1.0;
    for (Eigen::Index i = 0; i < p; ++i) {
      double q = d(i) - upper - (i > 0 ? e(i - 1) * e(i - 1) / pivot : 0.0);
      if (std::abs(q) < tiny) q = tiny;  // T − upper·I singular: upper is an eigenvalue, not below
      k += q < 0.0 ? 1 : 0;
      pivot = q;
    }
    if (k == 0) return false;
    // The clipped eigenvalues λ of T (ascending) and their eigenvectors of Ĥ/s, the columns of v.
    Eigen::VectorXd lambda(p);
    Eigen::MatrixXd v;
    const auto n = static_cast<lapack_int>(p);
    lapack_int found = 0;
    lapack_logical try_relative_accuracy = 1;
    Eigen::MatrixXd z(p, p);
    std::vector<lapack_int> support(2 * static_cast<std::size_t>(p));
    if (LAPACKE_dstemr(LAPACK_COL_MAJOR, 'V', 'I', n, d.data(), e.data(), 0.0, 0.0, 1, k, &found,
                       lambda.data(), z.data(), n, n, support.data(),
                       &try_relative_accuracy) == 0 &&
        found == k) {
      lambda.conservativeResize(k);
      // vᵢ = Q zᵢ = H₀H₁⋯H_{P−2} zᵢ, the reflectors applied one at a time, the last first: for the
      // few columns clipping usually needs, 2–3× faster than Eigen's blocked product (with its
      // triangular factor per block of 48), about even at k = 40 and at k = P = 151.
      v = z.leftCols(k);
      Eigen::VectorXd workspace(k);
      for (Eigen::Index j = p - 2; j >= 0; --j)
        v.bottomRows(p - 1 - j).applyHouseholderOnTheLeft(tri.packedMatrix().col(j).tail(p - 2 - j),
                                                          tri.householderCoefficients()(j),
                                                          workspace.data());
    } else {
      // LAPACK's own driver (dsyevr) falls back too when MRRR fails.
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(t);
      if (eig.info() != Eigen::Success) return false;
      lambda = eig.eigenvalues().head(k);
      v = eig.eigenvectors().leftCols(k);
    }
    // (floor − sλᵢ)^½ vᵢ as the columns of v, so that the correction is v vᵀ (λᵢ < floor/s − tol
    // up to the count's rounding, which the max(·, 0) absorbs).
    v *= (floor - scale * lambda.array()).max(0.0).sqrt().matrix().asDiagonal();
    h.template selfadjointView<Eigen::Lower>().rankUpdate(v);
    h.template triangularView<Eigen::StrictlyUpper>() = h.transpose();
    return true;
  }
}

}  // namespace ngvi::vi
