// The study's verdicts: claims about the methods and curvatures, each confirmed, refuted or left
// inconclusive by the numbers of the run's seeds, with the numbers.
//
// Each claim has a statistic computed on every seed and a rule fixed in advance (ClaimRule,
// seed_statistics.hpp: a threshold, the claimed side and a margin). A finding over n ≥ 2 seeds
// is decided by the 95 % t-interval of the statistic's mean; over one seed by the single value.
// A check passes when it holds on every seed. Every verdict says on how many seeds the claim
// holds individually.
//
// Two kinds. A *finding* is a statement from the literature that the numbers could refute; a
// *check* is an identity that holds by construction for the problem (the GGN of a model linear
// in θ is its Hessian; VON's fixed point on a conjugate model is the exact posterior), listed
// apart as a sanity check of the implementation and never counted as a finding.
//
// Findings (each made only where the run has the data for it):
//   * the GGN, the empirical Fisher, the MC Fisher and K-FAC approach the Hessian as training
//     goes on (the mean relative Frobenius error over the last quarter of the MAP trajectory
//     at most approach_factor times the mean over its first quarter, judged on the log of the
//     ratio; Martens 2020);
//   * the empirical Fisher is a worse Hessian approximation than the GGN at the MAP (Kunstner,
//     Balles & Hennig 2019) — only where the GGN is not the Hessian itself;
//   * IVON with β₂ = 0.999 estimates the Hessian better than with the default β₂ (Shen et al.
//     2024);
//   * diagonal VON's running precision tracks the exact Hessian more closely than diagonal VOGN's
//     empirical Fisher (relative error of the diagonals averaged over the last quarter of each
//     run, lower by more than tracking_margin; Khan et al. 2018) — diagonal against diagonal;
//   * mean-field methods underestimate the marginal variances of the HMC reference posterior
//     (Bishop 2006, §10.1.2; Blei, Kucukelbir & McAuliffe 2017): the median over the parameters
//     of log(sd / sd_HMC), averaged over diagonal VON and diagonal VOGN (GGN), below 0 by more
//     than hmc_log_ratio_margin — on each network problem with an HMC reference;
//   * mean-field Gaussian VI underestimates the in-between uncertainty of the gap problem
//     (Foong, Li, Hernández-Lobato & Turner 2019): the mean over the points in the gap of
//     log(predictive sd of f / HMC's), averaged over diagonal VON, diagonal VOGN (GGN) and
//     Bayes-by-backprop, below 0 by more than hmc_log_ratio_margin;
//     both are decided only over the seeds whose reference is converged — the first by the
//     R-hat of the parameters, the second by the R-hat of the function values at the points
//     (the chains move between the network's equivalent modes, which changes the parameters'
//     marginals but not the predictive; hmc_reference.hpp);
//   * natural-gradient VI reaches a higher ELBO than Bayes-by-backprop in the same number of
//     iterations (Zhang et al. 2018): each run's ELBO averaged over the last quarter of its
//     history (a stochastic method's final iterate is one draw of its fluctuation around the
//     fixed point), best natural-gradient method − BBB; the ELBOs exact where the problem has
//     them, else each point's Monte-Carlo estimate with elbo_margin_standard_errors standard
//     errors of the difference (from the points' spread) as the margin, inconclusive within it;
//   * VON's (full) and diagonal VOGN's (GGN) Monte-Carlo error at the fixed point falls as 1/√S
//     in the samples per step S (Khan et al. 2018; Khan & Rue 2023), on the linear models against
//     their Gaussian VI optimum (sample_size_study.hpp): the least-squares slope of log e(S) on
//     log S over S = 1, 4, 16, 64 (−½ expected) below sample_size_slope_threshold by more than
//     sample_size_slope_margin;
//   * noisy K-FAC's posterior is closer to the full-covariance reference than noisy Adam's
//     (Zhang, Sun, Duvenaud & Grosse 2018): log(noisy Adam's distance ÷ noisy K-FAC's) above 0
//     by more than kfac_distance_log_ratio_margin, the distance on the linear models the shape
//     term KL(N(μ*, Σ_q) ‖ q*) from the full-covariance VI optimum q* = N(μ*, Σ*)
//     (covariance_kl_from_optimum), and on two moons (whose HMC reference has too
//     few effective draws for a 65 × 65 covariance) the mean over the parameters of
//     |log(sd / sd_HMC)|, decided over the seeds whose reference is converged.
//   * VON needs a remedy for an indefinite Hessian on a non-convex problem (Khan et al. 2018):
//     the share of the run's steps that VON with remedy = fail completes, below
//     von_fail_share_threshold — on the gap problem (the refits are costly), whose evidence
//     gives every remedy's effect on the posterior against it (RemedyRun, study_records.hpp);
//   * a Gaussian posterior carried forward as the next task's prior keeps the first task of a
//     sequence (Nguyen, Li, Bui & Turner 2018, Variational Continual Learning), on the continual
//     study run beside the gap problem (continual_study.hpp): task 1's test log-likelihood after
//     the last task, full VOGN (GGN) with the carried prior − MAP with the isotropic prior at every
//     stage, and − the same VOGN with the isotropic prior at every stage (the prior alone), each
//     above 0 by more than continual_log_likelihood_margin;
// Checks:
//   * VON (full) and full VOGN with the GGN reach the exact posterior of the conjugate problem,
//     diagonal VON and diagonal VOGN with the GGN its mean-field optimum (mean and standard
//     deviations within 1e-6 relative; Khan et al. 2018);
//   * where an approximation is exact for the model (GGN of a linear model or a GLM), that it
//     equals the Hessian throughout;
//   * IVON's Hessian estimate stays near its initial value h₀ (less than half of the way from h₀
//     to the exact Hessian's mean diagonal) where its moving average cannot have gone further in
//     the run's T steps (1 − β₂^T < ½; a finding otherwise).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <app/study/problem_seeds.hpp>
#include <app/study/seed_statistics.hpp>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

enum class ClaimKind { finding, check };

inline const char* to_string(ClaimKind k) { return k == ClaimKind::check ? "check" : "finding"; }

struct StudyVerdict {
  std::string problem;  // a problem key
  std::string claim;
  ClaimKind kind = ClaimKind::finding;
  bool confirmed = false;  // a finding confirmed, or a check that passed
  std::string evidence;    // the numbers
  std::string citation;    // the paper the claim comes from (authors, year)
  // The numbers cannot decide the finding within its margin (confirmed is then false).
  bool inconclusive = false;
  // What the statistic is ("ELBO difference, best natural-gradient method − Bayes-by-backprop
  // (nats)") and the rule that decides the claim on it.
  std::string statistic_name;
  ClaimRule rule{};
  // The statistic on each seed (in seed order) and each seed's own margin (a Monte-Carlo ELBO's
  // two standard errors; else rule.margin).
  std::vector<double> per_seed, per_seed_margin;
  // Over the seeds: the mean and its 95 % t-interval (NaN with one seed); for a check the value
  // furthest towards failing, and no interval.
  double statistic = std::numeric_limits<double>::quiet_NaN();
  double interval_low = std::numeric_limits<double>::quiet_NaN();
  double interval_high = std::numeric_limits<double>::quiet_NaN();
  int seeds = 1;          // seeds the claim was judged on
  int seeds_holding = 0;  // of them, those on which it holds individually
  // The fits the claim rests on that are not healthy (fit_health.hpp), per seed; empty: none.
  std::string health_note;
  // A claim judged against the HMC reference: non-empty when this seed's reference is not
  // converged for the claim's quantity (max R-hat > hmc_rhat_threshold over the parameters, or
  // over the function values at the evaluation points), saying so. study_verdicts() leaves such
  // seeds out of the decision (and says which), so that no finding rests on an unconverged
  // reference; with none left the finding is inconclusive.
  std::string unconverged_reference;

  // "confirmed", "refuted" or "inconclusive" (a check: "confirmed" when it passed).
  std::string status() const {
    return inconclusive ? "inconclusive" : confirmed ? "confirmed" : "refuted";
  }
};

// A Monte-Carlo ELBO difference decides "higher" only when it exceeds this many standard errors
// of the difference (about a 2.3% one-sided chance of a wrong decision when the ELBOs are equal);
// within it the finding is inconclusive. Over seeds the margin is the mean of the seeds' margins.
inline constexpr double elbo_margin_standard_errors = 2.0;

// Tolerance of "reaches the exact posterior": the largest relative error of the mean (relative to
// the largest |mean|) and of the standard deviations.
inline constexpr double exact_posterior_tolerance = 1e-6;

// The margin of the findings against the HMC reference, fixed before the run: a log sd-ratio
// must lie below 0 by more than 0.1 (the method's sd under about 90 % of HMC's) to count as an
// underestimate, and above +0.1 to refute one. It covers the Monte-Carlo error of the short HMC
// runs' sds (ESS of a few hundred: a relative error of the sd of a few per cent).
inline constexpr double hmc_log_ratio_margin = 0.1;

// "The Monte-Carlo error falls as 1/√S", fixed before the run: the slope of log e(S) on log S
// (−½ for 1/√S) must lie below −0.25, half the expected exponent, by more than 0.05 — the whole
// interval below −0.3 confirms it, the whole interval above −0.2 (an error that falls slower
// than S^(−1/5), or not at all) refutes it.
inline constexpr double sample_size_slope_threshold = -0.25;
inline constexpr double sample_size_slope_margin = 0.05;

// "Noisy K-FAC is closer to the reference than noisy Adam", fixed before the run: the log of
// the ratio of their distances must exceed 0 by more than 0.2 (noisy Adam's distance more than
// e^0.2 ≈ 1.22 times noisy K-FAC's) to confirm, and lie below −0.2 to refute.
inline constexpr double kfac_distance_log_ratio_margin = 0.2;

// "The carried prior keeps the first task", fixed before the run: task 1's test log-likelihood
// (nats per example) after the last task must exceed the control's by more than 0.5 to confirm,
// and fall below it by more than 0.5 to refute. At the tasks' noise precision τ = 25 a predictive
// mean off by δ everywhere costs τδ²/2 nats per example: 0.5 nats is a mean off by the noise sd
// (0.2) at every test input.
inline constexpr double continual_log_likelihood_margin = 0.5;

// "Approaches the Hessian" needs the relative error to drop by at least 10% over the MAP run, so
// that sampling noise (the MC Fisher's 16 draws) or a flat curve does not count as approaching.
inline constexpr double approach_factor = 0.9;

// The margin of "diagonal VON tracks the Hessian more closely than VOGN's empirical Fisher",
// fixed before the run: the two relative errors of the diagonal (each ‖diag C − diag H̄‖ /
// ‖diag H̄‖) must differ by more than 0.1 — a tenth of the Hessian diagonal's size — to count as
// closer (or, the other way, as farther); within it the finding is inconclusive.
inline constexpr double tracking_margin = 0.1;

// "VON needs a remedy for an indefinite Hessian" (Khan et al. 2018): the claim is that VON with
// remedy = fail completes less than this share of the run's steps; one that finishes refutes it.
inline constexpr double von_fail_share_threshold = 0.99;

// An approximation whose relative error stays below this along the whole MAP run is the Hessian
// itself for that model (the GGN of a model linear in θ, or of a GLM such as logistic
// regression): the verdict then says so instead of claiming it approaches the Hessian.
inline constexpr double exact_curvature_tolerance = 1e-10;

// The verdicts of one seed's run, each decided on its one value. Cost: O(size of the records).
std::vector<StudyVerdict> seed_verdicts(const ProblemRecord& problem);

// Combines the verdicts of the same claim from each seed (in seed order; `seeds` their seed
// numbers) into one, by the rules at the top of the file. Throws std::invalid_argument for no
// verdicts.
StudyVerdict combine_over_seeds(const std::vector<StudyVerdict>& per_seed,
                                const std::vector<std::uint64_t>& seeds);

// Every problem's verdicts over its seeds. Cost: O(size of the records).
std::vector<StudyVerdict> study_verdicts(const std::vector<ProblemSeeds>& problems);

// A method's largest errors against the problem's reference posterior: max |μ − μ_ref| / max
// |μ_ref| and max |sd/sd_ref − 1| (against the mean-field optimum's sd when `mean_field`).
struct ReferenceError {
  double mean = 0.0, sd = 0.0;
};
ReferenceError reference_error(const MethodRecord& m, const ReferencePosterior& ref,
                               bool mean_field);

// The shape term of a method's KL from the full-covariance VI optimum q* = N(μ*, Σ*): KL(N(μ*,
// Σ_q) ‖ q*) = ½[tr(Σ*⁻¹Σ_q) − P + log det Σ* − log det Σ_q], q's covariance with the means
// aligned — what the noisy K-FAC finding compares, so that a mean still on its way (noisy Adam's
// small steps) does not decide a claim about the covariance family. Needs m.covariance (P×P,
// positive definite); throws std::invalid_argument otherwise (gaussian_kl.hpp). Cost: O(P³).
double covariance_kl_from_optimum(const MethodRecord& m, const GaussianOptimum& optimum);

}  // namespace ngvi::app::study
