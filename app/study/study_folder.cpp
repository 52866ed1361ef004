// The study's report folder (study_folder.hpp): figures, history files, results.json, report.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include <app/io/atomic_write.hpp>
#include <app/io/json_file.hpp>
#include <app/plot/render.hpp>
#include <app/report/write_report.hpp>
#include <app/study/method_catalog.hpp>
#include <app/study/seed_statistics.hpp>
#include <app/study/study_folder.hpp>
#include <fmt/format.h>

#include <inference/callbacks.hpp>

namespace ngvi::app::study {
namespace {

namespace fs = std::filesystem;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct PlannedFigure {
  std::string stem;  // file name without extension, in plots/
  plot::Figure figure;
};

// The figures of a problem and the report blocks that show them, built together.
// Every figure shows one seed's run, the base seed's; `seed_note` says so in each caption when
// the run has several seeds.
struct Builder {
  std::vector<PlannedFigure>& figures;
  report::Section& section;
  std::string seed_note;
  void add(const std::string& stem, plot::Figure f, const std::string& caption) {
    figures.push_back({stem, std::move(f)});
    section.blocks.push_back(
        report::Figure{caption + seed_note, "plots/" + stem + ".svg", "plots/" + stem + ".png"});
  }
};

std::string fmt_num(double v, const char* spec = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string("—");
}

// A method's curve, its legend entry marked when the fit is not healthy (fit_health.hpp).
plot::Series method_series(const MethodRecord& m, std::vector<double> x, std::vector<double> y,
                           plot::Style style = plot::Style::lines_points) {
  const MethodInfo& info = method_info(m.name);
  return plot::Series{info.label + (m.health == "ok" ? "" : " (" + m.health + ")"), std::move(x),
                      std::move(y), style, info.color};
}

// A history field by name: elbo, seconds, iteration, or a metric.
double history_value(const vi::HistoryRow& r, const std::string& field) {
  if (field == "elbo") return std::isfinite(r.elbo) ? r.elbo : nan;
  if (field == "seconds") return r.seconds;
  if (field == "iteration") return static_cast<double>(r.iteration);
  return r.metric(field, nan);
}

plot::LinePlot history_plot(const ProblemRecord& p, const std::string& x, const std::string& y,
                            const std::string& title, const std::string& xlabel,
                            const std::string& ylabel, bool skip_point_mass) {
  plot::LinePlot lp;
  lp.axes = {title, xlabel, ylabel, false, false, 900, 520};
  // The y-range of the healthy curves, fixed when some fit is not healthy, so that one poor or
  // diverged curve does not flatten the others.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  bool clipped = false;
  for (const MethodRecord& m : p.methods) {
    if (skip_point_mass && m.name == "map_laplace") continue;
    std::vector<double> xs, ys;
    for (const vi::HistoryRow& r : m.history) {
      xs.push_back(history_value(r, x));
      ys.push_back(history_value(r, y));
      if (m.health == "ok" && std::isfinite(ys.back())) {
        lo = std::min(lo, ys.back());
        hi = std::max(hi, ys.back());
      }
    }
    clipped = clipped || m.health != "ok";
    lp.series.push_back(method_series(m, xs, ys));
  }
  if (clipped && lo < hi) {
    const double pad = 0.05 * (hi - lo);
    lp.axes.y_min = lo - pad;
    lp.axes.y_max = hi + pad;
  }
  return lp;
}

// How the problem's ELBOs were computed, for captions.
std::string elbo_how(const ProblemRecord& p) { return "ELBO (" + p.elbo_how + ")"; }

void convergence_figures(const ProblemRecord& p, Builder& b) {
  const std::string metric = "test_log_likelihood";
  b.add(p.name + "_elbo_iterations",
        history_plot(p, "iteration", "elbo", p.title + ": ELBO", "iteration", "ELBO (nats)", true),
        elbo_how(p) +
            " against iterations; MAP is a point mass (ELBO −∞) and is not drawn. A fit marked "
            "poor or diverged is clipped to the healthy curves' range.");
  b.add(p.name + "_elbo_seconds",
        history_plot(p, "seconds", "elbo", p.title + ": ELBO against time", "seconds of fitting",
                     "ELBO (nats)", true),
        "ELBO against the wall time of the steps (history evaluation excluded).");
  b.add(p.name + "_test_ll_iterations",
        history_plot(p, "iteration", metric, p.title + ": test log-likelihood", "iteration",
                     "test log-likelihood (nats per example)", false),
        "Test log-likelihood of the Monte-Carlo predictive (a few draws per row) against "
        "iterations; MAP's is the plug-in predictive of its point estimate.");
  b.add(p.name + "_test_ll_seconds",
        history_plot(p, "seconds", metric, p.title + ": test log-likelihood against time",
                     "seconds of fitting", "test log-likelihood (nats per example)", false),
        "Test log-likelihood against the wall time of the steps.");
}

void approximation_figures(const ProblemRecord& p, Builder& b) {
  const MethodRecord* map = nullptr;
  for (const MethodRecord& m : p.methods)
    if (!m.approximations.empty()) map = &m;
  if (!map) return;
  const auto& names = approximation_names();
  const char* labels[] = {"GGN", "empirical Fisher", "MC Fisher (16 draws)", "K-FAC (expected)"};
  const char* colors[] = {"#d62728", "#ff9896", "#9467bd", "#e377c2"};
  plot::LinePlot err;
  err.axes = {p.title + ": curvature approximations vs the exact Hessian (MAP run)",
              "iteration",
              "‖A − H‖_F / ‖H‖_F",
              false,
              true,
              900,
              520};
  for (std::size_t a = 0; a < names.size(); ++a) {
    plot::Series s{labels[a], {}, {}, plot::Style::lines_points, colors[a]};
    for (const ApproximationPoint& q : map->approximations) {
      s.x.push_back(static_cast<double>(q.iteration));
      s.y.push_back(q.relative_error[a]);
    }
    err.series.push_back(std::move(s));
  }
  b.add(p.name + "_approximation_error", err,
        "Relative Frobenius error of each approximation of the Hessian of Σᵢℓᵢ, at the MAP "
        "iterate of each history row (log scale).");
  for (std::size_t k = 0; k < map->spectra.size(); ++k) {
    const Spectra& sp = map->spectra[k];
    plot::LinePlot lp;
    lp.axes = {fmt::format("{}: spectra at iteration {}", p.title, sp.iteration),
               "eigenvalue rank (largest first)",
               "eigenvalue",
               false,
               true,
               900,
               520};
    auto series = [&](const std::string& label, const Eigen::VectorXd& ev, const std::string& c) {
      plot::Series s{label, {}, {}, plot::Style::lines_points, c};
      for (Eigen::Index i = 0; i < ev.size(); ++i) {
        s.x.push_back(static_cast<double>(i + 1));
        s.y.push_back(ev(i));
      }
      return s;
    };
    lp.series.push_back(series("exact Hessian", sp.hessian, "#000000"));
    for (std::size_t a = 0; a < names.size(); ++a)
      lp.series.push_back(series(labels[a], sp.approximations[a], colors[a]));
    b.add(fmt::format("{}_spectra_{}", p.name, k == 0 ? "start" : "end"), lp,
          fmt::format("Eigenvalues of the exact Hessian and its approximations at iteration {} of "
                      "the MAP run (log scale: non-positive eigenvalues are not drawn).",
                      sp.iteration));
  }
}

void running_curvature_figures(const ProblemRecord& p, Builder& b) {
  plot::LinePlot err, scale;
  err.axes = {p.title + ": each method's running curvature vs the exact Hessian",
              "iteration",
              "‖diag C − diag H̄‖ / ‖diag H̄‖",
              false,
              true,
              900,
              520};
  scale.axes = {p.title + ": size of each method's running curvature",
                "iteration",
                "Σ diag C / Σ diag H̄",
                false,
                true,
                900,
                520};
  double x_max = 1.0;
  for (const MethodRecord& m : p.methods) {
    if (m.curvature.empty()) continue;
    std::vector<double> x, e, s;
    for (const CurvatureCheck& c : m.curvature) {
      x.push_back(static_cast<double>(c.iteration));
      e.push_back(c.diagonal_relative_error);
      s.push_back(c.scale_ratio);
    }
    x_max = std::max(x_max, x.back());
    err.series.push_back(method_series(m, x, e));
    scale.series.push_back(method_series(m, x, s));
  }
  if (err.series.empty()) return;
  scale.series.push_back(
      {"exact (ratio 1)", {1.0, x_max}, {1.0, 1.0}, plot::Style::lines, "#000000"});
  b.add(p.name + "_running_curvature", err,
        "Relative error of the diagonal of each method's own running curvature C (VON (Λ − δI)/N, "
        "VOGN s, IVON h, noisy Adam f, noisy K-FAC S̄ ⊗ Ā, Bayes-by-backprop (1/σ² − δ)/N) against "
        "the exact Hessian of the mean loss H̄ at the method's current mean (log scale).");
  b.add(p.name + "_running_scale", scale,
        "Overall size of each running curvature relative to the exact Hessian (1 = the same "
        "trace): an estimate that lags or stays near its initial value stays away from 1.");
}

void predictive_figures(const ProblemRecord& p, Builder& b) {
  if (p.grid_x.empty()) return;
  if (p.grid_y.empty()) {  // 1-D: mean ± 2 sd bands
    const plot::Series data{
        "training data",
        std::vector<double>(p.train_inputs.data(), p.train_inputs.data() + p.train_inputs.size()),
        std::vector<double>(p.train_targets.data(),
                            p.train_targets.data() + p.train_targets.size()),
        plot::Style::points, "#333333"};
    for (const MethodRecord& m : p.methods) {
      if (!m.grid) continue;
      const MethodInfo& info = method_info(m.name);
      plot::BandPlot bp;
      bp.axes = {p.title + ": " + info.label, "x", "y", false, false, 720, 440};
      bp.bands.push_back(
          {info.label, p.grid_x,
           std::vector<double>(m.grid->mean.data(), m.grid->mean.data() + m.grid->mean.size()),
           std::vector<double>(m.grid->spread.data(),
                               m.grid->spread.data() + m.grid->spread.size()),
           info.color});
      bp.overlays.push_back(data);
      b.add(p.name + "_predictive_" + m.name, bp,
            info.label + ": predictive mean ± 2 sd (" +
                (m.name == "map_laplace" ? "linearised GLM predictive" : "Monte Carlo") +
                ") and the training data; the inputs have no data in the gap around 0.");
    }
    return;
  }
  const Eigen::Index nx = static_cast<Eigen::Index>(p.grid_x.size());
  const Eigen::Index ny = static_cast<Eigen::Index>(p.grid_y.size());
  std::vector<plot::Series> classes(2);
  for (int c = 0; c < 2; ++c) {
    classes[static_cast<std::size_t>(c)] = {
        c == 0 ? "class 0 (white points)" : "class 1 (black points)",
        {},
        {},
        plot::Style::points,
        c == 0 ? "#ffffff" : "#000000"};
    for (Eigen::Index i = 0; i < p.train_inputs.rows(); ++i)
      if (p.train_targets(i, 0) == c) {
        classes[static_cast<std::size_t>(c)].x.push_back(p.train_inputs(i, 0));
        classes[static_cast<std::size_t>(c)].y.push_back(p.train_inputs(i, 1));
      }
  }
  for (const MethodRecord& m : p.methods) {
    if (!m.grid) continue;
    const MethodInfo& info = method_info(m.name);
    auto heat = [&](const Eigen::MatrixXd& v, const std::string& what, double lo, double hi) {
      plot::Heatmap h;
      h.axes = {p.title + ": " + info.label + ", " + what, "x₁", "x₂", false, false, 640, 480};
      h.value_label = what;
      h.x = p.grid_x;
      h.y = p.grid_y;
      h.z =
          Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
              v.data(), ny, nx);
      h.z_min = lo;
      h.z_max = hi;
      h.overlays = classes;
      return h;
    };
    b.add(p.name + "_probability_" + m.name, heat(m.grid->mean, "P(y = 1)", 0.0, 1.0),
          info.label +
              ": predictive probability of class 1 over the plane (Monte Carlo over θ ~ q), "
              "training points on top.");
    b.add(p.name + "_uncertainty_" + m.name, heat(m.grid->spread, "sd of P(y = 1 | θ)", 0.0, 0.5),
          info.label +
              ": the posterior's uncertainty about that probability, the standard deviation "
              "of P(y = 1 | x, θ) over θ ~ q.");
  }
}

void marginal_figures(const ProblemRecord& p, Builder& b) {
  if (!p.reference || p.reference->marginal_x.empty()) return;
  const ReferencePosterior& ref = *p.reference;
  for (std::size_t j = 0; j < ref.marginal_x.size(); ++j) {
    const Eigen::VectorXd& x = ref.marginal_x[j];
    const std::string name =
        j < p.parameter_names.size() ? p.parameter_names[j] : fmt::format("θ{}", j);
    plot::LinePlot lp;
    lp.axes = {p.title + ": marginal of " + name, name, "density", false, false, 900, 480};
    lp.series.push_back(
        {"exact", std::vector<double>(x.data(), x.data() + x.size()),
         std::vector<double>(ref.marginal_density[j].data(),
                             ref.marginal_density[j].data() + ref.marginal_density[j].size()),
         plot::Style::lines, "#000000"});
    for (const MethodRecord& m : p.methods) {
      const double mu = m.mean(static_cast<Eigen::Index>(j)),
                   sd = m.marginal_sd(static_cast<Eigen::Index>(j));
      if (!(sd > 0.0)) continue;
      std::vector<double> y;
      for (Eigen::Index i = 0; i < x.size(); ++i)
        y.push_back(std::exp(-0.5 * std::pow((x(i) - mu) / sd, 2)) /
                    (sd * std::sqrt(2.0 * std::numbers::pi)));
      lp.series.push_back(method_series(m, std::vector<double>(x.data(), x.data() + x.size()), y,
                                        plot::Style::lines));
    }
    b.add(
        fmt::format("{}_marginal_{}", p.name, name), lp,
        fmt::format("Posterior marginal of {}: exact ({}) against each method's Gaussian marginal.",
                    name, ref.how));
  }
}

// "mean ± sd" of the finite values over the seeds (one: the value), with "(k of n seeds)" when
// some seeds' values are not finite (a fit that diverged there); "—" when none is.
std::string mean_sd(const std::vector<double>& values, const char* spec = "{:.4g}") {
  std::vector<double> finite;
  for (const double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) return "—";
  const SeedInterval s = t_interval(finite);
  std::string text = fmt_num(s.mean, spec);
  if (finite.size() > 1) text += " ± " + fmt_num(s.sd, "{:.2g}");
  if (finite.size() < values.size())
    text += fmt::format(" ({} of {} seeds)", finite.size(), values.size());
  return text;
}

// The method's number on every seed.
template <class F>
std::vector<double> over_seeds(const ProblemSeeds& ps, std::size_t method, F&& number) {
  std::vector<double> v;
  for (const ProblemRecord& r : ps.runs) v.push_back(number(r, r.methods[method]));
  return v;
}

// "finished" when every seed's fit has one status and is healthy, else each status and health
// with the number of seeds that have it.
std::string status_over_seeds(const ProblemSeeds& ps, std::size_t method) {
  std::map<std::string, int> counts;
  for (const ProblemRecord& r : ps.runs) {
    const MethodRecord& m = r.methods[method];
    counts[m.health == "ok" ? m.status : m.status + ", " + m.health] += 1;
  }
  if (counts.size() == 1 && ps.runs.size() == 1) return counts.begin()->first;
  std::string out;
  for (const auto& [what, n] : counts)
    out += (out.empty() ? "" : "; ") + (counts.size() == 1 ? what : fmt::format("{}: {}", what, n));
  return out;
}

report::Table summary_table(const ProblemSeeds& ps, bool timing) {
  const ProblemRecord& p = ps.base();
  const bool classification = p.task == "classification";
  const bool several = ps.runs.size() > 1;
  report::Table t;
  t.caption =
      (several ? fmt::format("Final numbers of every method, mean ± sd over {} seeds ({}–{})",
                             ps.runs.size(), ps.seeds.front(), ps.seeds.back())
               : std::string("Final numbers of every method")) +
      " (test metrics: 100 predictive draws; MAP + Laplace: GLM predictive" +
      (several ? "; the ELBO's ± is the sd over seeds" : "") + ")";
  t.header = {"method", several ? "status (seeds)" : "status", "steps"};
  if (timing) t.header.push_back("seconds");
  for (const char* h : {"ELBO", "test log-lik.", classification ? "test accuracy" : "test RMSE",
                        "curvature error (end)", "remedies fired"})
    t.header.push_back(h);
  if (p.reference) {
    t.header.push_back("mean error vs exact");
    t.header.push_back("sd error vs exact");
  }
  t.header.push_back("log evidence");
  for (std::size_t i = 0; i < p.methods.size(); ++i) {
    const MethodRecord& m = p.methods[i];
    std::vector<std::string> row = {method_info(m.name).label, status_over_seeds(ps, i),
                                    std::to_string(m.steps)};
    if (timing)
      row.push_back(mean_sd(
          over_seeds(ps, i, [](const ProblemRecord&, const MethodRecord& x) { return x.seconds; }),
          "{:.2f}"));
    if (several)
      row.push_back(mean_sd(
          over_seeds(ps, i, [](const ProblemRecord&, const MethodRecord& x) { return x.elbo; }),
          "{:.5g}"));
    else
      row.push_back(fmt_num(m.elbo, "{:.5g}") +
                    (m.elbo_standard_error > 0.0 ? " ± " + fmt_num(m.elbo_standard_error, "{:.2g}")
                                                 : std::string()));
    row.push_back(mean_sd(over_seeds(
        ps, i, [](const ProblemRecord&, const MethodRecord& x) { return x.test_log_likelihood; })));
    row.push_back(
        mean_sd(over_seeds(ps, i, [classification](const ProblemRecord&, const MethodRecord& x) {
          return classification ? x.test_accuracy : x.test_rmse;
        })));
    row.push_back(
        m.curvature.empty()
            ? "—"
            : mean_sd(over_seeds(ps, i,
                                 [](const ProblemRecord&, const MethodRecord& x) {
                                   // a fit that failed at once has no measurement
                                   return x.curvature.empty()
                                              ? nan
                                              : x.curvature.back().diagonal_relative_error;
                                 }),
                      "{:.3g}"));
    row.push_back(mean_sd(over_seeds(ps, i,
                                     [](const ProblemRecord&, const MethodRecord& x) {
                                       std::int64_t fired = 0;
                                       for (const auto& [k, v] : x.remedies) fired += v;
                                       return static_cast<double>(fired);
                                     }),
                          "{:.4g}"));
    if (p.reference) {
      const bool mf = p.reference->mean_field_sd.size() > 0 && m.name != "von" &&
                      m.name != "vogn_full_ggn" && m.name != "map_laplace" &&
                      m.name != "noisy_kfac";
      auto error = [](bool mean_field, bool of_mean) {
        return [mean_field, of_mean](const ProblemRecord& r, const MethodRecord& x) {
          const ReferenceError e = reference_error(x, *r.reference, mean_field);
          return of_mean ? e.mean : e.sd;
        };
      };
      row.push_back(mean_sd(over_seeds(ps, i, error(false, true)), "{:.2g}"));
      row.push_back(
          mean_sd(over_seeds(ps, i, error(false, false)), "{:.2g}") +
          (mf ? " (mean field: " + mean_sd(over_seeds(ps, i, error(true, false)), "{:.2g}") + ")"
              : std::string()));
    }
    row.push_back(m.log_evidence
                      ? mean_sd(over_seeds(ps, i,
                                           [](const ProblemRecord&, const MethodRecord& x) {
                                             return x.log_evidence.value_or(nan);
                                           }),
                                "{:.5g}")
                      : "—");
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The HMC reference of every seed with its diagnostics (hmc_reference.hpp).
report::Table hmc_diagnostics_table(const ProblemSeeds& ps) {
  report::Table t;
  t.caption = fmt::format(
      "HMC reference posterior per seed: {}. R-hat and ESS over the parameters, and over the "
      "function values at the evaluation points (which the network's symmetries — hidden units "
      "permuted, a tanh unit's signs flipped — leave unchanged, while the chains cross between "
      "the equivalent modes). A reference with max R-hat above {} is not converged for that "
      "quantity, and no finding about it rests on it",
      ps.base().hmc->how, hmc_rhat_threshold);
  t.header = {"seed",
              "max R-hat (parameters)",
              "max R-hat (at the points)",
              "min bulk-ESS (parameters)",
              "min bulk-ESS (at the points)",
              "min tail-ESS",
              "divergences",
              "step size",
              "gradients per draw",
              "tree depth cap hits",
              "test log-lik.",
              "status"};
  for (std::size_t k = 0; k < ps.runs.size(); ++k) {
    if (!ps.runs[k].hmc) continue;
    const HmcReference& h = *ps.runs[k].hmc;
    const std::string status = h.converged && h.converged_points ? "converged"
                               : h.converged_points
                                   ? "converged at the points; parameters NOT CONVERGED"
                               : h.converged ? "parameters converged; NOT CONVERGED at the points"
                                             : "NOT CONVERGED";
    t.rows.push_back({std::to_string(ps.seeds[k]), fmt_num(h.max_rhat, "{:.4f}"),
                      fmt_num(h.max_rhat_points, "{:.4f}"), fmt_num(h.min_ess_bulk, "{:.0f}"),
                      fmt_num(h.min_ess_bulk_points, "{:.0f}"), fmt_num(h.min_ess_tail, "{:.0f}"),
                      std::to_string(h.divergences), fmt_num(h.step_size, "{:.3g}"),
                      fmt_num(h.mean_leapfrog_steps, "{:.1f}"),
                      fmt::format("{} of {}", h.max_tree_depth_hits, h.chains * h.draws),
                      fmt_num(h.test_log_likelihood), status});
  }
  return t;
}

// Each method against the HMC reference, mean ± sd over the seeds (hmc_scores.hpp), with the
// HMC predictive's test log-likelihood beside the methods'.
report::Table hmc_scores_table(const ProblemSeeds& ps) {
  const ProblemRecord& p = ps.base();
  int converged = 0, converged_points = 0;
  for (const ProblemRecord& r : ps.runs) {
    converged += r.hmc && r.hmc->converged ? 1 : 0;
    converged_points += r.hmc && r.hmc->converged_points ? 1 : 0;
  }
  report::Table t;
  t.caption = fmt::format(
      "Against the HMC reference{}: median over the parameters of log(sd / sd_HMC) (below 0: "
      "narrower marginals than HMC's); at the evaluation points ({}) the mean of log(predictive "
      "sd / HMC's) and the RMS difference of the predictive means ({}); HMC's references "
      "converged on {} of {} seeds over the parameters and on {} at the points",
      ps.runs.size() > 1 ? fmt::format(", mean ± sd over {} seeds", ps.runs.size()) : "",
      p.evaluation_points_what,
      p.task == "classification" ? "of P(y = 1 | x, θ) over θ"
                                 : "of f(x; θ) over θ, without the noise",
      converged, ps.runs.size(), converged_points);
  t.header = {"posterior", "median log sd-ratio", "log predictive sd-ratio at the points",
              "predictive mean RMS difference", "test log-lik."};
  std::vector<double> ll;
  for (const ProblemRecord& r : ps.runs) ll.push_back(r.hmc ? r.hmc->test_log_likelihood : nan);
  t.rows.push_back({"HMC (reference)", "0", "0", "0", mean_sd(ll)});
  for (std::size_t i = 0; i < p.methods.size(); ++i) {
    auto score = [](double HmcScores::*field) {
      return [field](const ProblemRecord&, const MethodRecord& x) {
        return x.hmc_scores ? (*x.hmc_scores).*field : nan;
      };
    };
    t.rows.push_back({method_info(p.methods[i].name).label,
                      mean_sd(over_seeds(ps, i, score(&HmcScores::sd_log_ratio_median)), "{:.3g}"),
                      mean_sd(over_seeds(ps, i, score(&HmcScores::point_sd_log_ratio)), "{:.3g}"),
                      mean_sd(over_seeds(ps, i, score(&HmcScores::point_mean_error)), "{:.3g}"),
                      mean_sd(over_seeds(ps, i, [](const ProblemRecord&, const MethodRecord& x) {
                        return x.test_log_likelihood;
                      }))});
  }
  return t;
}

// The statistic with its interval, for the report: "<what> = mean [low, high] (95% t-interval
// over n seeds)", one seed's value, or a check's worst value.
std::string statistic_text(const StudyVerdict& v) {
  if (v.seeds == 0)
    return fmt::format("{}: not decided (no seed to judge it on)", v.statistic_name);
  if (v.seeds < 2) return fmt::format("{} = {:.3g}", v.statistic_name, v.statistic);
  if (v.kind == ClaimKind::check)
    return fmt::format("{} = {:.3g} on the worst seed", v.statistic_name, v.statistic);
  return fmt::format("{} = {:.3g}, 95% t-interval [{:.3g}, {:.3g}] over {} seeds (claimed: {})",
                     v.statistic_name, v.statistic, v.interval_low, v.interval_high, v.seeds,
                     v.rule.text());
}

report::Verdict report_verdict(const StudyVerdict& v, std::string claim) {
  report::Verdict r{std::move(claim),           v.confirmed, v.evidence,
                    v.kind == ClaimKind::check, v.citation,  v.inconclusive};
  r.statistic = statistic_text(v);
  r.seeds = v.seeds;
  r.seeds_holding = v.seeds_holding;
  return r;
}

report::Report build_report(const StudyRun& run, std::vector<PlannedFigure>& figures) {
  report::Report r;
  r.title = "ngvi study: natural-gradient variational inference on built-in problems";
  int findings = 0, confirmed = 0, inconclusive = 0, checks = 0, passed = 0;
  for (const StudyVerdict& v : run.verdicts) {
    const bool check = v.kind == ClaimKind::check;
    (check ? checks : findings) += 1;
    (check ? passed : confirmed) += v.confirmed ? 1 : 0;
    inconclusive += v.inconclusive ? 1 : 0;
  }
  const std::string seeds =
      run.seeds.size() == 1
          ? fmt::format("from the same seed ({})", run.seeds.front())
          : fmt::format(
                "from each of {} seeds ({}–{}; every method from the same seed within a "
                "run)",
                run.seeds.size(), run.seeds.front(), run.seeds.back());
  r.introduction.push_back({fmt::format(
      "Every method below was fitted to every problem {}{}, through the library's one fit loop "
      "(vi::fit). {} findings from the literature were judged against the numbers{}: {} "
      "confirmed, {} refuted, {} inconclusive. Apart from them, {} sanity checks — identities "
      "that hold by construction{} — {} passed.{}",
      seeds, run.quick ? " in the short --quick version" : "", findings,
      run.seeds.size() == 1
          ? std::string()
          : " (each by the 95% t-interval of its statistic's mean over the seeds, against a "
            "threshold and margin fixed in advance)",
      confirmed, findings - confirmed - inconclusive, inconclusive, checks,
      run.seeds.size() == 1 ? "" : ", required on every seed",
      passed == checks ? "all" : fmt::format("{} of them", passed),
      run.timing ? fmt::format(" The fits and their measurements took {:.1f} s.", run.seconds)
                 : std::string())});
  r.introduction.push_back(
      {"All numbers are in results.json beside this page (schema in app/study/README.md of the "
       "source tree), each fit's history in history/<problem>/seed_<seed>/<method>.csv, and every "
       "plot as SVG "
       "and PNG in plots/."});

  report::Section verdicts{"Findings", {}};
  report::Section sanity{"Sanity checks", {}};
  for (const StudyVerdict& v : run.verdicts)
    (v.kind == ClaimKind::check ? sanity : verdicts)
        .blocks.push_back(report_verdict(v, v.problem + ": " + v.claim));
  for (report::Section* sec : {&verdicts, &sanity})
    if (!sec->blocks.empty()) r.sections.push_back(std::move(*sec));

  report::Section methods{"Methods", {}};
  report::Table mt{"", {"method", "what it is"}, {}};
  for (const MethodInfo& m : method_catalog()) mt.rows.push_back({m.label, m.what});
  methods.blocks.push_back(mt);
  methods.blocks.push_back(report::Paragraph{
      "Every method starts from the same network weights (the model's initialisation from the "
      "seed) "
      "and sees the same number of iterations with the same minibatch size on a problem. The "
      "full-covariance methods are left out where P×P work per step would dominate the run."});
  r.sections.push_back(std::move(methods));

  for (const ProblemSeeds& ps : run.problems) {
    const ProblemRecord& p = ps.base();
    report::Section s{p.title, {}};
    s.blocks.push_back(report::Paragraph{fmt::format(
        "{}. N = {} training and {} test examples, P = {} parameters, prior N(0, {}·I); {} epochs "
        "in "
        "minibatches of {} ({} iterations).",
        p.description, p.examples, p.test_examples, p.parameters, 1.0 / p.prior_precision, p.epochs,
        p.minibatch > 0 ? std::to_string(p.minibatch) : std::string("all examples"),
        p.iterations)});
    if (p.reference)
      s.blocks.push_back(report::Paragraph{"Exact posterior: " + p.reference->how + "."});
    s.blocks.push_back(summary_table(ps, run.timing));
    if (p.hmc) {
      s.blocks.push_back(hmc_diagnostics_table(ps));
      s.blocks.push_back(hmc_scores_table(ps));
    } else if (!p.hmc_absent.empty()) {
      s.blocks.push_back(report::Paragraph{"HMC reference: none — " + p.hmc_absent + "."});
    }
    for (const StudyVerdict& v : run.verdicts)
      if (v.problem == p.name) s.blocks.push_back(report_verdict(v, v.claim));
    Builder b{figures, s,
              ps.runs.size() > 1
                  ? fmt::format(" Drawn from the run of the base seed, {} (of {} seeds).",
                                ps.seeds.front(), ps.runs.size())
                  : std::string()};
    convergence_figures(p, b);
    marginal_figures(p, b);
    predictive_figures(p, b);
    approximation_figures(p, b);
    running_curvature_figures(p, b);
    r.sections.push_back(std::move(s));
  }
  return r;
}

// Draws every figure, two gnuplot processes per core at a time: a gnuplot run spends much of its
// time starting up and writing files, so one per core leaves the cores idle. Rethrows the first
// error after every worker has stopped.
void render_all(const std::vector<PlannedFigure>& figures, const fs::path& dir, int threads) {
  const std::size_t cores = threads > 0
                                ? static_cast<std::size_t>(threads)
                                : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < figures.size(); i = next++) {
      try {
        plot::render(figures[i].figure, dir / figures[i].stem);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = figures.size();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 0; k < std::min(figures.size(), 2 * cores); ++k) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

void write_study_folder(const StudyRun& run, const fs::path& out, int threads) {
  fs::create_directories(out / "plots");
  for (const ProblemSeeds& ps : run.problems)
    for (std::size_t k = 0; k < ps.runs.size(); ++k)
      for (const MethodRecord& m : ps.runs[k].methods) {
        const fs::path file = out / history_path(ps.runs[k].name, ps.seeds[k], m.name);
        fs::create_directories(file.parent_path());
        write_file_atomically(file, vi::history_csv(m.history));
      }
  write_json_file(out / "results.json", results_json(run));
  std::vector<PlannedFigure> figures;
  const report::Report r = build_report(run, figures);
  render_all(figures, out / "plots", threads);
  report::write_report(r, out);
}

}  // namespace ngvi::app::study
