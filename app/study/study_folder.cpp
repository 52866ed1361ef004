// The study's report folder (study_folder.hpp): figures, history files, results.json, report.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <app/methods/method_info.hpp>
#include <app/plot/render.hpp>
#include <app/report/write_report.hpp>
#include <app/study/seed_statistics.hpp>
#include <app/study/study_folder.hpp>
#include <app/study/study_summary.hpp>
#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>
#include <io/atomic_write.hpp>
#include <io/json_file.hpp>

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
    section.blocks.push_back(report::Figure{caption + seed_note, "plots/" + stem + ".svg",
                                            "plots/" + stem + ".png", stem});
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
    if (skip_point_mass && method_info(m.name).laplace) continue;
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

// The problem's title without its parenthesis or its clause after a comma ("Bayesian linear
// regression (conjugate: …)" → "Bayesian linear regression"), so that a plot's title fits above
// it beside the legend.
std::string plot_title(const ProblemRecord& p) {
  return p.title.substr(0, std::min(p.title.find(" ("), p.title.find(",")));
}

// How the problem's ELBOs were computed, for captions.
std::string elbo_how(const ProblemRecord& p) { return "ELBO (" + p.elbo_how + ")"; }

// The methods whose curves lie on top of each other in this run (every history row's ELBO and
// test log-likelihood within summary_same_tolerance relative), with the reason where it is
// known (why_the_same, study_summary.hpp); empty when no two coincide.
std::string coincidence_note(const ProblemRecord& p) {
  auto same = [](double a, double b) {
    return a == b ||
           std::abs(a - b) <= summary_same_tolerance * std::max({1.0, std::abs(a), std::abs(b)});
  };
  std::string note;
  for (std::size_t i = 0; i < p.methods.size(); ++i)
    for (std::size_t j = i + 1; j < p.methods.size(); ++j) {
      const MethodRecord &a = p.methods[i], &c = p.methods[j];
      if (a.history.empty() || a.history.size() != c.history.size()) continue;
      bool all = true;
      for (std::size_t k = 0; k < a.history.size() && all; ++k)
        all = same(history_value(a.history[k], "elbo"), history_value(c.history[k], "elbo")) &&
              same(history_value(a.history[k], "test_log_likelihood"),
                   history_value(c.history[k], "test_log_likelihood"));
      if (!all) continue;
      const bool full = a.name == "von" && c.name == "vogn_full_ggn";
      const bool diagonal = a.name == "von_diagonal" && c.name == "vogn_ggn";
      const std::string why = full || diagonal ? why_the_same(p, diagonal) : std::string();
      note += fmt::format(
          " {}'s and {}'s curves coincide{}.", method_info(a.name).label, method_info(c.name).label,
          why.empty() ? " (their history rows agree to 1e-9 relative)" : ": " + why);
    }
  return note;
}

void convergence_figures(const ProblemRecord& p, Builder& b) {
  const std::string metric = "test_log_likelihood";
  const std::string coincide = coincidence_note(p);
  b.add(p.name + "_elbo_iterations",
        history_plot(p, "iteration", "elbo", plot_title(p) + ": ELBO", "iteration", "ELBO (nats)",
                     true),
        elbo_how(p) +
            " against iterations; MAP is a point mass (ELBO −∞) and is not drawn. A fit marked "
            "poor or diverged is clipped to the healthy curves' range." +
            coincide);
  b.add(p.name + "_elbo_seconds",
        history_plot(p, "seconds", "elbo", plot_title(p) + ": ELBO against time",
                     "seconds of fitting", "ELBO (nats)", true),
        "ELBO against the wall time of the steps (history evaluation excluded).");
  b.add(p.name + "_test_ll_iterations",
        history_plot(p, "iteration", metric, plot_title(p) + ": test log-likelihood", "iteration",
                     "test log-likelihood (nats per example)", false),
        "Test log-likelihood of the Monte-Carlo predictive (a few draws per row) against "
        "iterations; MAP's is the plug-in predictive of its point estimate." +
            coincide);
  b.add(p.name + "_test_ll_seconds",
        history_plot(p, "seconds", metric, plot_title(p) + ": test log-likelihood against time",
                     "seconds of fitting", "test log-likelihood (nats per example)", false),
        "Test log-likelihood against the wall time of the steps.");
}

// The report's names of approximation_names(), in its order.
constexpr const char* approximation_labels[] = {"GGN", "empirical Fisher", "MC Fisher (16 draws)",
                                                "K-FAC (expected)"};

void approximation_figures(const ProblemRecord& p, Builder& b) {
  const MethodRecord* map = nullptr;
  for (const MethodRecord& m : p.methods)
    if (!m.approximations.empty()) map = &m;
  if (!map) return;
  const auto& names = approximation_names();
  const char* colors[] = {"#d62728", "#ff9896", "#9467bd", "#e377c2"};
  plot::LinePlot err;
  err.axes = {plot_title(p) + ": curvature approximations vs the exact Hessian (MAP run)",
              "iteration",
              "‖A − H‖_F / ‖H‖_F",
              false,
              true,
              900,
              520};
  for (std::size_t a = 0; a < names.size(); ++a) {
    plot::Series s{approximation_labels[a], {}, {}, plot::Style::lines_points, colors[a]};
    for (const ApproximationPoint& q : map->approximations) {
      s.x.push_back(static_cast<double>(q.iteration));
      s.y.push_back(q.relative_error[a]);
    }
    err.series.push_back(std::move(s));
  }
  std::string exact;
  for (std::size_t a = 0; a < names.size(); ++a) {
    double worst = 0.0;
    for (const ApproximationPoint& q : map->approximations)
      worst = std::max(worst, q.relative_error[a]);
    if (worst <= exact_curvature_tolerance)
      exact += fmt::format("{}{} (at most {:.1e})", exact.empty() ? "" : ", ",
                           approximation_labels[a], worst);
  }
  b.add(p.name + "_approximation_error", err,
        "Relative Frobenius error of each approximation of the Hessian of Σᵢℓᵢ, at the MAP "
        "iterate of each history row (log scale)." +
            (exact.empty() ? std::string()
                           : " The curves at the bottom coincide at round-off: " + exact +
                                 " — for this model the approximation is the Hessian itself "
                                 "(a model linear in θ, or a GLM)."));
  for (std::size_t k = 0; k < map->spectra.size(); ++k) {
    const Spectra& sp = map->spectra[k];
    plot::LinePlot lp;
    lp.axes = {fmt::format("{}: spectra at iteration {}", plot_title(p), sp.iteration),
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
    // The Hessian's negative eigenvalues as |λ| at their rank, apart, so that the log scale
    // shows them; the approximations are positive semi-definite, their negative eigenvalues
    // round-off (the caption gives the largest |λ| of them relative to λ_max).
    const Eigen::VectorXd negative = sp.hessian.unaryExpr(
        [](double v) { return v < 0.0 ? -v : std::numeric_limits<double>::quiet_NaN(); });
    const Eigen::Index n_negative = (sp.hessian.array() < 0.0).count();
    lp.series.push_back(series("exact Hessian", sp.hessian, "#000000"));
    if (n_negative > 0) {
      plot::Series neg = series("exact Hessian, negative eigenvalues as |λ|", negative, "#000000");
      neg.style = plot::Style::points;
      lp.series.push_back(std::move(neg));
    }
    double roundoff = 0.0;
    for (std::size_t a = 0; a < names.size(); ++a) {
      const Eigen::VectorXd& ev = sp.approximations[a];
      if (ev.size() > 0 && ev.maxCoeff() > 0.0)
        roundoff = std::max(roundoff, std::max(0.0, -ev.minCoeff()) / ev.maxCoeff());
      lp.series.push_back(series(approximation_labels[a], ev, colors[a]));
    }
    b.add(fmt::format("{}_spectra_{}", p.name, k == 0 ? "start" : "end"), lp,
          fmt::format(
              "Eigenvalues of the exact Hessian and its approximations at iteration {} of "
              "the MAP run, log scale. The Hessian has {} negative eigenvalue{} of {}{}; "
              "the approximations are positive semi-definite by construction (their most "
              "negative eigenvalue is {:.1e} of their largest: round-off, not drawn).",
              sp.iteration, n_negative, n_negative == 1 ? "" : "s", sp.hessian.size(),
              n_negative > 0 ? ", drawn as points at |λ| (the black dots without a line)" : "",
              roundoff));
  }
}

void running_curvature_figures(const ProblemRecord& p, Builder& b) {
  plot::LinePlot err, scale;
  err.axes = {plot_title(p) + ": each method's running curvature vs the exact Hessian",
              "iteration",
              "‖diag C − diag H̄‖ / ‖diag H̄‖",
              false,
              true,
              900,
              520};
  scale.axes = {plot_title(p) + ": size of each method's running curvature",
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
        "the exact Hessian of the mean loss H̄ at the method's current mean (log scale)." +
            coincidence_note(p));
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
    // The test examples (drawn over the whole range, the gap included) and, where the problem
    // knows it, the noise-free function.
    const plot::Series test{
        "test data",
        std::vector<double>(p.test_inputs.data(), p.test_inputs.data() + p.test_inputs.size()),
        std::vector<double>(p.test_targets.data(), p.test_targets.data() + p.test_targets.size()),
        plot::Style::points, "#ff00ff"};
    const plot::Series truth{"true function", p.grid_x, p.grid_truth, plot::Style::lines,
                             "#000000"};
    for (const MethodRecord& m : p.methods) {
      if (!m.grid) continue;
      const MethodInfo& info = method_info(m.name);
      plot::BandPlot bp;
      bp.axes = {plot_title(p) + ": " + info.label, "x", "y", false, false, 720, 440};
      bp.bands.push_back(
          {info.label, p.grid_x,
           std::vector<double>(m.grid->mean.data(), m.grid->mean.data() + m.grid->mean.size()),
           std::vector<double>(m.grid->spread.data(),
                               m.grid->spread.data() + m.grid->spread.size()),
           info.color});
      bp.overlays.push_back(data);
      if (p.test_inputs.cols() == 1 && p.test_inputs.rows() > 0) bp.overlays.push_back(test);
      if (!p.grid_truth.empty()) bp.overlays.push_back(truth);
      b.add(p.name + "_predictive_" + m.name, bp,
            info.label + ": predictive mean ± 2 sd of y (" +
                (info.laplace ? "linearised GLM predictive" : "Monte Carlo") +
                "), the training data (grey), the test data (magenta, drawn over the whole range)" +
                (p.grid_truth.empty() ? std::string()
                                      : " and the true function (black, without the noise)") +
                "; the training inputs have no data in the gap around 0.");
    }
    return;
  }
  const Eigen::Index nx = static_cast<Eigen::Index>(p.grid_x.size());
  const Eigen::Index ny = static_cast<Eigen::Index>(p.grid_y.size());
  std::vector<plot::Series> classes(2);
  for (int c = 0; c < 2; ++c) {
    classes[static_cast<std::size_t>(c)] = {
        c == 0 ? "class 0 (magenta points)" : "class 1 (black points)",
        {},
        {},
        plot::Style::points,
        c == 0 ? "#ff00ff" : "#000000"};
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
      h.axes = {
          plot_title(p) + ": " + info.label + ", " + what, "x₁", "x₂", false, false, 900, 480};
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

// A regression without a plotting grid (Boston, the conjugate problem): each method's predictive
// mean against the target at every test example, and the coverage of its central intervals —
// the fraction of test targets inside mean ± z·sd, z = Φ⁻¹((1 + level)/2), the predictive taken
// as Gaussian with its mean and sd — against the level (calibrated: on the diagonal).
void test_predictive_figures(const ProblemRecord& p, Builder& b) {
  if (p.task != "regression" || !p.grid_x.empty() || p.test_targets.size() == 0) return;
  const Eigen::VectorXd& y = p.test_targets;
  const std::vector<double> targets(y.data(), y.data() + y.size());
  plot::LinePlot scatter, coverage;
  scatter.axes = {plot_title(p) + ": predictive mean against the test target",
                  "test target y",
                  "predictive mean E[y]",
                  false,
                  false,
                  900,
                  620};
  coverage.axes = {plot_title(p) + ": coverage of the central predictive intervals",
                   "nominal level of the central interval",
                   "fraction of test targets inside",
                   false,
                   false,
                   900,
                   620};
  std::vector<double> levels;
  for (int k = 1; k <= 19; ++k) levels.push_back(0.05 * k);
  levels.push_back(0.99);
  const boost::math::normal standard;
  std::string at_95;
  for (const MethodRecord& m : p.methods) {
    if (!m.test_predictive || m.test_predictive->mean.size() != y.size()) continue;
    const Eigen::VectorXd mean = m.test_predictive->mean.col(0);
    const Eigen::VectorXd sd = m.test_predictive->spread.col(0);
    if (m.name == "von" || m.name == "vogn_full_ggn" || m.name == "von_diagonal" ||
        m.name == "vogn_ggn" || m.name == "bayes_by_backprop" || m.name == "map_laplace")
      scatter.series.push_back(
          method_series(m, targets, std::vector<double>(mean.data(), mean.data() + mean.size()),
                        plot::Style::points));
    std::vector<double> inside;
    for (const double level : levels) {
      const double z = boost::math::quantile(standard, 0.5 + 0.5 * level);
      inside.push_back(((y - mean).array().abs() <= z * sd.array()).cast<double>().mean());
    }
    at_95 += fmt::format("{}{} {:.2f}", at_95.empty() ? "" : ", ", method_info(m.name).label,
                         inside[18]);
    coverage.series.push_back(method_series(m, levels, inside));
  }
  if (coverage.series.empty()) return;
  const auto [lo, hi] = std::minmax_element(targets.begin(), targets.end());
  scatter.series.push_back(
      {"mean = target", {*lo, *hi}, {*lo, *hi}, plot::Style::lines, "#000000"});
  coverage.series.push_back(
      {"calibrated (coverage = level)", {0.0, 1.0}, {0.0, 1.0}, plot::Style::lines, "#000000"});
  const std::string coincide = coincidence_note(p);
  b.add(p.name + "_predictive_vs_target", scatter,
        fmt::format("Predictive mean against the target at each of the {} test examples (original "
                    "units), full and diagonal VON and VOGN (GGN), Bayes-by-backprop and MAP + "
                    "Laplace (GLM predictive); on the black line the mean is the target.{}",
                    y.size(), coincide));
  b.add(p.name + "_coverage", coverage,
        "Coverage: the fraction of test targets inside each method's central predictive interval "
        "mean ± z·sd (the predictive taken as Gaussian with its mean and sd), against the "
        "interval's nominal level; a calibrated predictive lies on the black diagonal, an "
        "overconfident one below it. At the 95% level: " +
            at_95 + "." + coincide);
}

void marginal_figures(const ProblemRecord& p, Builder& b) {
  if (!p.reference || p.reference->marginal_x.empty()) return;
  const ReferencePosterior& ref = *p.reference;
  for (std::size_t j = 0; j < ref.marginal_x.size(); ++j) {
    const Eigen::VectorXd& x = ref.marginal_x[j];
    const std::string name =
        j < p.parameter_names.size() ? p.parameter_names[j] : fmt::format("θ{}", j);
    plot::LinePlot lp;
    lp.axes = {plot_title(p) + ": marginal of " + name, name, "density", false, false, 900, 480};
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
    b.add(fmt::format("{}_marginal_{}", p.name, name), lp,
          fmt::format("Posterior marginal of {}: exact ({}) against each method's Gaussian "
                      "marginal.{}",
                      name, ref.how, coincidence_note(p)));
  }
}

// The Monte-Carlo error of VON and diagonal VOGN at the fixed point against S (log-log), with
// the 1/√S line through S = 1 of each for comparison.
void sample_size_figure(const ProblemRecord& p, Builder& b) {
  if (p.sample_size.empty()) return;
  plot::LinePlot lp;
  lp.axes = {"Monte-Carlo error at the fixed point against S",
             "S, Monte-Carlo samples per step",
             "e(S) = √(mean KL(q(t) ‖ q*)), last half of the run",
             true,
             true,
             900,
             480};
  for (const SampleSizeRun& run : p.sample_size) {
    const MethodInfo& info = method_info(run.method);
    const std::vector<double> s(run.samples.begin(), run.samples.end());
    lp.series.push_back({info.label + (run.method == "von" ? " against the full optimum"
                                                           : " against the mean-field optimum"),
                         s, run.error, plot::Style::lines_points, info.color});
    std::vector<double> line;
    for (const double x : s) line.push_back(run.error.front() / std::sqrt(x));
    lp.series.push_back({lp.series.size() == 1 ? "1/√S through S = 1" : "", s, line,
                         plot::Style::lines, info.color});
  }
  b.add(p.name + "_sample_size", lp,
        fmt::format("The distance of VON's (full) and diagonal VOGN's (GGN) iterates from the "
                    "Gaussian VI optimum q* ({}) at the end of training, for S = 1, 4, 16 and 64 "
                    "samples per step: the root mean of KL(q_t ‖ q*) over the last half of the "
                    "iterations; the thin lines fall as 1/√S. The two methods' curves nearly "
                    "coincide: in the KL's units the iterates' spread is set by the step size, P "
                    "and S more than by the covariance family (for the conjugate problem's means, "
                    "about α P / (2 (2 − α) S) of KL at step size α).",
                    p.vi_optimum ? p.vi_optimum->how : std::string("?")));
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
                      m.name != "vogn_full_ggn" && !method_info(m.name).laplace &&
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
    const MethodRecord& m = p.methods[i];
    t.rows.push_back({method_info(m.name).label,
                      mean_sd(over_seeds(ps, i, score(&HmcScores::sd_log_ratio_median)), "{:.3g}") +
                          (m.subnetwork.empty() ? std::string()
                                                : fmt::format(" (its {} of {} parameters)",
                                                              m.subnetwork.size(), p.parameters)),
                      mean_sd(over_seeds(ps, i, score(&HmcScores::point_sd_log_ratio)), "{:.3g}"),
                      mean_sd(over_seeds(ps, i, score(&HmcScores::point_mean_error)), "{:.3g}"),
                      mean_sd(over_seeds(ps, i, [](const ProblemRecord&, const MethodRecord& x) {
                        return x.test_log_likelihood;
                      }))});
  }
  return t;
}

// VON with each remedy for an indefinite Hessian against the HMC reference, over the seeds
// (RemedyRun, study_records.hpp): how many finished, the steps taken and those on which the
// remedy fired, the test log-likelihood and the HMC scores of those that finished.
report::Table remedy_table(const ProblemSeeds& ps) {
  const ProblemRecord& p = ps.base();
  report::Table t;
  t.caption = fmt::format(
      "VON (full) with each remedy for an indefinite Hessian (the study's run: clip_eigenvalues; "
      "the others refitted with the remedy changed alone){}: steps taken and steps on which the "
      "remedy fired, the test log-likelihood, and against the HMC reference the median log "
      "sd-ratio, the log predictive sd-ratio at the points and the predictive mean's RMS "
      "difference (over the fits that finished; the median log sd-ratio compares parameters, "
      "in which the reference may not have converged — its diagnostics are above — while the "
      "columns at the points compare function values)",
      ps.runs.size() > 1 ? fmt::format(", mean ± sd over {} seeds", ps.runs.size()) : "");
  t.header = {"remedy",
              "finished (seeds)",
              "steps",
              "steps it fired on",
              "test log-lik.",
              "median log sd-ratio",
              "log predictive sd-ratio at the points",
              "predictive mean RMS difference"};
  for (std::size_t k = 0; k < p.remedy_runs.size(); ++k) {
    int finished = 0;
    std::vector<double> steps, fired, ll, sd, point_sd, point_mean;
    for (const ProblemRecord& r : ps.runs) {
      if (k >= r.remedy_runs.size()) continue;
      const RemedyRun& x = r.remedy_runs[k];
      finished += x.status == "finished" ? 1 : 0;
      steps.push_back(static_cast<double>(x.steps));
      std::int64_t n = 0;
      for (const auto& [name, count] : x.remedies) n = std::max(n, count);
      fired.push_back(static_cast<double>(n));
      ll.push_back(x.test_log_likelihood);
      sd.push_back(x.hmc_scores ? x.hmc_scores->sd_log_ratio_median : nan);
      point_sd.push_back(x.hmc_scores ? x.hmc_scores->point_sd_log_ratio : nan);
      point_mean.push_back(x.hmc_scores ? x.hmc_scores->point_mean_error : nan);
    }
    t.rows.push_back({p.remedy_runs[k].remedy, fmt::format("{} of {}", finished, ps.runs.size()),
                      mean_sd(steps, "{:.4g}"), mean_sd(fired, "{:.4g}"), mean_sd(ll),
                      mean_sd(sd, "{:.3g}"), mean_sd(point_sd, "{:.3g}"),
                      mean_sd(point_mean, "{:.3g}")});
  }
  return t;
}

// The colour of a continual run: its method's, but the no-prior control's own.
std::string continual_color(const ContinualRun& r) {
  return r.method == "vogn_full_ggn_no_prior" ? std::string("#393b79")
                                              : method_info(r.method).color;
}

// The lowest task-1 log-likelihood the continual figure shows: a forgotten task's can be
// hundreds of nats per example below the others, which would flatten every other curve.
constexpr double continual_plot_floor = -20.0;

// Task 1's test log-likelihood after each stage of the continual study, per method (the base
// seed's run).
void continual_figure(const ProblemRecord& p, Builder& b) {
  if (!p.continual || p.continual->runs.empty()) return;
  const ContinualStudy& c = *p.continual;
  plot::LinePlot lp;
  lp.axes = {"Continual learning: task 1 after each task",
             "tasks fitted so far",
             "task 1 test log-likelihood (nats per example)",
             false,
             false,
             900,
             480};
  bool clipped = false;
  double top = continual_plot_floor + 1.0;
  for (const ContinualRun& r : c.runs) {
    std::vector<double> x, y;
    for (std::size_t t = 0; t < r.test_log_likelihood.size(); ++t) {
      x.push_back(static_cast<double>(t + 1));
      y.push_back(r.test_log_likelihood[t][0]);
      clipped = clipped || y.back() < continual_plot_floor;
      if (std::isfinite(y.back())) top = std::max(top, y.back());
    }
    lp.series.push_back({r.label, x, y, plot::Style::lines_points, continual_color(r)});
  }
  if (clipped) {
    lp.axes.y_min = continual_plot_floor;
    lp.axes.y_max = top + 0.05 * (top - continual_plot_floor);
  }
  b.add(p.name + "_continual_task1", lp,
        fmt::format("Continual learning ({}): the test log-likelihood of task 1 under each "
                    "method's posterior after it has fitted tasks 1 to t, each stage starting "
                    "from the previous one's mean. The methods with the prior carried fit task t "
                    "with the posterior after task t − 1 as its prior (Nguyen, Li, Bui & Turner "
                    "2018); MAP and the no-prior control use N(0, δ⁻¹I) at every stage.{}",
                    c.description,
                    clipped ? fmt::format(" Values below {} are clipped.", continual_plot_floor)
                            : std::string()));
}

// Every task's test log-likelihood and RMSE after the last stage of the continual study, per
// method, mean ± sd over the seeds.
report::Table continual_table(const ProblemSeeds& ps) {
  const ContinualStudy& c = *ps.base().continual;
  const std::size_t tasks = c.intervals.size();
  report::Table t;
  t.caption = fmt::format(
      "Continual learning ({}): each task's test log-likelihood (nats per example) and RMSE "
      "after the last task, under each method's final posterior{} (a stage that did not finish "
      "leaves its seed out)",
      c.description,
      ps.runs.size() > 1 ? fmt::format(", mean ± sd over {} seeds", ps.runs.size()) : "");
  t.header = {"method", "stages finished (seeds)"};
  for (std::size_t j = 0; j < tasks; ++j)
    t.header.push_back(fmt::format("task {} test log-lik.", j + 1));
  for (std::size_t j = 0; j < tasks; ++j) t.header.push_back(fmt::format("task {} RMSE", j + 1));
  for (std::size_t k = 0; k < c.runs.size(); ++k) {
    int finished = 0;
    std::vector<std::vector<double>> ll(tasks), rmse(tasks);
    for (const ProblemRecord& r : ps.runs) {
      if (!r.continual || k >= r.continual->runs.size()) continue;
      const ContinualRun& x = r.continual->runs[k];
      bool all = x.status.size() == tasks;
      for (const std::string& st : x.status) all = all && st == "finished";
      finished += all ? 1 : 0;
      for (std::size_t j = 0; j < tasks; ++j) {
        ll[j].push_back(x.test_log_likelihood.back()[j]);
        rmse[j].push_back(x.test_rmse.back()[j]);
      }
    }
    std::vector<std::string> row = {c.runs[k].label,
                                    fmt::format("{} of {}", finished, ps.runs.size())};
    for (std::size_t j = 0; j < tasks; ++j) row.push_back(mean_sd(ll[j]));
    for (std::size_t j = 0; j < tasks; ++j) row.push_back(mean_sd(rmse[j], "{:.3g}"));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The hyperparameters learned from the evidence (evidence_study.hpp), per route over the seeds
// where both of its fits finished: each block's δ_b and τ, mean ± sd, and the test
// log-likelihood with δ and τ kept and learned, with their paired difference and its 95 %
// t-interval over the seeds.
report::Table evidence_table(const ProblemSeeds& ps) {
  const ProblemRecord& p = ps.base();
  report::Table t;
  t.caption = fmt::format(
      "Hyperparameters from the evidence, learned during one fit (`ngvi fit --hyperparameters "
      "evidence`), each route beside the same fit with the problem's δ = {:.4g}{} kept{}: the "
      "learned prior precision δ_b of each parameter block, the noise precision τ (standardised "
      "units), and the test log-likelihood (nats per example) of both fits with the paired "
      "difference learned − kept and its 95 % t-interval over the seeds",
      p.prior_precision,
      p.task == "regression" && p.noise_precision > 0.0
          ? fmt::format(" and τ = {:.4g}", p.noise_precision)
          : std::string(),
      ps.runs.size() > 1 ? fmt::format(", mean ± sd over {} seeds", ps.runs.size()) : "");
  t.header = {"route",         "finished (seeds)",   "learned δ_b per block",
              "learned τ",     "test log-lik. kept", "learned",
              "learned − kept"};
  for (std::size_t k = 0; k < p.evidence_runs.size(); ++k) {
    std::vector<const EvidenceRun*> runs;
    for (const ProblemRecord& r : ps.runs)
      if (k < r.evidence_runs.size() && r.evidence_runs[k].ok) runs.push_back(&r.evidence_runs[k]);
    const EvidenceRun& first = p.evidence_runs[k];
    std::string deltas;
    std::vector<double> tau, kept, learned, gain;
    for (const EvidenceRun* x : runs) {
      tau.push_back(x->noise_precision);
      kept.push_back(x->fixed.log_likelihood);
      learned.push_back(x->learned.log_likelihood);
      gain.push_back(x->learned.log_likelihood - x->fixed.log_likelihood);
    }
    if (!runs.empty())
      for (std::size_t b = 0; b < runs.front()->blocks.size(); ++b) {
        std::vector<double> d;
        for (const EvidenceRun* x : runs)
          d.push_back(x->prior_precisions(static_cast<Eigen::Index>(b)));
        deltas += fmt::format("{}{} ({}): {}", deltas.empty() ? "" : "; ", runs.front()->blocks[b],
                              runs.front()->block_sizes[b], mean_sd(d, "{:.3g}"));
      }
    std::string difference = "—";
    if (gain.size() > 1) {
      const SeedInterval g = t_interval(gain);
      difference = fmt::format("{} [{}, {}]", fmt_num(g.mean, "{:.3g}"), fmt_num(g.low, "{:.3g}"),
                               fmt_num(g.high, "{:.3g}"));
    } else if (gain.size() == 1) {
      difference = fmt_num(gain.front(), "{:.3g}");
    }
    t.rows.push_back({first.how, fmt::format("{} of {}", runs.size(), ps.runs.size()),
                      deltas.empty() ? "—" : deltas,
                      p.task == "regression" ? mean_sd(tau, "{:.3g}") : "—", mean_sd(kept),
                      mean_sd(learned), difference});
  }
  return t;
}

// What each Hessian approximation does to the posterior N(θ, (A + δI)⁻¹) at the first and the
// last point of the MAP run (approximation_posterior.hpp), mean ± sd over the seeds where the
// exact Hessian's H + δI is positive definite there.
report::Table posterior_error_table(const ProblemSeeds& ps) {
  report::Table t;
  t.caption =
      "Each approximation A of the Hessian as a posterior N(θ, (A + δI)⁻¹) at the MAP run's first "
      "and last history points, against N(θ, (H + δI)⁻¹) from the exact Hessian H where H + δI is "
      "positive definite: their KL divergence, and the mean over the first 20 test inputs of "
      "log σ²_A(x) − log σ²_H(x), the linearised predictive variances of the network output "
      "(0: the same; below 0: A's posterior too narrow in function space)";
  t.header = {"approximation", "‖A − H‖_F/‖H‖_F first",    "last", "KL first",
              "last",          "log variance ratio first", "last"};
  for (std::size_t a = 0; a < approximation_names().size(); ++a) {
    std::vector<double> v[6];
    for (const ProblemRecord& r : ps.runs)
      for (const MethodRecord& m : r.methods) {
        if (m.approximations.size() < 2) continue;
        const ApproximationPoint* ends[] = {&m.approximations.front(), &m.approximations.back()};
        for (int e = 0; e < 2; ++e) {
          v[e].push_back(ends[e]->relative_error[a]);
          v[2 + e].push_back(ends[e]->posterior_kl[a]);
          v[4 + e].push_back(ends[e]->predictive_log_variance_ratio[a]);
        }
      }
    t.rows.push_back({approximation_labels[a], mean_sd(v[0], "{:.3g}"), mean_sd(v[1], "{:.3g}"),
                      mean_sd(v[2], "{:.3g}"), mean_sd(v[3], "{:.3g}"), mean_sd(v[4], "{:.3g}"),
                      mean_sd(v[5], "{:.3g}")});
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

// The id of a problem's section and of the i-th verdict, the targets of the summary's links.
std::string problem_id(const std::string& problem) { return "problem-" + problem; }
std::string verdict_id(std::size_t i) { return fmt::format("verdict-{}", i + 1); }

// The figure a verdict rests on (its stem, which is its id), from what its statistic measures;
// empty when it rests on a table (the scores against HMC) or on no figure of the problem.
std::string verdict_figure(const StudyVerdict& v, const ProblemRecord& p) {
  const std::string what = v.claim + " | " + v.statistic_name;
  auto has = [&](const char* s) { return what.find(s) != std::string::npos; };
  if (has("in-between")) return p.name + "_predictive_von_diagonal";
  if (has("sd_HMC")) return "";
  if (has("‖A − H‖_F") || has("relative Frobenius error")) return p.name + "_approximation_error";
  if (has("from h₀")) return p.name + "_running_scale";
  if (has("on log S")) return p.name + "_sample_size";
  if (has("task 1's test log-likelihood")) return p.name + "_continual_task1";
  if (has("diag h") || has("relative error of the diagonal")) return p.name + "_running_curvature";
  if (has("ELBO")) return p.name + "_elbo_iterations";
  if (has("exact posterior") || has("mean-field optimum")) {
    if (!p.reference || p.reference->marginal_x.empty()) return "";
    return fmt::format("{}_marginal_{}", p.name,
                       p.parameter_names.empty() ? std::string("θ0") : p.parameter_names.front());
  }
  return "";
}

// "4 confirmed, 1 refuted, 2 inconclusive" of the findings and "2 checks passed" of the checks
// among `verdicts` (those of `problem`, when given).
std::string tally(const std::vector<StudyVerdict>& verdicts, const std::string& problem = "") {
  int findings = 0, confirmed = 0, inconclusive = 0, checks = 0, passed = 0;
  for (const StudyVerdict& v : verdicts) {
    if (!problem.empty() && v.problem != problem) continue;
    const bool check = v.kind == ClaimKind::check;
    (check ? checks : findings) += 1;
    (check ? passed : confirmed) += v.confirmed ? 1 : 0;
    inconclusive += !check && v.inconclusive ? 1 : 0;
  }
  std::string out = fmt::format("{} finding{}", findings, findings == 1 ? "" : "s");
  if (findings > 0)
    out += fmt::format(" ({} confirmed, {} refuted, {} inconclusive)", confirmed,
                       findings - confirmed - inconclusive, inconclusive);
  out += fmt::format(", {} sanity check{}", checks, checks == 1 ? "" : "s");
  if (checks > 0) out += passed == checks ? " (all passed)" : fmt::format(" ({} passed)", passed);
  return out;
}

// "Two moons: …": the problem's VON-against-VOGN comparisons (study_summary.hpp), the pairs that
// are one method on this problem in one sentence with the reason, then how often VON's remedy
// for an indefinite Hessian fired and the problem's tally of verdicts.
report::Item problem_summary(const ProblemSeeds& ps, const std::vector<StudyVerdict>& verdicts) {
  const ProblemRecord& p = ps.base();
  const std::vector<PairedDifference> comparisons = von_vogn_comparisons(ps);
  std::string text = p.title + ". ";
  for (const char* a : {"von", "von_diagonal"}) {
    std::vector<const PairedDifference*> pair;
    for (const PairedDifference& d : comparisons)
      if (d.a == a) pair.push_back(&d);
    if (pair.empty()) continue;
    const bool all_same = std::all_of(pair.begin(), pair.end(), [](const PairedDifference* d) {
      return d->same && d->left_out.empty();
    });
    if (all_same) {
      std::string what;
      for (const PairedDifference* d : pair)
        what += (what.empty() ? "" : ", ") + std::string(summary_statistic_text(d->statistic));
      const std::string why = why_the_same(p, std::string(a) == "von_diagonal");
      text += fmt::format(
          "{} VON and {} VOGN (GGN) are the same on all {} seeds ({}; within 1e-9 "
          "relative){}. ",
          a == std::string("von") ? "Full" : "Diagonal",
          a == std::string("von") ? "full" : "diagonal", pair.front()->seeds_total, what,
          why.empty() ? "" : ": " + why);
      continue;
    }
    for (const PairedDifference* d : pair) {
      std::string sentence = describe(*d);
      sentence.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
      text += sentence + " ";
    }
  }
  std::string uses, names;
  for (const char* m : {"von", "von_diagonal"}) {
    bool present = false;
    for (const MethodRecord& x : p.methods) present = present || x.name == m;
    if (!present) continue;
    const RemedyUse u = remedy_use(ps, m);
    uses += (uses.empty() ? "" : "; ") + describe(u);
    for (const std::string& r : u.remedies)
      if (names.find(r) == std::string::npos) names += (names.empty() ? "" : ", ") + r;
  }
  if (!uses.empty())
    text += "VON's remedy for an indefinite Hessian" + (names.empty() ? "" : " (" + names + ")") +
            " fired on: " + uses + ". ";
  text += "Verdicts: " + tally(verdicts, p.name) + ".";
  return {text, "→ section", problem_id(p.name)};
}

// The report's opening: what VON against VOGN came to on each problem, computed from the
// numbers (study_summary.hpp), with links to the problems' sections where the verdicts stand.
report::Section summary_section(const StudyRun& run) {
  report::Section s{"Summary: VON against VOGN", {}, "summary"};
  // The short answer: for each pair and number, the problems each verdict word came out on.
  std::map<std::string, std::map<SummaryStatistic, std::map<std::string, std::string>>> words;
  for (const ProblemSeeds& ps : run.problems)
    for (const PairedDifference& d : von_vogn_comparisons(ps)) {
      std::string& problems = words[d.a][d.statistic][d.verdict()];
      problems += (problems.empty() ? "" : ", ") + d.problem;
    }
  std::string answer;
  for (const char* pair : {"von", "von_diagonal"}) {
    if (!words.contains(pair)) continue;
    const bool full = pair == std::string("von");
    answer += fmt::format(" {} VON against {} VOGN (GGN) —", full ? "Full" : "Diagonal",
                          full ? "full" : "diagonal");
    std::string per_statistic;
    for (const auto& [statistic, by_word] : words[pair]) {
      std::string counts;
      for (const auto& [word, problems] : by_word)
        counts += (counts.empty() ? "" : "; ") + fmt::format("{} on {}", word, problems);
      std::string what = summary_statistic_text(statistic);
      if (!per_statistic.empty())
        what.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(what.front())));
      per_statistic += fmt::format("{} {}: {}", per_statistic.empty() ? "" : ".", what, counts);
    }
    answer += per_statistic + ".";
  }
  s.blocks.push_back(report::Paragraph{fmt::format(
      "VON − VOGN paired by seed (same data, initial weights and draws), like with like, each "
      "decided by whether the 95% t-interval of the mean difference over the seeds excludes 0; "
      "per number, the problems each answer came out on.{} A seed is left out of a comparison "
      "when either fit is poor or diverged, and of a comparison against HMC when its reference "
      "did not converge. Per problem:",
      answer)});
  report::List items;
  for (const ProblemSeeds& ps : run.problems)
    items.items.push_back(problem_summary(ps, run.verdicts));
  s.blocks.push_back(std::move(items));
  s.blocks.push_back(report::Paragraph{fmt::format(
      "Over all problems: {}. Each verdict stands once, in its problem's section, beside the plot "
      "or table it rests on.",
      tally(run.verdicts))});
  return s;
}

// Fits that are not healthy (fit_health.hpp) and HMC references that did not converge, per
// problem, with links to the problems' sections.
report::Section failures_section(const StudyRun& run) {
  report::Section s{"Failures", {}, "failures"};
  s.blocks.push_back(report::Paragraph{
      "A fit is diverged when the fit loop stopped it (a non-finite value or a runaway loss) or "
      "its "
      "test log-likelihood is not finite, poor when its test log-likelihood is below the no-skill "
      "predictive's (which ignores the inputs); an HMC reference is not converged when its max "
      "R-hat exceeds " +
      fmt::format("{}", hmc_rhat_threshold) +
      ". No finding rests on either silently: the verdicts that involve one say so."});
  report::List items;
  for (const ProblemSeeds& ps : run.problems) {
    const ProblemRecord& p = ps.base();
    for (std::size_t i = 0; i < p.methods.size(); ++i) {
      std::string bad;
      int n = 0;
      for (std::size_t k = 0; k < ps.runs.size(); ++k) {
        const MethodRecord& m = ps.runs[k].methods[i];
        if (m.health == "ok") continue;
        ++n;
        const std::string why =
            m.health == "poor"
                ? fmt::format("test log-likelihood {:.4g} < the no-skill {:.4g}",
                              m.test_log_likelihood, ps.runs[k].no_skill_log_likelihood)
                : m.health_reason;
        bad +=
            fmt::format("{}seed {} {} ({})", bad.empty() ? "" : "; ", ps.seeds[k], m.health, why);
      }
      if (n > 0)
        items.items.push_back(
            {fmt::format("{}: {} — not healthy on {} of {} seeds: {}.", p.title,
                         method_info(p.methods[i].name).label, n, ps.runs.size(), bad),
             "→ section", problem_id(p.name)});
    }
    std::string unconverged;
    int n = 0, points_converged = 0;
    for (std::size_t k = 0; k < ps.runs.size(); ++k)
      if (const auto& h = ps.runs[k].hmc; h && !h->converged) {
        ++n;
        points_converged += h->converged_points ? 1 : 0;
        unconverged += fmt::format(
            "{}seed {} (max R-hat {:.3f}, min bulk-ESS {:.0f}; at the evaluation points max R-hat "
            "{:.4f}{})",
            unconverged.empty() ? "" : ", ", ps.seeds[k], h->max_rhat, h->min_ess_bulk,
            h->max_rhat_points, h->converged_points ? ", converged" : ", not converged");
      }
    if (n > 0)
      items.items.push_back(
          {fmt::format("{}: the HMC reference did not converge in its parameters on {} of {} "
                       "seeds: {}. {}.",
                       p.title, n, ps.runs.size(), unconverged,
                       points_converged > 0
                           ? fmt::format("No finding on the parameters' marginals rests on those "
                                         "seeds; a finding on the predictive at the evaluation "
                                         "points uses the {} of them whose function values "
                                         "converged",
                                         points_converged)
                           : std::string("No finding rests on those seeds")),
           "→ section", problem_id(p.name)});
  }
  if (items.items.empty())
    s.blocks.push_back(
        report::Paragraph{"None: every fit is healthy and every HMC reference converged."});
  else
    s.blocks.push_back(std::move(items));
  return s;
}

// One line when every check passed, else the failed ones, linked to where they stand.
report::Section checks_section(const StudyRun& run) {
  report::Section s{"Sanity checks", {}, "checks"};
  int checks = 0;
  report::List failed;
  for (std::size_t i = 0; i < run.verdicts.size(); ++i) {
    const StudyVerdict& v = run.verdicts[i];
    if (v.kind != ClaimKind::check) continue;
    ++checks;
    if (!v.confirmed)
      failed.items.push_back(
          {fmt::format("FAILED: {}: {}.", v.problem, v.claim), "→ the check", verdict_id(i)});
  }
  const std::string what = fmt::format(
      "{} sanity check{} (identities that hold by construction: the GGN of a model linear in θ "
      "is its Hessian, VON's fixed point on the conjugate problem is the exact posterior{})",
      checks, checks == 1 ? "" : "s", run.seeds.size() > 1 ? "; required on every seed" : "");
  if (failed.items.empty()) {
    s.blocks.push_back(report::Paragraph{
        fmt::format("All {} passed; each stands in its problem's section.", what)});
  } else {
    s.blocks.push_back(
        report::Paragraph{fmt::format("{} of the {} failed:", failed.items.size(), what)});
    s.blocks.push_back(std::move(failed));
  }
  return s;
}

// A problem's section: its description and tables, then its figures, each verdict right after
// the figure it rests on (verdict_figure) and those that rest on a table after the tables.
report::Section problem_section(const StudyRun& run, const ProblemSeeds& ps,
                                std::vector<PlannedFigure>& figures) {
  const ProblemRecord& p = ps.base();
  report::Section s{p.title, {}, problem_id(p.name)};
  s.blocks.push_back(report::Paragraph{fmt::format(
      "{}. N = {} training and {} test examples, P = {} parameters, prior N(0, {}·I); {} epochs in "
      "minibatches of {} ({} iterations). Verdicts: {}, each beside the plot or table it rests on.",
      p.description, p.examples, p.test_examples, p.parameters, 1.0 / p.prior_precision, p.epochs,
      p.minibatch > 0 ? std::to_string(p.minibatch) : std::string("all examples"), p.iterations,
      tally(run.verdicts, p.name))});
  if (p.reference)
    s.blocks.push_back(report::Paragraph{"Exact posterior: " + p.reference->how + "."});
  if (!ps.not_evaluated.empty()) {
    s.blocks.push_back(report::Paragraph{
        fmt::format("Not evaluated on this problem ({} of the study's kinds of claim), and why:",
                    ps.not_evaluated.size())});
    report::List items;
    for (const FindingNotEvaluated& f : ps.not_evaluated)
      items.items.push_back({f.finding + ": " + f.reason + ".", "", ""});
    s.blocks.push_back(std::move(items));
  }
  s.blocks.push_back(summary_table(ps, run.timing));
  if (p.hmc) {
    s.blocks.push_back(hmc_diagnostics_table(ps));
    s.blocks.push_back(hmc_scores_table(ps));
    if (!p.remedy_runs.empty()) s.blocks.push_back(remedy_table(ps));
  } else if (!p.hmc_absent.empty()) {
    s.blocks.push_back(report::Paragraph{"HMC reference: none — " + p.hmc_absent + "."});
  }
  if (p.continual) s.blocks.push_back(continual_table(ps));
  if (!p.evidence_runs.empty()) s.blocks.push_back(evidence_table(ps));
  if (!p.curvature_absent.empty())
    s.blocks.push_back(report::Paragraph{"Curvature analyses against the exact Hessian: none — " +
                                         p.curvature_absent + "."});
  for (const MethodRecord& m : p.methods)
    if (m.approximations.size() >= 2) s.blocks.push_back(posterior_error_table(ps));
  report::Section drawn{"", {}};
  Builder b{figures, drawn,
            ps.runs.size() > 1
                ? fmt::format(" Drawn from the run of the base seed, {} (of {} seeds).",
                              ps.seeds.front(), ps.runs.size())
                : std::string()};
  convergence_figures(p, b);
  marginal_figures(p, b);
  sample_size_figure(p, b);
  continual_figure(p, b);
  predictive_figures(p, b);
  test_predictive_figures(p, b);
  approximation_figures(p, b);
  running_curvature_figures(p, b);
  // Verdicts by the figure they rest on; those whose figure is not drawn go after the tables.
  std::map<std::string, std::vector<report::Verdict>> by_figure;
  std::map<std::string, std::string> figure_text;
  for (const report::Block& block : drawn.blocks)
    if (const auto* f = std::get_if<report::Figure>(&block)) figure_text[f->id] = f->id;
  for (std::size_t i = 0; i < run.verdicts.size(); ++i) {
    const StudyVerdict& v = run.verdicts[i];
    if (v.problem != p.name) continue;
    report::Verdict r = report_verdict(v, v.claim);
    r.id = verdict_id(i);
    const std::string fig = verdict_figure(v, p);
    if (figure_text.contains(fig)) {
      r.figure_id = fig;
      r.figure_text = fig;
      by_figure[fig].push_back(std::move(r));
    } else {
      s.blocks.push_back(std::move(r));
    }
  }
  for (report::Block& block : drawn.blocks) {
    const auto* f = std::get_if<report::Figure>(&block);
    const std::string id = f ? f->id : std::string();
    s.blocks.push_back(std::move(block));
    for (report::Verdict& v : by_figure[id]) s.blocks.push_back(std::move(v));
  }
  return s;
}

report::Report build_report(const StudyRun& run, std::vector<PlannedFigure>& figures) {
  report::Report r;
  r.title = "ngvi study: natural-gradient variational inference on built-in problems";
  const std::string seeds =
      run.seeds.size() == 1
          ? fmt::format("from the same seed ({})", run.seeds.front())
          : fmt::format(
                "from each of {} seeds ({}–{}; every method from the same seed within a "
                "run)",
                run.seeds.size(), run.seeds.front(), run.seeds.back());
  r.introduction.push_back({fmt::format(
      "Every method was fitted to every problem {}{}, through the library's one fit loop "
      "(vi::fit). The summary below answers VON against VOGN from those numbers; then come the "
      "fits that failed, the sanity checks, the methods, and one section per problem with its "
      "tables, plots and verdicts (findings from the literature, each decided {}against a "
      "threshold and margin fixed in advance).{} All numbers are in results.json beside this page "
      "(schema in app/study/README.md of the source tree), each fit's history in "
      "history/<problem>/seed_<seed>/<method>.csv, every plot as SVG and PNG in plots/.",
      seeds, run.quick ? " in the short --quick version" : "",
      run.seeds.size() == 1 ? "on the one seed "
                            : "by the 95% t-interval of its statistic's mean "
                              "over the seeds ",
      run.timing ? fmt::format(" The fits and their measurements took {:.1f} s.", run.seconds)
                 : std::string())});
  r.sections.push_back(summary_section(run));
  r.sections.push_back(failures_section(run));
  r.sections.push_back(checks_section(run));

  report::Section methods{"Methods", {}, "methods"};
  report::Table mt{"", {"method", "what it is"}, {}};
  for (const MethodInfo& m : study_methods()) mt.rows.push_back({m.label, m.what});
  methods.blocks.push_back(mt);
  methods.blocks.push_back(report::Paragraph{
      "Every method starts from the same network weights (the model's initialisation from the "
      "seed) "
      "and sees the same number of iterations with the same minibatch size on a problem. The "
      "full-covariance methods are left out where P×P work per step would dominate the run."});
  r.sections.push_back(std::move(methods));

  for (const ProblemSeeds& ps : run.problems)
    r.sections.push_back(problem_section(run, ps, figures));
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
        io::write_file_atomically(file, vi::history_csv(m.history));
      }
  io::write_json_file(out / "results.json", results_json(run));
  std::vector<PlannedFigure> figures;
  const report::Report r = build_report(run, figures);
  render_all(figures, out / "plots", threads);
  report::write_report(r, out);
}

}  // namespace ngvi::app::study
