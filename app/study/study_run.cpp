// study::run (study_run.hpp): the seeds, the problems side by side, the verdicts, the folder.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/io/staged_folder.hpp>
#include <app/plot/gnuplot.hpp>
#include <app/study/finding_coverage.hpp>
#include <app/study/study_folder.hpp>
#include <app/study/study_run.hpp>
#include <app/study/study_verdicts.hpp>
#include <fmt/format.h>
#include <oneapi/tbb/task_group.h>

namespace ngvi::app::study {
namespace {

// Fits the problem from every seed, the seeds in parallel (each fit's own work is split the same
// way whatever runs beside it, so the records are the same bits for any thread count); only the
// base seed's fits draw a progress bar.
ProblemSeeds run_seeds_of(const ProblemRunner& problem, const StudySettings& settings,
                          const std::vector<std::uint64_t>& seeds) {
  ProblemSeeds ps;
  ps.seeds = seeds;
  ps.user_problem = problem.user_problem;
  ps.runs.resize(seeds.size());
  tbb::task_group group;
  for (std::size_t k = 0; k < seeds.size(); ++k)
    group.run([&, k] {
      StudySettings s = settings;
      s.seed = seeds[k];
      s.progress = k == 0;
      ps.runs[k] = problem.run(s);
    });
  group.wait();
  return ps;
}

}  // namespace

std::vector<std::uint64_t> run_seeds(std::uint64_t base, int seeds, bool quick) {
  if (seeds < 0)
    throw std::invalid_argument(
        fmt::format("ngvi::app::study::run_seeds: seeds must be at least 0, got {}", seeds));
  const int n = seeds > 0 ? seeds : quick ? 3 : 5;
  if (base > std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(n - 1))
    throw std::invalid_argument(
        fmt::format("ngvi::app::study::run_seeds: base seed {} with {} seeds: the last, base + "
                    "{}, exceeds {}",
                    base, n, n - 1, std::numeric_limits<std::uint64_t>::max()));
  std::vector<std::uint64_t> out;
  for (int k = 0; k < n; ++k) out.push_back(base + static_cast<std::uint64_t>(k));
  return out;
}

int run_study(const std::vector<ProblemRunner>& problems, const RunOptions& options,
              const StudySettings& settings) {
  const auto t0 = std::chrono::steady_clock::now();
  const ThreadLimit limit(options.threads);
  const std::vector<std::uint64_t> seeds = run_seeds(options.seed, options.seeds, options.quick);
  require_writable_folder("--out", options.out);  // before any fitting
  plot::find_gnuplot();  // a missing gnuplot fails now (exit 1), not after minutes of fitting

  StudyRun run;
  run.seeds = seeds;
  run.quick = options.quick;
  run.timing = options.timing;
  bool all_ok = true;
  for (const ProblemRunner& problem : problems) {
    const auto p0 = std::chrono::steady_clock::now();
    run.problems.push_back(run_seeds_of(problem, settings, seeds));
    const ProblemSeeds& ps = run.problems.back();
    std::string failed, poor;
    for (std::size_t k = 0; k < ps.runs.size(); ++k)
      for (const MethodRecord& m : ps.runs[k].methods) {
        const std::string which =
            seeds.size() > 1 ? fmt::format(" {} (seed {})", m.name, seeds[k]) : " " + m.name;
        if (m.status == "failed") {
          failed += which;
          all_ok = false;
        } else if (m.health != "ok") {
          poor += which;
        }
      }
    const ProblemRecord& p = ps.base();
    fmt::print(
        "{:<27} P = {:<4} {} methods × {} seed{}, {} iterations each, {:.1f} s{}{}\n", problem.name,
        p.parameters, p.methods.size(), seeds.size(), seeds.size() == 1 ? "" : "s", p.iterations,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count(),
        failed.empty() ? "" : "; FAILED:" + failed, poor.empty() ? "" : "; poor fits:" + poor);
    if (problem.user_problem)
      fmt::print("  {} training and {} test examples; exact posterior: {}; HMC reference: {}\n",
                 p.examples, p.test_examples, p.reference ? p.reference->how : "none",
                 p.hmc ? fmt::format("{} chains × ({} + {}), max R-hat {:.4g}{}", p.hmc->chains,
                                     p.hmc->warmup, p.hmc->draws, p.hmc->max_rhat,
                                     p.hmc->converged ? "" : " (not converged)")
                       : p.hmc_absent);
    std::fflush(stdout);
  }
  run.verdicts = study_verdicts(run.problems);
  for (ProblemSeeds& ps : run.problems)
    if (ps.user_problem) ps.not_evaluated = findings_not_evaluated(ps, run.verdicts);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  StagedFolder folder(options.out);  // every file appears at the end, or none
  write_study_folder(run, folder.path(), options.threads);
  folder.commit();

  fmt::print("\nVerdicts{}:\n",
             seeds.size() > 1
                 ? fmt::format(" over {} seeds ({}–{})", seeds.size(), seeds.front(), seeds.back())
                 : std::string());
  for (const StudyVerdict& v : run.verdicts)
    fmt::print(
        "  [{}] {}: {} ({} of {} seed{} hold{})\n",
        v.kind == ClaimKind::check ? (v.confirmed ? "check passed" : "check FAILED") : v.status(),
        v.problem, v.claim, v.seeds_holding, v.seeds, v.seeds == 1 ? "" : "s",
        v.seeds_holding == 1 ? "s" : "");
  for (const ProblemSeeds& ps : run.problems)
    if (!ps.not_evaluated.empty()) {
      fmt::print("\nNot evaluated on {}:\n", ps.base().name);
      for (const FindingNotEvaluated& f : ps.not_evaluated)
        fmt::print("  - {}: {}\n", f.finding, f.reason);
    }
  fmt::print("\nreport folder written: {} (open {} in a browser; numbers in results.json)\n",
             options.out.string(), (options.out / "report.html").string());
  if (!all_ok)
    fmt::print(stderr, "ngvi study: error: some fits failed numerically (see the report)\n");
  return all_ok ? exit_code::ok : exit_code::failed;
}

int run(const std::vector<Problem>& problems, const RunOptions& options) {
  std::set<std::string> names;
  std::vector<ProblemRunner> runners;
  for (const Problem& p : problems) {
    check_problem(p);
    if (!names.insert(p.name).second)
      throw std::invalid_argument("ngvi::app::study::run: two problems are named '" + p.name + "'");
    runners.push_back({p.name, [&p](const StudySettings& s) { return run_problem(p, s); }, true});
  }
  StudySettings settings;
  settings.quick = options.quick;
  return run_study(runners, options, settings);
}

}  // namespace ngvi::app::study
