// `ngvi verify` (see verify_command.hpp): runs the built-in problems, prints the table, writes
// the JSON report.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>
#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/io/staged_folder.hpp>
#include <app/plot/render.hpp>
#include <app/report/write_report.hpp>
#include <app/verify/verify_command.hpp>
#include <fmt/format.h>
#include <io/json_file.hpp>
#include <nlohmann/json.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/test_problems.hpp>
#include <autodiff/verify/verify.hpp>

namespace ngvi::app {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
namespace verify = ngvi::ad::verify;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

struct VerifyOptions {
  CommonOptions common;
  std::filesystem::path json;     // also write the report here; empty: don't
  std::vector<std::string> only;  // problems to run; empty: all
  bool verbose = false;           // print every comparison, not only failures and a summary
  bool no_timing = false;  // skip measuring microseconds per evaluation (e.g. for diffable output)
};

const std::vector<std::string> problem_names = {"rosenbrock", "logistic", "mlp", "special"};

struct Outcome {
  std::string problem;
  std::string description;
  Eigen::Index n = 0;
  double value = 0.0;
  double grad_norm = 0.0;
  double hess_min_eig = 0.0, hess_max_eig = 0.0;
  double grad_us = 0.0, hvp_us = 0.0, hess_us = 0.0, eval_us = 0.0;
  std::vector<verify::CheckReport> checks;
  bool passed() const {
    return std::all_of(checks.begin(), checks.end(),
                       [](const verify::CheckReport& c) { return c.passed; });
  }
};

// The individual comparisons of a report (a composite check lists them as parts).
std::vector<verify::CheckReport> parts_of(const verify::CheckReport& c) {
  return c.parts.empty() ? std::vector<verify::CheckReport>{c} : c.parts;
}

// Microseconds per call of f, repeating until 20 ms have passed.
template <class F>
double time_us(F&& f) {
  using clock = std::chrono::steady_clock;
  int reps = 1;
  for (;;) {
    const auto t0 = clock::now();
    for (int r = 0; r < reps; ++r) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 0.02 || reps >= (1 << 20)) return 1e6 * s / reps;
    reps *= 4;
  }
}

template <class Problem>
Outcome run_problem(const std::string& name, const std::string& description, const Problem& p,
                    const VectorXd& x, std::mt19937_64& rng, bool timing,
                    const std::function<VectorXd(const VectorXd&)>& grad_closed,
                    const std::function<MatrixXd(const VectorXd&)>& hess_closed) {
  auto f = [&p](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    return p(Vec<T>(v));
  };
  Outcome o;
  o.problem = name;
  o.description = description;
  o.n = x.size();
  VectorXd g;
  o.value = ad::value_and_gradient(f, x, g);
  o.grad_norm = g.norm();
  std::normal_distribution<double> normal;
  VectorXd v(x.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = normal(rng);
  const MatrixXd H = ad::hessian(f, x);
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(H, Eigen::EigenvaluesOnly);
  o.hess_min_eig = eig.eigenvalues().minCoeff();
  o.hess_max_eig = eig.eigenvalues().maxCoeff();

  if (timing) {
    o.eval_us = time_us([&] {
      volatile double s = p(x);
      (void)s;
    });
    o.grad_us = time_us([&] {
      VectorXd gg;
      ad::value_and_gradient(f, x, gg);
    });
    o.hvp_us = time_us([&] { VectorXd hv = ad::hvp(f, x, v); });
    o.hess_us = time_us([&] { MatrixXd HH = ad::hessian(f, x); });
  }

  o.checks.push_back(verify::check_gradient(f, x));
  o.checks.push_back(verify::check_hvp(f, x, v));
  o.checks.push_back(verify::check_hessian(f, x));
  if (grad_closed)
    o.checks.push_back(verify::compare(g, grad_closed(x), verify::tolerances::closed_form,
                                       "AD gradient vs closed form"));
  if (hess_closed)
    o.checks.push_back(verify::compare(H, hess_closed(x), verify::tolerances::closed_form,
                                       "AD Hessian vs closed form"));
  return o;
}

nlohmann::json to_json(const Outcome& o, bool timing) {
  nlohmann::json j;
  j["problem"] = o.problem;
  j["description"] = o.description;
  j["n"] = o.n;
  j["value"] = o.value;
  j["gradient_norm"] = o.grad_norm;
  j["hessian_eigenvalues"] = {{"min", o.hess_min_eig}, {"max", o.hess_max_eig}};
  if (timing)
    j["microseconds"] = {{"evaluate", o.eval_us},
                         {"gradient", o.grad_us},
                         {"hvp", o.hvp_us},
                         {"hessian", o.hess_us}};
  j["passed"] = o.passed();
  j["checks"] = nlohmann::json::array();
  for (const auto& c : o.checks)
    for (const auto& p : parts_of(c))
      j["checks"].push_back({{"what", p.what},
                             {"passed", p.passed},
                             {"max_abs_err", p.max_abs_err},
                             {"max_rel_err", p.max_rel_err},
                             {"worst_row", p.worst_row},
                             {"worst_col", p.worst_col},
                             {"computed", p.computed_at_worst},
                             {"reference", p.reference_at_worst},
                             {"tolerance", {{"rel", p.tol.rel}, {"abs", p.tol.abs}}}});
  return j;
}

std::vector<Outcome> run_all(const VerifyOptions& opt) {
  std::mt19937_64 rng(opt.common.seed);
  std::normal_distribution<double> normal;
  auto randn = [&](Eigen::Index r, Eigen::Index c) {
    MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = normal(rng);
    return m;
  };
  auto wanted = [&](const std::string& n) {
    return opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), n) != opt.only.end();
  };
  namespace vp = ngvi::ad::verify::problems;
  std::vector<Outcome> outcomes;
  if (wanted("rosenbrock")) {
    const VectorXd x = VectorXd::LinSpaced(10, -1.2, 1.0);
    outcomes.push_back(run_problem("rosenbrock", "Rosenbrock, 10 variables, scalar loop",
                                   vp::Rosenbrock{}, x, rng, !opt.no_timing,
                                   vp::Rosenbrock::gradient, vp::Rosenbrock::hessian));
  }
  if (wanted("logistic")) {
    vp::Logistic p{randn(569, 30), VectorXd(569)};
    const VectorXd w_true = 0.5 * randn(30, 1);
    std::uniform_real_distribution<double> unif;
    for (Eigen::Index i = 0; i < 569; ++i)
      p.y(i) = unif(rng) < 1.0 / (1.0 + std::exp(-(p.X.row(i).dot(w_true) + 0.2))) ? 1.0 : 0.0;
    const VectorXd theta = 0.1 * randn(31, 1);
    outcomes.push_back(run_problem(
        "logistic", "logistic regression, d = 30, N = 569, fused nodes", p, theta, rng,
        !opt.no_timing, [&](const VectorXd& t) { return p.gradient(t); },
        [&](const VectorXd& t) { return p.hessian(t); }));
  }
  if (wanted("mlp")) {
    vp::Mlp p{randn(100, 13), VectorXd(100), 10};
    for (Eigen::Index i = 0; i < 100; ++i)
      p.y(i) = std::tanh(p.X.row(i).sum() / 4.0) + 0.1 * normal(rng);
    const VectorXd theta = randn(151, 1) / std::sqrt(13.0);
    outcomes.push_back(run_problem("mlp", "13-10-1 tanh MLP, Gaussian NLL, N = 100, fused nodes", p,
                                   theta, rng, !opt.no_timing, nullptr, nullptr));
  }
  if (wanted("special")) {
    const VectorXd x = 0.8 * randn(6, 1);
    outcomes.push_back(run_problem("special",
                                   "lgamma, digamma, erf, atan2, hypot, logistic, log_sum_exp",
                                   vp::Special{}, x, rng, !opt.no_timing, nullptr, nullptr));
  }
  return outcomes;
}

void print_table(const std::vector<Outcome>& outcomes, const VerifyOptions& opt, bool all_passed) {
  fmt::print("{:<11} {:>4} {:>14} {:>11} {:>23}", "problem", "n", "value", "|gradient|",
             "Hessian eigenvalues");
  if (!opt.no_timing)
    fmt::print(" {:>9} {:>9} {:>9} {:>9}", "f us", "grad us", "hvp us", "hess us");
  fmt::print("  checks\n");
  for (const Outcome& o : outcomes) {
    std::size_t n_parts = 0, n_passed = 0;
    for (const auto& c : o.checks)
      for (const auto& p : parts_of(c)) {
        ++n_parts;
        n_passed += p.passed ? 1 : 0;
      }
    fmt::print("{:<11} {:>4} {:>14.6g} {:>11.4g} [{:>10.3g}, {:>10.3g}]", o.problem, o.n, o.value,
               o.grad_norm, o.hess_min_eig, o.hess_max_eig);
    if (!opt.no_timing)
      fmt::print(" {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f}", o.eval_us, o.grad_us, o.hvp_us, o.hess_us);
    fmt::print("  {}/{} passed\n", n_passed, n_parts);
  }
  fmt::print("\nVerification ({}):\n", all_passed ? "all checks passed" : "SOME CHECKS FAILED");
  for (const Outcome& o : outcomes) {
    fmt::print("- {} ({}):\n", o.problem, o.description);
    for (const auto& c : o.checks) {
      if (opt.verbose || !c.passed)
        fmt::print("    {}\n", c.to_string());
      else
        fmt::print("    [passed] {} (max rel err {:.2g})\n", c.what, c.max_rel_err);
    }
  }
}

// The report folder: verify.json, report.html/.md and plots/check_errors.{svg,png}, the largest
// relative error of every comparison on a log scale (an exact 0 is drawn at 1e-17).
// Every file is staged and published together at the end (StagedFolder): a failure leaves no
// new folder and no new file in an old one.
void write_report_folder(const std::vector<Outcome>& outcomes, const VerifyOptions& opt,
                         bool all_passed, const nlohmann::json& j) {
  StagedFolder folder(opt.common.out);
  const std::filesystem::path& out = folder.path();
  std::filesystem::create_directories(out / "plots");
  plot::LinePlot errors;
  errors.axes = {"Largest relative error of each comparison",
                 "comparison (in the order of the table)", "max relative error", false, true};
  report::Table table{
      "Every comparison: the largest relative error and the tolerance it is held to",
      {"problem", "comparison", "max rel error", "tolerance (rel, abs)", "result"},
      {}};
  for (const Outcome& o : outcomes) {
    plot::Series series{o.problem, {}, {}, plot::Style::lines_points, ""};
    for (const auto& c : o.checks)
      for (const auto& p : parts_of(c)) {
        series.x.push_back(static_cast<double>(series.x.size() + 1));
        series.y.push_back(std::max(p.max_rel_err, 1e-17));
        table.rows.push_back({o.problem, p.what, fmt::format("{:.2g}", p.max_rel_err),
                              fmt::format("{:.0e}, {:.0e}", p.tol.rel, p.tol.abs),
                              p.passed ? "passed" : "FAILED"});
      }
    errors.series.push_back(std::move(series));
  }
  plot::render(errors, out / "plots" / "check_errors");
  report::Table summary{
      "", {"problem", "n", "value", "|gradient|", "Hessian eigenvalues", "result"}, {}};
  for (const Outcome& o : outcomes)
    summary.rows.push_back({o.problem + " (" + o.description + ")", std::to_string(o.n),
                            fmt::format("{:.6g}", o.value), fmt::format("{:.4g}", o.grad_norm),
                            fmt::format("[{:.3g}, {:.3g}]", o.hess_min_eig, o.hess_max_eig),
                            o.passed() ? "passed" : "FAILED"});
  report::Report r;
  r.title = "ngvi verify: exact gradients, Hessian-vector products and Hessians";
  r.introduction = {{fmt::format(
      "Seed {}. Every built-in problem is differentiated by the AD engine (reverse mode for "
      "gradients, forward-over-reverse for Hessian-vector products and Hessians) and "
      "checked against finite differences, against another AD route and, where one "
      "exists, against the closed form. Overall: {}.",
      opt.common.seed, all_passed ? "all checks passed" : "SOME CHECKS FAILED")}};
  r.sections.push_back({"Summary", {summary}});
  r.sections.push_back({"Comparisons",
                        {report::Figure{"Largest relative error per comparison, by problem (log "
                                        "scale; an exact 0 is drawn at 1e-17)",
                                        "plots/check_errors.svg", "plots/check_errors.png"},
                         table}});
  io::write_json_file(out / "verify.json", j);
  report::write_report(r, out);
  folder.commit();
}

int run(const VerifyOptions& opt) {
  const ThreadLimit limit(opt.common.threads);
  require_existing_folder("--json", opt.json);
  require_writable_folder("--out", opt.common.out);  // before any check runs
  const std::vector<Outcome> outcomes = run_all(opt);
  const bool all_passed =
      std::all_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.passed(); });
  print_table(outcomes, opt, all_passed);

  nlohmann::json j;
  j["seed"] = opt.common.seed;
  j["all_passed"] = all_passed;
  j["problems"] = nlohmann::json::array();
  for (const Outcome& o : outcomes) j["problems"].push_back(to_json(o, !opt.no_timing));
  if (!opt.json.empty()) {
    io::write_json_file(opt.json, j);
    fmt::print("\nreport written to {}\n", opt.json.string());
  }
  if (!opt.common.out.empty()) {
    write_report_folder(outcomes, opt, all_passed, j);
    fmt::print("\nreport folder written: {} (verify.json, report.html, report.md, plots/)\n",
               opt.common.out.string());
  }
  return all_passed ? exit_code::ok : exit_code::failed;
}

}  // namespace

Subcommand add_verify_command(CLI::App& root) {
  auto opt = std::make_shared<VerifyOptions>();
  CLI::App* cmd =
      root.add_subcommand("verify",
                          "Exact gradients, Hessian-vector products and Hessians of built-in "
                          "models (Rosenbrock, logistic "
                          "regression, a tanh MLP, special functions), each checked against finite "
                          "differences, another AD route "
                          "and closed forms. Prints a table; exit code 1 if any check fails.");
  add_common_options(
      *cmd, opt->common,
      "folder to write verify.json into (created if missing); default: none, print only");
  cmd->add_option("--json", opt->json,
                  "also write the report as JSON to this file (atomically); default: none");
  cmd->add_option("--problem", opt->only, "run only these problems (repeatable); default: all four")
      ->check(CLI::IsMember(problem_names));
  cmd->add_flag("-v,--verbose", opt->verbose,
                "print every comparison, not only failures; default: off");
  cmd->add_flag("--no-timing", opt->no_timing,
                "skip the timing columns (microseconds per call); default: timings are measured");
  return Subcommand{cmd, [opt] { return run(*opt); }};
}

}  // namespace ngvi::app
