// The HMC reference of a network problem (hmc_reference.hpp).
#include <chrono>
#include <string>

#include <app/study/hmc_reference.hpp>
#include <app/study/point_predictive.hpp>
#include <app/study/run_method.hpp>
#include <fmt/format.h>

#include <inference/hmc.hpp>

namespace ngvi::app::study {

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
  if (s.evaluation_points.size() > 0) {
    // Every pooled draw once (chain after chain): the reference's own moments, no resampling.
    const int per_chain = budget.draws;
    h.at_points = point_predictive(s, s.evaluation_points, budget.chains * per_chain, [&](int k) {
      return Eigen::VectorXd(
          r.draws[static_cast<std::size_t>(k / per_chain)].row(k % per_chain).transpose());
    });
  }
  return h;
}

}  // namespace ngvi::app::study
