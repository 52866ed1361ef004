// The records of a study run: what each fit and each curvature measurement produced, as plain
// data.
//
// `ngvi study` (app/study/study_command.hpp) fits every method to every problem in the method
// suites (method_suites.hpp, the only code that instantiates vi::fit), and everything the report
// needs afterwards — results.json, history.csv, the plots, report.html — is computed from these
// records alone (study_output.cpp), without templates. A MethodRecord is one fit: its history,
// the method's own running curvature against the exact Hessian at the same θ, the final
// summary and the predictive on the problem's plotting grid. A ProblemRecord is one problem:
// its methods, the curvature approximations along the MAP trajectory, and the exact references
// it has (the closed-form posterior, a quadrature posterior).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/fit_result.hpp>

namespace ngvi::app::study {

// The curvature approximations compared with the exact Hessian along the MAP trajectory, in the
// order of ApproximationPoint's vectors.
inline const std::vector<std::string>& approximation_names() {
  static const std::vector<std::string> names = {"ggn", "empirical_fisher", "mc_fisher", "kfac"};
  return names;
}

// One measurement of a method's own running curvature C against the exact Hessian of the mean
// loss H̄ = (1/N) Σᵢ ∇²ℓᵢ(μ) at the method's current mean μ. C is in the same units (per
// example): VON (Λ − δI)/N, VOGN s, IVON h, noisy Adam f, noisy K-FAC S̄ ⊗ Ā, Bayes-by-backprop
// (1/σ² − δ)/N.
struct CurvatureCheck {
  std::int64_t iteration = 0;
  double seconds = 0.0;                   // of the fit, at this iteration
  double diagonal_relative_error = 0.0;   // ‖diag C − diag H̄‖ / ‖diag H̄‖
  double frobenius_relative_error = 0.0;  // ‖C − H̄‖_F / ‖H̄‖_F; NaN for a diagonal C
  double scale_ratio = 0.0;               // Σ diag C / Σ diag H̄ (1: same overall size)
  double estimate_mean_diagonal = 0.0;    // mean of diag C
  double hessian_mean_diagonal = 0.0;     // mean of diag H̄
};

// One point of the MAP trajectory: the exact Hessian H of Σᵢℓᵢ and its approximations.
struct ApproximationPoint {
  std::int64_t iteration = 0;
  double hessian_min_eigenvalue = 0.0;
  double hessian_max_eigenvalue = 0.0;
  std::int64_t hessian_negative_eigenvalues = 0;
  std::vector<double> relative_error;   // per approximation_names(): ‖A − H‖_F / ‖H‖_F
  std::vector<double> diagonal_cosine;  // per approximation_names(): cos∠(diag A, diag H)
  // per approximation_names(): KL(N(θ, (A + δI)⁻¹) ‖ N(θ, (H + δI)⁻¹)), and the mean over the
  // first test inputs of log σ²_A(x) − log σ²_H(x), the linearised predictive variances of f
  // (approximation_posterior.hpp); NaN where H + δI is not positive definite.
  std::vector<double> posterior_kl;
  std::vector<double> predictive_log_variance_ratio;
  // Whether H + δI is positive definite here (else the two above are NaN).
  bool hessian_posterior_exists = false;
};

// Eigenvalues, largest first, of the Hessian and of each approximation at one point.
struct Spectra {
  std::int64_t iteration = 0;
  Eigen::VectorXd hessian;
  std::vector<Eigen::VectorXd> approximations;  // per approximation_names()
};

// What a method's posterior predicts on the problem's plotting grid (1-D: a column of the grid's
// points; 2-D: ny × nx over the plane).
struct GridPredictive {
  Eigen::MatrixXd mean;    // regression: E[y]; classification: P(y = 1)
  Eigen::MatrixXd spread;  // regression: sd of y; classification: sd of P(y = 1 | θ) over q
};

// A method's posterior scored against the HMC reference posterior (hmc_reference.hpp).
struct HmcScores {
  // median over the parameters j of log(sd_j / sd_HMC,j): below 0, the method's marginals are
  // narrower than the reference's. Over MethodRecord::subnetwork's parameters when it has one.
  double sd_log_ratio_median = 0.0;
  // mean over the evaluation points of log(predictive sd / HMC's predictive sd), function space
  // (regression: sd of f(x; θ) in original units, no noise; classification: sd of P(y = 1 | x, θ)).
  double point_sd_log_ratio = 0.0;
  // root mean square over the evaluation points of (predictive mean − HMC's predictive mean).
  double point_mean_error = 0.0;
};

struct MethodRecord {
  std::string name;    // the method's name (app/methods/method_info.hpp)
  std::string status;  // vi::FitStatus as text
  std::string message;
  std::string health = "ok";  // "ok", "poor" or "diverged" (fit_health.hpp), with the reason
  std::string health_reason;
  std::vector<vi::HistoryRow> history;    // metrics: test_log_likelihood, then test_rmse or
                                          // test_accuracy (see README.md of this folder)
  std::vector<CurvatureCheck> curvature;  // empty for MAP
  std::vector<ApproximationPoint> approximations;  // MAP only: the trajectory study
  std::vector<Spectra> spectra;                    // MAP only: first and last point
  std::map<std::string, std::int64_t> remedies;    // remedy → steps it fired on
  std::int64_t steps = 0;
  double seconds = 0.0;  // wall time of the steps
  // Final posterior and predictive on the test set (MAP: the Laplace approximation, GLM).
  Eigen::VectorXd mean, marginal_sd;
  // The positions in θ the posterior is over when it is not all of them (last-layer Laplace: the
  // last layer's; its marginal sds are 0 elsewhere); empty: all of θ.
  std::vector<Eigen::Index> subnetwork;
  // The final q's ELBO (−∞ for MAP's point mass): exact where the problem allows, else Monte
  // Carlo from ProblemSetup::final_elbo_samples draws with its standard error (0 when exact).
  double elbo = 0.0;
  double elbo_standard_error = 0.0;
  double test_log_likelihood = 0.0;
  double test_rmse = 0.0;              // regression (original units); NaN otherwise
  double test_accuracy = 0.0;          // classification; NaN otherwise
  std::optional<double> log_evidence;  // the Laplace evidence (MAP + Laplace only)
  std::optional<GridPredictive> grid;  // when the problem has a plotting grid
  // The function-space predictive at the problem's evaluation points (ProblemRecord::
  // evaluation_points; Monte Carlo over θ ~ q for every method, the Laplace approximation's
  // Gaussian included), and the method's scores against the HMC reference (hmc_reference.hpp).
  std::optional<GridPredictive> at_points;
  std::optional<HmcScores> hmc_scores;
  // The final q's full covariance on the small problems (P ≤ small_problem_parameters; empty
  // elsewhere), and its KL(q ‖ q*) from the run's full-covariance VI optimum where the run has
  // one (ProblemRecord::vi_optimum).
  Eigen::MatrixXd covariance;
  std::optional<double> kl_from_vi_optimum;
  // A regression's final predictive at each test example, in original units: mean and sd of y
  // (the report's predictive-against-target and coverage plots); empty for a classification.
  std::optional<GridPredictive> test_predictive;
};

// Problems with at most this many parameters keep each method's full covariance (the linear
// models: the conjugate problem, P = 4, and the 2-D logistic regression, P = 2).
inline constexpr Eigen::Index small_problem_parameters = 16;

// The Gaussian VI optimum of a linear model: the full-covariance q* = argmax ELBO (on the
// conjugate problem the exact posterior) and the mean-field one (diagonal covariance; on the
// conjugate problem the exact means with sd 1/√Λⱼⱼ). The reference of the Monte-Carlo findings.
struct GaussianOptimum {
  std::string how;  // how it was computed, for the report
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
  Eigen::VectorXd mean_field_mean, mean_field_sd;
};

// One method's Monte-Carlo error at its fixed point for each number S of samples per step
// (sample_size_study.hpp): the same problem, loop and step sizes, S changed alone.
struct SampleSizeRun {
  std::string method;        // "von" (against the full optimum) or "vogn_ggn" (the mean-field one)
  std::vector<int> samples;  // S
  // √(mean of KL(q_t ‖ q*) over the iterations t of the last half of the run), per S; NaN for a
  // fit that did not finish.
  std::vector<double> error;
  std::vector<std::string> status;  // vi::FitStatus of each fit, as text
  std::int64_t from_iteration = 0;  // the first iteration averaged over
  double slope = 0.0;  // least-squares slope of log(error) on log(S); −½ for error ∝ 1/√S
};

// VON refitted with one remedy for an indefinite Hessian (vi::VonRemedy, inference/von_remedy.hpp)
// on the gap problem, which has an HMC reference: the study's VON run uses clip_eigenvalues; these
// refits change the remedy alone (method_suites.hpp, run_von_remedies) and are scored against the
// same reference.
struct RemedyRun {
  std::string remedy;  // vi::VonRemedy as text ("fail", "reject_step", ...)
  std::string status;  // vi::FitStatus as text
  std::string message;
  std::int64_t steps = 0;  // steps taken (fewer than the loop's when the fit stopped)
  std::map<std::string, std::int64_t> remedies;  // remedy → steps it fired on (vi::Counters)
  double test_log_likelihood = 0.0;
  std::optional<HmcScores> hmc_scores;  // absent when the fit did not finish
};

// One method fitted to a sequence of tasks, task 1, then task 2, …, each stage starting from the
// previous stage's mean (continual_study.hpp): with the previous stage's posterior as the next
// stage's prior (carried_prior) or with the isotropic prior N(0, δ⁻¹I) at every stage.
struct ContinualRun {
  std::string method;  // the method table's row ("map", "vogn_full_ggn", …)
  std::string label;   // for the report: the row's label, and whether the prior is carried
  bool carried_prior = false;
  std::vector<std::string> status;  // vi::FitStatus of each stage, as text
  // test_log_likelihood[t][j]: task j's test log-likelihood (nats per example) under the
  // posterior after stage t (t, j = 0 … T − 1), the study's Monte-Carlo predictive (MAP: its
  // plug-in predictive); test_rmse[t][j] likewise. NaN after a stage that did not finish.
  std::vector<std::vector<double>> test_log_likelihood, test_rmse;
  // The final posterior: mean and marginal sds, and the full covariance where P ≤
  // small_problem_parameters (empty elsewhere and for MAP's point mass).
  Eigen::VectorXd mean, sd;
  Eigen::MatrixXd covariance;
};

// The continual-learning study of one seed (continual_study.hpp): the tasks and every method's
// sequence of fits on them.
struct ContinualStudy {
  std::string description;                           // the tasks and the network, one line
  std::vector<std::pair<double, double>> intervals;  // task t's input interval
  std::int64_t examples = 0, test_examples = 0;      // per task
  std::int64_t epochs = 0, minibatch = 0;            // per stage
  std::vector<ContinualRun> runs;
};

// An exact posterior to compare the methods with: closed form (Bayesian linear regression) or
// quadrature on a grid (2-D logistic regression).
struct ReferencePosterior {
  std::string how;                // how it was computed, for the report
  Eigen::VectorXd mean, sd;       // posterior mean and marginal standard deviations
  Eigen::VectorXd mean_field_sd;  // sd of the mean-field optimum; empty if not known
  std::vector<Eigen::VectorXd> marginal_x, marginal_density;  // per parameter, on a grid
};

// The HMC (NUTS) reference posterior of a network problem: draws from p(θ | D) by vi::hmc
// (inference/hmc.hpp), every chain started at the MAP, with Stan's diagnostics. `converged`
// is max R-hat over the parameters ≤ hmc_rhat_threshold, `converged_points` the same over the
// function values at the evaluation points; a finding about the parameters' posterior rests
// only on the first, one about the predictive at the points only on the second.
struct HmcReference {
  std::string how;  // the sampler's settings in words, for the report
  int chains = 0, warmup = 0, draws = 0, max_tree_depth = 0;
  double max_rhat = 0.0, min_ess_bulk = 0.0, min_ess_tail = 0.0;
  std::int64_t divergences = 0;      // kept draws only, over the chains
  double step_size = 0.0;            // the chains' adapted ε, averaged
  double mean_leapfrog_steps = 0.0;  // gradients per kept draw, averaged over the chains
  std::int64_t max_tree_depth_hits = 0;
  double seconds = 0.0;    // wall time of the sampler
  bool converged = false;  // max_rhat <= hmc_rhat_threshold: the parameters' posterior
  // The same diagnostics of the function values at the evaluation points (f(x; θ), or
  // P(y = 1 | x, θ)), one series per point: the largest R-hat, the smallest bulk-ESS, and
  // whether that R-hat is within the threshold. Unlike the parameters, these do not change under
  // the network's symmetries (hidden units permuted, a tanh unit's (w, b, v) → (−w, −b, −v)), so
  // they converge even where the chains move between equivalent modes (hmc_reference.hpp). NaN
  // (and not converged) without evaluation points.
  double max_rhat_points = 0.0, min_ess_bulk_points = 0.0;
  bool converged_points = false;
  Eigen::VectorXd mean, sd;  // pooled draws
  double test_log_likelihood = 0.0, test_rmse = 0.0, test_accuracy = 0.0;
  GridPredictive at_points;  // at ProblemRecord::evaluation_points, over all the pooled draws
};

// R-hat above this: the reference is "not converged" (Vehtari et al. 2021's threshold).
inline constexpr double hmc_rhat_threshold = 1.01;

// The hyperparameters learned from the evidence on one problem (evidence_study.hpp).
// Test metrics of one fit: log-likelihood per example, RMSE (regression, original units) or
// accuracy (classification); NaN where the fit failed or the task has none.
struct EvidenceScores {
  double log_likelihood = std::numeric_limits<double>::quiet_NaN();
  double rmse = std::numeric_limits<double>::quiet_NaN();
  double accuracy = std::numeric_limits<double>::quiet_NaN();
};

struct EvidenceRun {
  std::string method;  // the tool's method name: "map_laplace" or "vogn"
  std::string how;     // how δ_b and τ were learned, for the report
  bool ok = false;     // both fits finished (message: why not)
  std::string message;
  std::vector<std::string> blocks;        // the parameter blocks ("dense0.weight", …)
  std::vector<Eigen::Index> block_sizes;  // P_b
  Eigen::VectorXd prior_precisions;       // the learned δ_b, one per block
  // The learned τ (standardised units); NaN for a likelihood without one.
  double noise_precision = std::numeric_limits<double>::quiet_NaN();
  EvidenceScores fixed;    // the fit with the problem's δ and τ
  EvidenceScores learned;  // the fit that learned them
};

struct ProblemRecord {
  std::string name;         // key in results.json and file names
  std::string title;        // for the report
  std::string description;  // the problem's own one-line description
  std::string task;         // "regression" or "classification"
  std::int64_t examples = 0, test_examples = 0, parameters = 0;
  std::int64_t epochs = 0, minibatch = 0, iterations = 0;
  double prior_precision = 0.0;
  std::vector<std::string> parameter_names;     // small problems only (the marginal plots)
  std::vector<MethodRecord> methods;            // in the catalog's order
  Eigen::MatrixXd train_inputs, train_targets;  // for the predictive plots
  // The test examples for the plots: inputs as the model sees them, targets in original units.
  Eigen::MatrixXd test_inputs;
  Eigen::VectorXd test_targets;
  // The noise-free function on grid_x where the problem knows it (the gap problem's sin 2x);
  // empty otherwise.
  std::vector<double> grid_truth;
  std::vector<double> grid_x, grid_y;  // the plotting grid's axes (1-D: grid_y empty)
  std::optional<ReferencePosterior> reference;
  // The no-skill predictive's test log-likelihood, the line below which a fit is poor
  // (fit_health.hpp).
  double no_skill_log_likelihood = 0.0;
  // How the ELBOs of the histories were computed: "exact" or "monte_carlo".
  std::string elbo_method = "monte_carlo";
  int elbo_samples = 0;  // the Monte-Carlo draws per ELBO (0 when exact)
  std::string elbo_how;  // the same in words, for the report
  // The linear models' data (Bayesian linear regression: Φ, y, τ; logistic regression: Φ =
  // [x | 1] and the labels, τ = 0), written to results.json so that a test can recompute the
  // posterior and the evidence on its own.
  Eigen::MatrixXd design;
  Eigen::VectorXd targets;
  double noise_precision = 0.0;
  // The network problems' HMC reference (empty where the problem has none; hmc_absent says why)
  // and the fixed points where each predictive is scored against it (rows; what they are in
  // evaluation_points_what).
  std::optional<HmcReference> hmc;
  std::string hmc_absent;
  // Why the curvature analyses against the exact Hessian (ProblemSetup::curvature_study) were
  // not run on this problem; empty when they were.
  std::string curvature_absent;
  Eigen::MatrixXd evaluation_points;
  std::string evaluation_points_what;
  // The linear models' Gaussian VI optimum (empty elsewhere) and the Monte-Carlo error of VON
  // and diagonal VOGN at their fixed points against it, for S = 1, 4, 16, 64.
  std::optional<GaussianOptimum> vi_optimum;
  std::vector<SampleSizeRun> sample_size;
  // VON with each remedy for an indefinite Hessian, scored against the HMC reference: the gap
  // problem only (empty elsewhere).
  std::vector<RemedyRun> remedy_runs;
  // The continual-learning study (continual_study.hpp): the gap problem only (empty elsewhere).
  std::optional<ContinualStudy> continual;
  // δ_b and τ learned from the evidence, each route beside its fit with δ and τ kept
  // (evidence_study.hpp).
  std::vector<EvidenceRun> evidence_runs;
};

}  // namespace ngvi::app::study
