// run_method: one method fitted to one study problem through vi::fit, with the callbacks that
// measure it on the way, turned into a MethodRecord.
//
// Included ONLY by the method suite (method_suite.cpp, method_suites.hpp): everything here
// instantiates vi::fit, the curvature drivers and the predictive for the study's model type.
// (hmc_reference.cpp includes it too, for the measuring helpers of `detail` alone; it instantiates
// no fit. So does continual_study.cpp, for detail::test_metrics; it calls vi::fit itself, in the
// same unit as the suite.)
//   StudyTracker          on each history row: the test log-likelihood and RMSE or accuracy of
//                         the current q (Monte Carlo, from its own generator so that measuring
//                         never changes the training draws), and the method's running
//                         curvature against the exact Hessian of the mean loss at the same μ;
//   ApproximationTracker  MAP only: the exact Hessian against the GGN, the empirical Fisher, the
//                         MC Fisher and K-FAC at each history row of the MAP trajectory (the
//                         curvature study of examples/curvature_study.cpp, now over training);
//   ProgressBar           on stderr (quiet when stderr is not a terminal).
// Every generator is seeded from the problem's seed, so the records are the same bits for any
// number of threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/study/approximation_posterior.hpp>
#include <app/study/exact_elbo.hpp>
#include <app/study/point_predictive.hpp>
#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

#include <inference/callbacks.hpp>
#include <inference/fit.hpp>
#include <inference/laplace.hpp>
#include <inference/map.hpp>
#include <inference/predictive.hpp>
#include <inference/random.hpp>
#include <inference/subnetwork_laplace.hpp>
#include <nn/curvature/curvature.hpp>

namespace ngvi::app::study {

namespace detail {

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Seeds of the measuring generators: distinct streams derived from the problem's seed.
inline std::uint64_t measuring_seed(std::uint64_t seed, std::uint64_t stream) {
  return seed * 0x9E3779B97F4A7C15ULL + stream;
}

// A regression problem's Gaussian likelihood (what its predictive's formulas need).
inline const nn::GaussianFixedNoise& gaussian(const NetworkModel& model) {
  const auto* g = model.likelihood().get_if<nn::GaussianFixedNoise>();
  if (g == nullptr)
    throw std::invalid_argument(
        "ngvi::app::study: a regression problem needs the Gaussian likelihood, not " +
        std::string(model.likelihood().held_name()));
  return *g;
}

struct TestMetrics {
  double log_likelihood = nan, rmse = nan, accuracy = nan;
  GridPredictive at_examples;  // regression: mean and sd of y per test example, original units
};

// The test metrics of q: Monte Carlo with `samples` draws, or the linearised (GLM) predictive
// when `glm` (the Laplace approximation). Cost: S forward passes over the test set (GLM: the
// test set's Jacobians).
template <class Q>
TestMetrics test_metrics(const ProblemSetup& s, const Q& q, int samples, vi::Rng& rng, bool glm) {
  vi::PredictiveOptions po;
  po.samples = samples;
  po = ad::with_parallel(po, s.loop);
  TestMetrics t;
  if (const auto* bernoulli = s.test->likelihood().get_if<nn::BernoulliLogit>()) {
    const auto test = with_likelihood(*s.test, *bernoulli);
    const vi::ClassificationPredictive p = glm ? vi::glm_classification_predictive(test, q, rng, po)
                                               : vi::mc_classification_predictive(test, q, rng, po);
    t.log_likelihood = -p.metrics.nll;
    t.accuracy = p.metrics.accuracy;
  } else {
    const auto test = with_likelihood(*s.test, gaussian(*s.test));
    const vi::RegressionPredictive p =
        glm ? vi::glm_regression_predictive(test, q, s.targets, po)
            : vi::mc_regression_predictive(test, q, s.targets, rng, po);
    t.log_likelihood = p.test_log_likelihood;
    t.rmse = p.rmse;
    t.at_examples = {p.mean.col(0), p.variance.col(0).cwiseSqrt()};
  }
  return t;
}

// The predictive on the setup's plotting grid. Regression: mean and sd of y (GLM when `glm`);
// classification: the mean and sd over θ ~ q of P(y = 1 | x, θ) (Monte Carlo for every method).
template <class Q>
GridPredictive grid_predictive(const ProblemSetup& s, const Q& q, int samples, vi::Rng& rng,
                               bool glm) {
  const NetworkModel grid(s.train->net(), s.train->likelihood(),
                          nn::Dataset{s.grid, Eigen::MatrixXd::Zero(s.grid.rows(), 1)});
  GridPredictive g;
  if (is_classification(grid)) {
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(s.grid.rows());
    Eigen::VectorXd sum_sq = sum;
    for (int k = 0; k < samples; ++k) {
      const Eigen::VectorXd f = grid.outputs(q.sample(rng)).col(0);
      const Eigen::VectorXd p = (1.0 + (-f.array()).exp()).inverse().matrix();
      sum += p;
      sum_sq += p.cwiseProduct(p);
    }
    const Eigen::VectorXd mean = sum / samples;
    g.mean = mean;
    g.spread = (sum_sq / samples - mean.cwiseProduct(mean)).cwiseMax(0.0).cwiseSqrt();
  } else {
    vi::PredictiveOptions po;
    po.samples = samples;
    po = ad::with_parallel(po, s.loop);
    const auto model = with_likelihood(grid, gaussian(grid));
    const vi::RegressionPredictive p =
        glm ? vi::glm_regression_predictive(model, q, s.targets, po)
            : vi::mc_regression_predictive(model, q, s.targets, rng, po);
    g.mean = p.mean;
    g.spread = p.variance.cwiseSqrt();
  }
  return g;
}

// The method's running curvature in per-example units (see CurvatureCheck), P×1 for a diagonal
// estimate or P×P; empty for a method without one (MAP).
template <class Method, class Q>
Eigen::MatrixXd running_curvature(const Method& m, const Q& q, double n, double delta,
                                  double lambda) {
  if constexpr (requires { m.precision(); }) {  // VON: Λ = N Ĥ/λ + δI at its fixed point
    Eigen::MatrixXd c = m.precision();
    if (c.cols() == 1)
      c.array() -= delta;
    else
      c.diagonal().array() -= delta;
    return c * (lambda / n);
  } else if constexpr (requires { m.low_rank_factor(); }) {  // SLANG: s = UUᵀ + diag(d)
    Eigen::MatrixXd c = m.low_rank_factor() * m.low_rank_factor().transpose();
    c.diagonal() += m.diagonal();
    return c;
  } else if constexpr (requires { m.curvature(); }) {  // VOGN: s
    return m.curvature();
  } else if constexpr (requires { m.hessian_estimate(); }) {  // IVON: h
    return m.hessian_estimate();
  } else if constexpr (requires { m.fisher_estimate(); }) {  // noisy Adam: f
    return m.fisher_estimate();
  } else if constexpr (requires { m.running_factors(); }) {  // noisy K-FAC: S̄ ⊗ Ā per layer
    return nn::kfac_matrix(m.running_factors(), q.dim());
  } else if constexpr (requires { m.rho(); }) {  // Bayes-by-backprop: 1/σ² = N c/λ + δ
    return ((q.marginal_variances().array().inverse() - delta) * (lambda / n)).matrix();
  } else {
    return {};
  }
}

struct StudyTracker {
  const ProblemSetup* setup;
  std::vector<CurvatureCheck>* checks;

  // The row's ELBO, exact in place of the Monte-Carlo estimate, with the row's closed-form KL:
  // for a quadratic loss E_q[Σᵢℓᵢ(θ)] = Σᵢℓᵢ(μ) + ½ tr(HΣ), H the Hessian of Σᵢℓᵢ (the same at
  // every θ); for a logistic GLM by one-dimensional quadrature per example (exact_elbo.hpp).
  // Cost: one exact P×P Hessian, or N quadratures.
  template <class Q>
  void exact_elbo(vi::HistoryRow& row, const Q& q, double kl_weight) const {
    const ProblemSetup& s = *setup;
    if (s.quadratic_loss) {
      const Eigen::MatrixXd h =
          nn::exact_hessian(*s.train, q.mean(), ad::with_parallel(nn::CurvatureOptions{}, s.loop));
      row.expected_nll = row.train_nll + 0.5 * h.cwiseProduct(q.covariance()).sum();
    } else {
      row.expected_nll = logistic_glm_expected_nll(s.logistic_design, s.train->data().Y.col(0),
                                                   q.mean(), q.covariance());
    }
    row.elbo = -row.expected_nll - kl_weight * row.kl;
  }

  template <class Ctx>
  void on_history(vi::HistoryRow& row, const Ctx& ctx) {
    const ProblemSetup& s = *setup;
    const auto q = ctx.posterior();
    vi::Rng rng(measuring_seed(s.seed, 1000 + static_cast<std::uint64_t>(row.iteration)));
    const TestMetrics t = test_metrics(s, q, s.history_predictive_samples, rng, false);
    row.metrics.emplace_back("test_log_likelihood", t.log_likelihood);
    const bool classification = is_classification(*s.test);
    row.metrics.emplace_back(classification ? "test_accuracy" : "test_rmse",
                             classification ? t.accuracy : t.rmse);
    if (s.exact_elbo() && std::isfinite(row.kl)) exact_elbo(row, q, ctx.kl_weight());
    if (!s.curvature_study) return;
    const double n = static_cast<double>(s.train->num_examples());
    const Eigen::MatrixXd c =
        running_curvature(ctx.method(), q, n, ctx.prior_precision(), ctx.kl_weight());
    if (c.size() == 0) return;
    const Eigen::MatrixXd h =
        nn::exact_hessian(*s.train, q.mean(), ad::with_parallel(nn::CurvatureOptions{}, s.loop)) /
        n;
    const Eigen::VectorXd hd = h.diagonal();
    const Eigen::VectorXd cd =
        c.cols() == 1 ? Eigen::VectorXd(c.col(0)) : Eigen::VectorXd(c.diagonal());
    CurvatureCheck k;
    k.iteration = row.iteration;
    k.seconds = row.seconds;
    k.diagonal_relative_error = (cd - hd).norm() / hd.norm();
    k.frobenius_relative_error = c.cols() == 1 ? nan : nn::relative_frobenius_error(c, h);
    k.scale_ratio = cd.sum() / hd.sum();
    k.estimate_mean_diagonal = cd.mean();
    k.hessian_mean_diagonal = hd.mean();
    checks->push_back(k);
  }
};

// The first (up to) this many test inputs are where the approximations' linearised predictive
// variances are compared with the exact Hessian's.
inline constexpr Eigen::Index posterior_error_inputs = 20;

// The output Jacobians ∂f(xₖ)/∂θ (rows) of a one-output model at its first (up to) k examples.
// Cost: one recording and one reverse sweep per example.
inline Eigen::MatrixXd output_jacobians(const NetworkModel& model, const Eigen::VectorXd& theta,
                                        Eigen::Index k) {
  const Eigen::Index rows = std::min(k, model.num_examples());
  Eigen::MatrixXd j(rows, theta.size());
  for (Eigen::Index i = 0; i < rows; ++i)
    j.row(i) = nn::example_output_jacobian(model, theta, i).row(0);
  return j;
}

// The exact Hessian of Σᵢℓᵢ against its approximations at each history row (MAP's θ), unless
// the setup turns the curvature study off: the matrices' relative error, their spectra, and what
// each does to the posterior N(θ, (A + δI)⁻¹) (approximation_posterior.hpp).
struct ApproximationTracker {
  const ProblemSetup* setup;
  std::vector<ApproximationPoint>* points;
  std::vector<Spectra>* spectra;

  template <class Ctx>
  void on_history(vi::HistoryRow& row, const Ctx& ctx) {
    const ProblemSetup& s = *setup;
    if (!s.curvature_study) return;
    const NetworkModel& model = *s.train;
    const Eigen::VectorXd theta = ctx.posterior().mean();
    const Eigen::Index p = theta.size();
    const auto par = ad::with_parallel(nn::CurvatureOptions{}, s.loop);
    const Eigen::MatrixXd h = nn::exact_hessian(model, theta, par);
    const nn::Spectrum hs = nn::spectrum(h);
    const auto ggn = nn::with_curvature(nn::GgnOptions{}, par);
    nn::MonteCarloFisherOptions mc;
    mc.samples = 16;  // averages most of the sampling noise away (error ∝ 1/√16)
    mc.seed = measuring_seed(s.seed, 2000 + static_cast<std::uint64_t>(row.iteration));
    mc = nn::with_curvature(mc, par);
    auto kfac = nn::with_curvature(nn::KfacOptions{}, par);
    kfac.s_factor = nn::KfacS::expected_fisher;
    const std::vector<Eigen::MatrixXd> approx = {
        nn::ggn(model, theta, ggn), nn::empirical_fisher(model, theta, par),
        nn::mc_fisher(model, theta, mc), nn::kfac_matrix(nn::kfac_factors(model, theta, kfac), p)};
    const HessianPosterior exact(h, s.prior_precision,
                                 output_jacobians(*s.test, theta, posterior_error_inputs));
    ApproximationPoint a;
    a.hessian_posterior_exists = exact.positive_definite();
    a.iteration = row.iteration;
    a.hessian_min_eigenvalue = hs.min;
    a.hessian_max_eigenvalue = hs.max;
    a.hessian_negative_eigenvalues = hs.negative_count;
    Spectra sp;
    sp.iteration = row.iteration;
    sp.hessian = hs.eigenvalues.reverse();
    for (const Eigen::MatrixXd& m : approx) {
      const nn::CurvatureComparison c = nn::compare_curvature(m, h, hs);
      a.relative_error.push_back(c.relative_frobenius_error);
      a.diagonal_cosine.push_back(c.diagonal_cosine);
      const HessianPosterior::Errors e = exact.errors(m);
      a.posterior_kl.push_back(e.kl);
      a.predictive_log_variance_ratio.push_back(e.log_variance_ratio);
      sp.approximations.push_back(nn::spectrum(m).eigenvalues.reverse());
    }
    points->push_back(std::move(a));
    if (spectra->size() < 2)
      spectra->push_back(std::move(sp));
    else
      spectra->back() = std::move(sp);
  }
};

// The final ELBO by Monte Carlo with ProblemSetup::final_elbo_samples draws (its own generator)
// and its standard error sd/√S, in place of the last history row's few-draw estimate; the KL term
// is the row's (closed form): ELBO = row.elbo + row.expected_nll − E_q[Σᵢℓᵢ]. Cost: S full-data
// loss evaluations.
template <class Q>
void final_elbo(const ProblemSetup& s, const Q& q, const vi::HistoryRow& last, MethodRecord& r) {
  vi::Rng rng(measuring_seed(s.seed, 4));
  Eigen::VectorXd nll(s.final_elbo_samples);
  for (Eigen::Index k = 0; k < nll.size(); ++k) nll(k) = vi::total_nll(*s.train, q.sample(rng));
  const double mean = nll.mean();
  const double var = (nll.array() - mean).square().sum() / static_cast<double>(nll.size() - 1);
  r.elbo = last.elbo + last.expected_nll - mean;
  r.elbo_standard_error = std::sqrt(var / static_cast<double>(nll.size()));
}

// The function-space predictive of q at the setup's evaluation points (point_predictive.hpp),
// from its own generator so that the other measurements keep their draws. Cost:
// point_predictive_samples draws and forward passes over the few points.
template <class Q>
void points_predictive(const ProblemSetup& s, const Q& q, MethodRecord& r) {
  if (s.evaluation_points.size() == 0) return;
  vi::Rng rng(measuring_seed(s.seed, 5));
  r.at_points = point_predictive(s, s.evaluation_points, s.point_predictive_samples,
                                 [&](int) { return q.sample(rng); });
}

template <class Result>
void copy_fit(const Result& result, MethodRecord& r) {
  r.status = vi::to_string(result.status);
  r.message = result.message;
  r.history = result.history;
  r.steps = result.counters.steps;
  r.seconds = result.counters.seconds_total;
  for (const auto& [k, v] : result.counters.remedies) r.remedies[k] = v;
  r.elbo = result.history.empty() ? nan : result.history.back().elbo;
}

// The final measurements of q into r: its mean and marginal sds, its covariance on the small
// problems, the test metrics and the plotting grid (linearised when `glm`, else Monte Carlo), and
// the predictive at the evaluation points — there q is sampled like every other (not
// linearised), so that all methods are scored against HMC the same way. Cost: the final
// predictive over the test set and the grid, and point_predictive_samples draws at the points.
template <class Q>
void measure_final(const ProblemSetup& s, const Q& q, bool glm, MethodRecord& r) {
  r.mean = q.mean();
  r.marginal_sd = q.marginal_variances().cwiseSqrt();
  if (q.dim() <= small_problem_parameters) r.covariance = q.covariance();
  vi::Rng prng(measuring_seed(s.seed, 3));
  const TestMetrics t = test_metrics(s, q, s.final_predictive_samples, prng, glm);
  r.test_log_likelihood = t.log_likelihood;
  r.test_rmse = t.rmse;
  r.test_accuracy = t.accuracy;
  if (t.at_examples.mean.size() > 0) r.test_predictive = t.at_examples;
  if (s.grid.size() > 0) r.grid = grid_predictive(s, q, s.final_predictive_samples, prng, glm);
  points_predictive(s, q, r);
}

}  // namespace detail

// Fits the method of `options` to the setup's problem and measures it. Cost: the fit, an exact
// Hessian and a small predictive per history row, and the final predictive.
template <class Options>
MethodRecord run_method(const ProblemSetup& s, const std::string& key, const Options& options) {
  MethodRecord r;
  r.name = key;
  vi::Rng rng(s.seed);
  detail::StudyTracker tracker{&s, &r.curvature};
  // A bar given a stream and no `force` stays quiet: that is how s.progress turns it off.
  vi::ProgressBar bar(s.name + " " + key, s.progress ? nullptr : &std::cerr);
  const auto result = vi::fit(*s.train, options, rng, tracker, bar);
  detail::copy_fit(result, r);
  const auto& q = result.posterior;
  if (!s.exact_elbo() && !result.history.empty())
    detail::final_elbo(s, q, result.history.back(), r);
  detail::measure_final(s, q, false, r);
  return r;
}

// MAP by Adam with the approximation study on its trajectory, then the Laplace approximation
// (GGN, full covariance) at θ*: its evidence, and the GLM predictive as the method's final
// predictive. Cost: the MAP fit, at each history row an exact Hessian, a GGN, an empirical and
// an MC Fisher, K-FAC and their eigendecompositions, then a Laplace approximation.
inline MethodRecord run_map_laplace(const ProblemSetup& s, const vi::MapOptions& options) {
  MethodRecord r;
  r.name = "map_laplace";
  vi::Rng rng(s.seed);
  detail::StudyTracker tracker{&s, &r.curvature};
  detail::ApproximationTracker approx{&s, &r.approximations, &r.spectra};
  vi::ProgressBar bar(s.name + " map_laplace", s.progress ? nullptr : &std::cerr);  // see above
  const auto result = vi::fit(*s.train, options, rng, tracker, approx, bar);
  detail::copy_fit(result, r);
  vi::LaplaceOptions lo;
  lo.curvature = vi::LaplaceCurvature::ggn;
  lo.prior_precision = options.prior_precision;
  lo = ad::with_parallel(lo, s.loop);
  const vi::Laplace<vi::FullGaussian> la = vi::laplace(*s.train, result.posterior.mean(), lo);
  r.log_evidence = la.log_marginal_likelihood;
  detail::measure_final(s, la.posterior, true, r);
  return r;
}

// The same MAP fit as run_map_laplace (same seed and options: the same θ*), without the
// approximation study, then the Laplace approximation over the last layer only (GGN, full
// covariance over its parameters S, the rest fixed at θ*; Kristiadi, Hein & Hennig 2020): its
// evidence, and the GLM predictive. Its marginal sds are 0 off S, so the record names S and the
// HMC scores compare the marginals on S alone (hmc_scores.hpp). Cost: the MAP fit, then the
// last layer's Jacobians (one reverse sweep per example and output) and a P_S×P_S Cholesky.
inline MethodRecord run_map_last_layer_laplace(const ProblemSetup& s, const std::string& key,
                                               const vi::MapOptions& options) {
  MethodRecord r;
  r.name = key;
  vi::Rng rng(s.seed);
  vi::ProgressBar bar(s.name + " " + key, s.progress ? nullptr : &std::cerr);  // see above
  const auto result = vi::fit(*s.train, options, rng, bar);
  detail::copy_fit(result, r);
  vi::SubnetworkLaplaceOptions lo;
  lo.curvature = vi::LaplaceCurvature::ggn;
  lo.prior_precision = options.prior_precision;
  lo = ad::with_parallel(lo, s.loop);
  const vi::SubnetworkLaplace la = vi::last_layer_laplace(*s.train, result.posterior.mean(), lo);
  r.log_evidence = la.log_marginal_likelihood;
  r.subnetwork = la.indices;
  detail::measure_final(s, vi::subnetwork_gaussian(la), true, r);
  return r;
}

}  // namespace ngvi::app::study
