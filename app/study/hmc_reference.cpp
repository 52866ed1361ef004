// The HMC reference of a network problem (hmc_reference.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <app/study/hmc_reference.hpp>
#include <app/study/point_predictive.hpp>
#include <app/study/run_method.hpp>
#include <fmt/format.h>

#include <inference/hmc.hpp>
#include <inference/mcmc_diagnostics.hpp>

namespace ngvi::app::study {
namespace {

struct PointsDiagnostics {
  double max_rhat = 0.0, min_ess_bulk = 0.0;
};

// R-hat and bulk-ESS of the function values at each evaluation point over the chains (one
// series per point, draws × chains), the largest and the smallest; NaN if any is. Cost: one
// forward pass over the points per draw, and the diagnostics of mcmc_diagnostics.hpp per point.
PointsDiagnostics points_diagnostics(const ProblemSetup& s, const vi::HmcResult& r) {
  const PointValues values(s, s.evaluation_points);
  const Eigen::Index points = s.evaluation_points.rows();
  const auto chains = static_cast<Eigen::Index>(r.draws.size());
  const Eigen::Index draws = r.draws.front().rows();
  std::vector<Eigen::MatrixXd> series(static_cast<std::size_t>(points),
                                      Eigen::MatrixXd(draws, chains));
  for (Eigen::Index c = 0; c < chains; ++c)
    for (Eigen::Index t = 0; t < draws; ++t) {
      const Eigen::VectorXd v = values(r.draws[static_cast<std::size_t>(c)].row(t).transpose());
      for (Eigen::Index i = 0; i < points; ++i) series[static_cast<std::size_t>(i)](t, c) = v(i);
    }
  PointsDiagnostics d;
  d.min_ess_bulk = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Eigen::MatrixXd& x : series) {
    const double rhat = vi::rank_normalized_rhat(x), ess = vi::bulk_effective_sample_size(x);
    d.max_rhat = std::isnan(rhat) || std::isnan(d.max_rhat) ? nan : std::max(d.max_rhat, rhat);
    d.min_ess_bulk =
        std::isnan(ess) || std::isnan(d.min_ess_bulk) ? nan : std::min(d.min_ess_bulk, ess);
  }
  return d;
}

}  // namespace

HmcReference hmc_reference(const ProblemSetup& s, const Eigen::VectorXd& start,
                           const HmcBudget& budget) {
  vi::HmcOptions o;
  o.algorithm = vi::HmcAlgorithm::nuts;
  o.chains = budget.chains;
  o.warmup = budget.warmup;
  o.draws = budget.draws;
  o.max_tree_depth = budget.max_tree_depth;
  o.prior_precision = s.prior_precision;
  o.initial = start;
  o.threads = s.loop.threads;
  vi::Rng rng(detail::measuring_seed(s.seed, 6));
  const auto t0 = std::chrono::steady_clock::now();
  const vi::HmcResult r = vi::hmc(*s.train, o, rng);

  HmcReference h;
  h.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  h.chains = budget.chains;
  h.warmup = budget.warmup;
  h.draws = budget.draws;
  h.max_tree_depth = budget.max_tree_depth;
  h.max_rhat = r.max_rhat();
  h.min_ess_bulk = r.min_ess_bulk();
  h.min_ess_tail = r.min_ess_tail();
  h.divergences = r.divergences;
  for (const vi::HmcChainSummary& c : r.chains) {
    h.step_size += c.step_size / static_cast<double>(r.chains.size());
    h.mean_leapfrog_steps += c.mean_leapfrog_steps / static_cast<double>(r.chains.size());
    h.max_tree_depth_hits += c.max_tree_depth_hits;
  }
  // NaN R-hat (a parameter whose draws never moved) is not converged either.
  h.converged = h.max_rhat <= hmc_rhat_threshold;
  h.mean = r.mean;
  h.sd = r.covariance.diagonal().cwiseSqrt();
  h.how = fmt::format(
      "NUTS (inference/hmc.hpp), {} chains × ({} warmup + {} draws), tree depth at most {}, "
      "diagonal mass matrix adapted in warmup, every chain started at the MAP",
      h.chains, h.warmup, h.draws, h.max_tree_depth);

  const vi::DrawsPosterior posterior(r);
  vi::Rng prng(detail::measuring_seed(s.seed, 7));
  const detail::TestMetrics t =
      detail::test_metrics(s, posterior, budget.predictive_samples, prng, false);
  h.test_log_likelihood = t.log_likelihood;
  h.test_rmse = t.rmse;
  h.test_accuracy = t.accuracy;
  h.max_rhat_points = h.min_ess_bulk_points = std::numeric_limits<double>::quiet_NaN();
  if (s.evaluation_points.size() > 0) {
    // Every pooled draw once (chain after chain): the reference's own moments, no resampling.
    const int per_chain = budget.draws;
    h.at_points = point_predictive(s, s.evaluation_points, budget.chains * per_chain, [&](int k) {
      return Eigen::VectorXd(
          r.draws[static_cast<std::size_t>(k / per_chain)].row(k % per_chain).transpose());
    });
    const PointsDiagnostics d = points_diagnostics(s, r);
    h.max_rhat_points = d.max_rhat;
    h.min_ess_bulk_points = d.min_ess_bulk;
  }
  h.converged_points = h.max_rhat_points <= hmc_rhat_threshold;
  return h;
}

}  // namespace ngvi::app::study
