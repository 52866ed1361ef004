// The study's hyperparameters from the evidence: on each problem, the two routes of `ngvi fit
// --hyperparameters evidence` that learn the prior precision δ_b of each parameter block b (and,
// for a Gaussian likelihood, the noise precision τ) during the one fit, each beside the same fit
// with the problem's δ and τ kept — so that the report shows the learned δ_b per block and what
// learning them did to the test log-likelihood:
//   map_laplace  MAP by Adam while (log δ_b, log τ) ascend the Laplace-GGN evidence every F =
//                epochs/20 epochs after the first quarter, then the full Laplace approximation at
//                them, scored by its linearised predictive (Immer, Bauer, Fortuin, Rätsch & Khan
//                2021, "Scalable Marginal Likelihood Estimation for Model Selection in Deep
//                Learning"; MacKay 1992). Its updates are P×P: on the problems whose full-
//                covariance work the study allows (ProblemSetup::full_covariance) only;
//   vogn         diagonal VOGN with the GGN by variational EM: at the same updates the M-step
//                δ_b = P_b/(‖μ_b‖² + tr Σ_b), τ = N·d/E_q[Σᵢ‖yᵢ − fᵢ‖²] (Bishop 2006, "Pattern
//                Recognition and Machine Learning", §10; Tipping 2001), scored by the
//                Monte-Carlo predictive.
// Both run through app::fit_method — the tool's code, compiled once — with the problem's epochs,
// minibatch, δ₀, τ₀ and seed, MAP's Adam step of the problem (StepSizes::adam), and the tool's
// defaults for everything else (VOGN: α = β = 0.01; the study's own VOGN rows take the problem's
// α = β, at which the diagonal GGN runs away on the gap problem). The test metrics are those of
// the study's methods (run_method.hpp), at the learned τ.
#pragma once

#include <vector>

#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

// The runs above on `s` (map_laplace only where s.full_covariance), in that order. A fit that
// throws or fails leaves its run with ok = false and the message. Cost: two fits per method, and
// per learning fit 15 hyperparameter updates (map_laplace: a GGN over the N examples and 21 P×P
// Cholesky factorisations each; vogn: 16 draws of q's predictions on the N examples each).
std::vector<EvidenceRun> run_evidence_study(const ProblemSetup& s);

}  // namespace ngvi::app::study
