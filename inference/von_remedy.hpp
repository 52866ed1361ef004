// The remedies of VON (von.hpp) for an indefinite Hessian. Away from a minimum of a non-convex
// loss the exact minibatch Hessian Ĥ can be indefinite, and VON's precision update
// Λ ← (1−β)Λ + β(NĤ/λ + δI) can then leave Λ non-positive-definite — no longer a Gaussian's
// precision. VonRemedy names what VON does about it (clip Ĥ's eigenvalues, damp or reject the
// step, add damping, fall back to the Gauss-Newton matrix, or stop), von_remedy_name the key under
// which each firing is counted, and clip_eigenvalues_below the clipping itself. The switch that
// applies a remedy inside a step stays in von.hpp, beside the update it repairs.
#pragma once

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

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
  // steps where an eigenvalue was below the floor. Costs one eigendecomposition per step. This
  // is the remedy of the PyTorch reference implementation that bench_vi compares against (its
  // "clip_H"). Diagonal VON clips the entries of
  // diag Ĥ (no eigendecomposition).
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

// Ĥ ← V max(D, floor) Vᵀ, with Ĥ = V D Vᵀ its eigendecomposition (a P×P matrix), or the
// entrywise max(Ĥᵢᵢ, floor) of a diagonal given as its P entries (a column). The result is
// symmetrised. Returns true if anything was below the floor (h is then changed), false
// otherwise (h untouched, also when the eigendecomposition fails). Cost: full, one symmetric
// eigendecomposition (≈ 9P³ flops) and, when it clips, one P×P product; diagonal, O(P).
template <class Mat>
bool clip_eigenvalues_below(Mat& h, double floor) {
  if constexpr (Mat::ColsAtCompileTime == 1) {
    if (!(h.minCoeff() < floor)) return false;
    h = h.cwiseMax(floor);
    return true;
  } else {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(h);
    if (eig.info() != Eigen::Success || !(eig.eigenvalues().minCoeff() < floor)) return false;
    const Eigen::MatrixXd& v = eig.eigenvectors();
    h.noalias() = v * eig.eigenvalues().cwiseMax(floor).asDiagonal() * v.transpose();
    h = (0.5 * (h + h.transpose())).eval();
    return true;
  }
}

}  // namespace ngvi::vi
