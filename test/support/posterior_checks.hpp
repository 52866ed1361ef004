// Shared checks and named tolerances for the inference tests (posteriors, fixed points, Monte
// Carlo).
//
// The derivative tolerances live in autodiff/verify/tolerances.hpp; these are the ones for
// statements about distributions, named here once so that every inference test uses the same
// bar and a loosened bound is a visible change. Monte-Carlo comparisons are stated in standard
// errors: CHECK_MC(estimate, reference, standard_error) accepts |estimate − reference| ≤
// mc_sigmas·se, with se computed by the test from the samples it drew.
#pragma once

#include <exception>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/tolerances.hpp>

#include <support/check_report.hpp>

namespace ngvi::test::vi_tolerances {

using ad::verify::Tolerance;

// Closed-form posteriors reached by an exact update (VON/VOGN with β = 1 on a conjugate model):
// the bar, 1e-10, with an absolute floor for entries that are mathematically 0.
inline constexpr Tolerance exact_update{1e-10, 1e-12};
// Identities between closed forms computed by two routes (KL, entropy, log densities).
inline constexpr Tolerance closed_form{1e-11, 1e-13};
// A symmetric P×P matrix rebuilt from part of its eigendecomposition against the closed form
// Q diag(λ) Qᵀ, entrywise relative to ‖H‖: backward-stable eigensolvers are accurate to O(P·ε‖H‖)
// (≈ 1e-14 at P = 40), with a margin.
inline constexpr Tolerance eigen_reconstruction{0.0, 1e-12};
// Gauss–Hermite quadrature against a fixed point found by iteration: quadrature error of the
// rule used (≥ 20 nodes per dimension on smooth integrands) plus the iteration's residual.
inline constexpr Tolerance quadrature{1e-6, 1e-8};
// Iterative solvers stopped after a fixed number of steps (optimisers, fixed-point iterations)
// against the exact solution they converge to.
inline constexpr Tolerance iterative{1e-6, 1e-6};
// Stochastic methods run with constant or slowly decaying steps (IVON, Bayes-by-backprop, noisy
// Adam) against the fixed point they fluctuate around, their iterates averaged over the last part
// of the run: Monte-Carlo noise of a few percent for the run lengths tests afford, plus the
// O(step) bias of the averaged recursions. Precisions relative; means compared in units of the
// posterior standard deviation (reference 0 after standardising, so the absolute part applies).
inline constexpr Tolerance stochastic_fixed_point{5e-2, 5e-2};
// Monte-Carlo estimates: accept within this many standard errors (≈ 1e-6 two-sided false-alarm
// rate per comparison for a normal estimate, so a suite of a few hundred stays reliable).
inline constexpr double mc_sigmas = 5.0;

}  // namespace ngvi::test::vi_tolerances

namespace ngvi::test {

// Non-fatal: f() throws an exception whose message contains `part` (bad-input tests check that
// the error names the problem, not just that there is one).
template <class F>
void check_error_mentions(F&& f, const std::string& part) {
  try {
    f();
    BOOST_ERROR("no exception; expected one mentioning '" << part << "'");
  } catch (const std::exception& e) {
    BOOST_TEST(std::string(e.what()).find(part) != std::string::npos, e.what());
  }
}

}  // namespace ngvi::test

// Non-fatal: |estimate − reference| ≤ mc_sigmas · standard_error, reported with both values.
#define NGVI_CHECK_MC(estimate, reference, standard_error)                                      \
  NGVI_CHECK_REPORT(::ngvi::ad::verify::compare(                                                \
      (estimate), (reference),                                                                  \
      ::ngvi::ad::verify::Tolerance{0.0,                                                        \
                                    ::ngvi::test::vi_tolerances::mc_sigmas * (standard_error)}, \
      "Monte-Carlo estimate vs reference"))

namespace ngvi::test {

// The optimum of the λ-weighted ELBO on a conjugate linear regression p (its design Φ, targets y,
// τ and δ; inference/problems/bayesian_linear_regression.hpp) is the exact posterior for noise
// precision τ/λ: Λ = (τ/λ)ΦᵀΦ + δI, μ = Λ⁻¹(τ/λ)Φᵀy. Checks q's precision and mean against it
// within exact_update; `what` names the method in the messages.
template <class Posterior, class Problem>
void check_kl_weighted_linear_posterior(const Posterior& q, const Problem& p, double lambda,
                                        const std::string& what) {
  const double tau = p.noise_precision / lambda;
  Eigen::MatrixXd precision = tau * p.design.transpose() * p.design;
  precision.diagonal().array() += p.prior_precision;
  const Eigen::VectorXd mean = precision.llt().solve(tau * p.design.transpose() * p.targets);
  const std::string at = ", λ = " + std::to_string(lambda);
  NGVI_CHECK_REPORT(ad::verify::compare(q.precision(), precision, vi_tolerances::exact_update,
                                        what + " precision" + at));
  NGVI_CHECK_REPORT(
      ad::verify::compare(q.mean(), mean, vi_tolerances::exact_update, what + " mean" + at));
}

}  // namespace ngvi::test
