// results.json (study_json.hpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <app/methods/method_info.hpp>
#include <app/study/seed_statistics.hpp>
#include <app/study/study_json.hpp>

#include <inference/callbacks.hpp>

namespace ngvi::app::study {
namespace {

using nlohmann::json;

json vec(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

// vi::history_json without the wall times when `timing` is false.
json history_json(const std::vector<vi::HistoryRow>& rows, bool timing) {
  json out = vi::history_json(rows);
  if (!timing)
    for (json& r : out) r.erase("seconds");
  return out;
}

// A method's scores against the HMC reference (null without them).
json hmc_scores_json(const std::optional<HmcScores>& s) {
  if (!s) return nullptr;
  return {{"sd_log_ratio_median", s->sd_log_ratio_median},
          {"point_sd_log_ratio", s->point_sd_log_ratio},
          {"point_mean_error", s->point_mean_error}};
}

json method_json(const ProblemRecord& p, std::uint64_t seed, const MethodRecord& m, bool timing) {
  json j;
  j["name"] = m.name;
  j["label"] = method_info(m.name).label;
  j["status"] = m.status;
  j["message"] = m.message;
  j["health"] = m.health;
  j["health_reason"] = m.health_reason;
  j["steps"] = m.steps;
  if (timing) j["seconds"] = m.seconds;
  j["final"] = {{"elbo", m.elbo},
                {"elbo_standard_error", m.elbo_standard_error},
                {"test_log_likelihood", m.test_log_likelihood},
                {"test_rmse", m.test_rmse},
                {"test_accuracy", m.test_accuracy},
                {"log_evidence", m.log_evidence ? json(*m.log_evidence) : json(nullptr)}};
  j["posterior"] = {{"mean", vec(m.mean)}, {"sd", vec(m.marginal_sd)}};
  if (!m.subnetwork.empty()) j["posterior"]["subnetwork"] = m.subnetwork;
  if (p.reference) {
    const ReferenceError e = reference_error(m, *p.reference, false);
    j["reference_error"] = {{"mean", e.mean}, {"sd", e.sd}};
    if (p.reference->mean_field_sd.size() > 0)
      j["reference_error"]["sd_mean_field"] = reference_error(m, *p.reference, true).sd;
  }
  j["at_points"] = nullptr;
  if (m.at_points)
    j["at_points"] = {{"mean", vec(m.at_points->mean.reshaped())},
                      {"sd", vec(m.at_points->spread.reshaped())}};
  j["hmc_scores"] = hmc_scores_json(m.hmc_scores);
  if (p.vi_optimum) {
    j["kl_from_vi_optimum"] = m.kl_from_vi_optimum ? json(*m.kl_from_vi_optimum) : json(nullptr);
    j["covariance_kl_from_vi_optimum"] =
        m.kl_from_vi_optimum ? json(covariance_kl_from_optimum(m, *p.vi_optimum)) : json(nullptr);
  }
  j["remedies"] = json::object();
  for (const auto& [k, v] : m.remedies) j["remedies"][k] = v;
  j["history_csv"] = history_path(p.name, seed, m.name);
  j["history"] = history_json(m.history, timing);
  j["curvature"] = json::array();
  for (const CurvatureCheck& c : m.curvature) {
    json k = {{"iteration", c.iteration},
              {"diagonal_relative_error", c.diagonal_relative_error},
              {"frobenius_relative_error", c.frobenius_relative_error},
              {"scale_ratio", c.scale_ratio},
              {"estimate_mean_diagonal", c.estimate_mean_diagonal},
              {"hessian_mean_diagonal", c.hessian_mean_diagonal}};
    if (timing) k["seconds"] = c.seconds;
    j["curvature"].push_back(std::move(k));
  }
  return j;
}

json curvature_study_json(const MethodRecord& map) {
  const auto& names = approximation_names();
  json j;
  j["approximations"] = names;
  j["points"] = json::array();
  for (const ApproximationPoint& a : map.approximations) {
    json pt = {{"iteration", a.iteration},
               {"hessian",
                {{"min_eigenvalue", a.hessian_min_eigenvalue},
                 {"max_eigenvalue", a.hessian_max_eigenvalue},
                 {"negative_eigenvalues", a.hessian_negative_eigenvalues},
                 {"posterior_exists", a.hessian_posterior_exists}}}};
    auto finite_or_null = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    for (std::size_t k = 0; k < names.size(); ++k) {
      pt["relative_error"][names[k]] = a.relative_error[k];
      pt["diagonal_cosine"][names[k]] = a.diagonal_cosine[k];
      pt["posterior_kl"][names[k]] = finite_or_null(a.posterior_kl[k]);
      pt["predictive_log_variance_ratio"][names[k]] =
          finite_or_null(a.predictive_log_variance_ratio[k]);
    }
    j["points"].push_back(std::move(pt));
  }
  j["spectra"] = json::array();
  for (const Spectra& s : map.spectra) {
    json sp = {{"iteration", s.iteration}, {"hessian", vec(s.hessian)}};
    for (std::size_t k = 0; k < names.size(); ++k) sp[names[k]] = vec(s.approximations[k]);
    j["spectra"].push_back(std::move(sp));
  }
  return j;
}

// One seed's run of a problem: what depends on the seed (data, reference, fits).
json run_json(const ProblemRecord& p, std::uint64_t seed, bool timing) {
  json j = {{"seed", seed}, {"no_skill_log_likelihood", p.no_skill_log_likelihood}};
  j["reference"] = nullptr;
  if (p.reference) {
    j["reference"] = {
        {"how", p.reference->how}, {"mean", vec(p.reference->mean)}, {"sd", vec(p.reference->sd)}};
    if (p.reference->mean_field_sd.size() > 0)
      j["reference"]["mean_field_sd"] = vec(p.reference->mean_field_sd);
  }
  if (p.design.size() > 0) {
    json rows = json::array();
    for (Eigen::Index i = 0; i < p.design.rows(); ++i)
      rows.push_back(vec(p.design.row(i).transpose()));
    j["data"] = {{"design", rows}, {"targets", vec(p.targets)}};
    if (p.noise_precision > 0.0) j["data"]["noise_precision"] = p.noise_precision;
  }
  j["vi_optimum"] = nullptr;
  if (p.vi_optimum) {
    const GaussianOptimum& o = *p.vi_optimum;
    json rows = json::array();
    for (Eigen::Index i = 0; i < o.covariance.rows(); ++i)
      rows.push_back(vec(o.covariance.row(i).transpose()));
    j["vi_optimum"] = {{"how", o.how},
                       {"mean", vec(o.mean)},
                       {"covariance", rows},
                       {"mean_field_mean", vec(o.mean_field_mean)},
                       {"mean_field_sd", vec(o.mean_field_sd)}};
  }
  j["sample_size_study"] = json::array();
  for (const SampleSizeRun& r : p.sample_size)
    j["sample_size_study"].push_back({{"method", r.method},
                                      {"samples", r.samples},
                                      {"error", r.error},
                                      {"status", r.status},
                                      {"from_iteration", r.from_iteration},
                                      {"slope", r.slope}});
  j["von_remedies"] = json::array();
  for (const RemedyRun& r : p.remedy_runs) {
    json fired = json::object();
    for (const auto& [k, v] : r.remedies) fired[k] = v;
    j["von_remedies"].push_back({{"remedy", r.remedy},
                                 {"status", r.status},
                                 {"message", r.message},
                                 {"steps", r.steps},
                                 {"remedies", fired},
                                 {"test_log_likelihood", r.test_log_likelihood},
                                 {"hmc_scores", hmc_scores_json(r.hmc_scores)}});
  }
  j["evidence_hyperparameters"] = json::array();
  for (const EvidenceRun& r : p.evidence_runs) {
    auto scores = [](const EvidenceScores& e) {
      return json{{"test_log_likelihood", e.log_likelihood},
                  {"test_rmse", e.rmse},
                  {"test_accuracy", e.accuracy}};
    };
    json blocks = json::array();
    for (std::size_t b = 0; b < r.blocks.size(); ++b)
      blocks.push_back({{"name", r.blocks[b]},
                        {"size", r.block_sizes[b]},
                        {"prior_precision", r.prior_precisions(static_cast<Eigen::Index>(b))}});
    j["evidence_hyperparameters"].push_back({{"method", r.method},
                                             {"how", r.how},
                                             {"ok", r.ok},
                                             {"message", r.message},
                                             {"blocks", blocks},
                                             {"noise_precision", r.noise_precision},
                                             {"fixed", scores(r.fixed)},
                                             {"learned", scores(r.learned)}});
  }
  j["continual_study"] = nullptr;
  if (p.continual) {
    const ContinualStudy& c = *p.continual;
    json tasks = json::array();
    for (const auto& [low, high] : c.intervals) tasks.push_back({{"low", low}, {"high", high}});
    json runs = json::array();
    for (const ContinualRun& r : c.runs)
      runs.push_back({{"method", r.method},
                      {"label", r.label},
                      {"carried_prior", r.carried_prior},
                      {"status", r.status},
                      {"test_log_likelihood", r.test_log_likelihood},
                      {"test_rmse", r.test_rmse},
                      {"posterior", {{"mean", vec(r.mean)}, {"sd", vec(r.sd)}}}});
    j["continual_study"] = {{"description", c.description},
                            {"tasks", tasks},
                            {"examples", c.examples},
                            {"test_examples", c.test_examples},
                            {"epochs", c.epochs},
                            {"minibatch", c.minibatch},
                            {"runs", runs}};
  }
  j["hmc_reference"] = nullptr;
  if (p.hmc) {
    const HmcReference& h = *p.hmc;
    j["hmc_reference"] = {
        {"how", h.how},
        {"chains", h.chains},
        {"warmup", h.warmup},
        {"draws", h.draws},
        {"max_tree_depth", h.max_tree_depth},
        {"max_rhat", h.max_rhat},
        {"min_ess_bulk", h.min_ess_bulk},
        {"min_ess_tail", h.min_ess_tail},
        {"divergences", h.divergences},
        {"step_size", h.step_size},
        {"mean_leapfrog_steps", h.mean_leapfrog_steps},
        {"max_tree_depth_hits", h.max_tree_depth_hits},
        {"converged", h.converged},
        {"max_rhat_points", h.max_rhat_points},
        {"min_ess_bulk_points", h.min_ess_bulk_points},
        {"converged_points", h.converged_points},
        {"mean", vec(h.mean)},
        {"sd", vec(h.sd)},
        {"test_log_likelihood", h.test_log_likelihood},
        {"test_rmse", h.test_rmse},
        {"test_accuracy", h.test_accuracy},
        {"at_points",
         {{"mean", vec(h.at_points.mean.reshaped())}, {"sd", vec(h.at_points.spread.reshaped())}}}};
    if (timing) j["hmc_reference"]["seconds"] = h.seconds;
  }
  j["curvature_study"] = nullptr;
  j["methods"] = json::array();
  for (const MethodRecord& m : p.methods) {
    if (!m.approximations.empty()) j["curvature_study"] = curvature_study_json(m);
    j["methods"].push_back(method_json(p, seed, m, timing));
  }
  return j;
}

json mean_sd_json(const std::vector<double>& values) {
  const SeedInterval s = t_interval(values);
  return {{"mean", s.mean}, {"sd", s.sd}};
}

// Each method's final numbers over the seeds: mean and sd (sd null with one seed).
json summary_json(const ProblemSeeds& ps) {
  json out = json::array();
  const ProblemRecord& base = ps.base();
  for (std::size_t i = 0; i < base.methods.size(); ++i) {
    std::vector<double> elbo, ll, rmse, accuracy, sd_ratio, point_sd, point_mean;
    int healthy = 0;
    for (const ProblemRecord& r : ps.runs) {
      const MethodRecord& m = r.methods[i];
      const double nan = std::numeric_limits<double>::quiet_NaN();
      sd_ratio.push_back(m.hmc_scores ? m.hmc_scores->sd_log_ratio_median : nan);
      point_sd.push_back(m.hmc_scores ? m.hmc_scores->point_sd_log_ratio : nan);
      point_mean.push_back(m.hmc_scores ? m.hmc_scores->point_mean_error : nan);
      elbo.push_back(m.elbo);
      ll.push_back(m.test_log_likelihood);
      rmse.push_back(m.test_rmse);
      accuracy.push_back(m.test_accuracy);
      healthy += m.health == "ok" ? 1 : 0;
    }
    out.push_back({{"name", base.methods[i].name},
                   {"seeds_healthy", healthy},
                   {"elbo", mean_sd_json(elbo)},
                   {"test_log_likelihood", mean_sd_json(ll)},
                   {"test_rmse", mean_sd_json(rmse)},
                   {"test_accuracy", mean_sd_json(accuracy)}});
    if (base.hmc) {
      out.back()["hmc_sd_log_ratio_median"] = mean_sd_json(sd_ratio);
      out.back()["hmc_point_sd_log_ratio"] = mean_sd_json(point_sd);
      out.back()["hmc_point_mean_error"] = mean_sd_json(point_mean);
    }
  }
  return out;
}

// The HMC references over the seeds: how many converged, and mean ± sd of their diagnostics and
// test metrics; null when the problem has none.
json hmc_summary_json(const ProblemSeeds& ps) {
  if (!ps.base().hmc) return nullptr;
  std::vector<double> rhat, rhat_points, bulk, tail, div, eps, ll, rmse, accuracy;
  int converged = 0, converged_points = 0;
  for (const ProblemRecord& r : ps.runs) {
    if (!r.hmc) continue;
    const HmcReference& h = *r.hmc;
    converged += h.converged ? 1 : 0;
    converged_points += h.converged_points ? 1 : 0;
    rhat.push_back(h.max_rhat);
    rhat_points.push_back(h.max_rhat_points);
    bulk.push_back(h.min_ess_bulk);
    tail.push_back(h.min_ess_tail);
    div.push_back(static_cast<double>(h.divergences));
    eps.push_back(h.step_size);
    ll.push_back(h.test_log_likelihood);
    rmse.push_back(h.test_rmse);
    accuracy.push_back(h.test_accuracy);
  }
  return {{"seeds", rhat.size()},
          {"seeds_converged", converged},
          {"seeds_converged_points", converged_points},
          {"max_rhat", mean_sd_json(rhat)},
          {"max_rhat_points", mean_sd_json(rhat_points)},
          {"min_ess_bulk", mean_sd_json(bulk)},
          {"min_ess_tail", mean_sd_json(tail)},
          {"divergences", mean_sd_json(div)},
          {"step_size", mean_sd_json(eps)},
          {"test_log_likelihood", mean_sd_json(ll)},
          {"test_rmse", mean_sd_json(rmse)},
          {"test_accuracy", mean_sd_json(accuracy)}};
}

json problem_json(const ProblemSeeds& ps, bool timing) {
  const ProblemRecord& p = ps.base();
  json j = {{"name", p.name},
            {"title", p.title},
            {"description", p.description},
            {"task", p.task},
            {"examples", p.examples},
            {"test_examples", p.test_examples},
            {"parameters", p.parameters},
            {"epochs", p.epochs},
            {"minibatch", p.minibatch},
            {"iterations", p.iterations},
            {"prior_precision", p.prior_precision},
            {"elbo_method", p.elbo_method},
            {"elbo_samples", p.elbo_samples},
            {"parameter_names", p.parameter_names}};
  j["summary"] = summary_json(ps);
  j["hmc_summary"] = hmc_summary_json(ps);
  j["hmc_reference_absent"] = p.hmc ? json(nullptr) : json(p.hmc_absent);
  j["curvature_absent"] = p.curvature_absent.empty() ? json(nullptr) : json(p.curvature_absent);
  j["user_problem"] = ps.user_problem;
  j["findings_not_evaluated"] = json::array();
  for (const FindingNotEvaluated& f : ps.not_evaluated)
    j["findings_not_evaluated"].push_back({{"finding", f.finding}, {"reason", f.reason}});
  j["evaluation_points_what"] = p.evaluation_points_what;
  j["evaluation_points"] = json::array();
  for (Eigen::Index i = 0; i < p.evaluation_points.rows(); ++i)
    j["evaluation_points"].push_back(vec(p.evaluation_points.row(i).transpose()));
  j["runs"] = json::array();
  for (std::size_t k = 0; k < ps.runs.size(); ++k)
    j["runs"].push_back(run_json(ps.runs[k], ps.seeds[k], timing));
  return j;
}

}  // namespace

json results_json(const StudyRun& run) {
  json j;
  j["tool"] = "ngvi study";
  j["schema_version"] = 2;
  j["seed"] = run.seeds.front();
  j["seeds"] = run.seeds;
  j["quick"] = run.quick;
  j["timings"] = run.timing;
  if (run.timing) j["seconds"] = run.seconds;
  j["methods"] = json::array();
  for (const MethodInfo& m : study_methods())
    j["methods"].push_back({{"name", m.name}, {"label", m.label}, {"what", m.what}});
  j["problems"] = json::array();
  for (const ProblemSeeds& p : run.problems) j["problems"].push_back(problem_json(p, run.timing));
  j["verdicts"] = json::array();
  for (const StudyVerdict& v : run.verdicts)
    j["verdicts"].push_back({{"problem", v.problem},
                             {"claim", v.claim},
                             {"kind", to_string(v.kind)},
                             {"status", v.status()},
                             {"confirmed", v.confirmed},
                             {"seeds", v.seeds},
                             {"seeds_holding", v.seeds_holding},
                             {"statistic_name", v.statistic_name},
                             {"statistic", v.statistic},
                             {"interval_low", v.interval_low},
                             {"interval_high", v.interval_high},
                             {"claim_side", v.rule.above ? "above" : "below"},
                             {"threshold", v.rule.threshold},
                             {"margin", v.rule.margin},
                             {"statistic_per_seed", v.per_seed},
                             {"margin_per_seed", v.per_seed_margin},
                             {"evidence", v.evidence},
                             {"citation", v.citation}});
  return j;
}

}  // namespace ngvi::app::study
