// `ngvi study` (study_command.hpp): options, the checks made before fitting, the run, the folder.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <app/io/atomic_write.hpp>
#include <app/io/staged_folder.hpp>
#include <app/plot/gnuplot.hpp>
#include <app/study/study_command.hpp>
#include <app/study/study_folder.hpp>
#include <app/study/study_problems.hpp>
#include <app/study/study_verdicts.hpp>
#include <fmt/format.h>
#include <oneapi/tbb/task_group.h>

namespace ngvi::app {
namespace {

namespace fs = std::filesystem;

// --seeds at most: a hundred runs of every fit is already far beyond what the verdicts need.
constexpr int max_seeds = 100;

struct StudyOptions {
  CommonOptions common{.out = "ngvi-study"};
  bool quick = false;             // the short version (seconds), as the tests run it
  int seeds = 0;                  // seeds to run each problem from; 0: the default (5, --quick 3)
  bool no_timing = false;         // leave wall times out of results.json (byte-comparable runs)
  std::vector<std::string> only;  // problems to run; empty: all
  fs::path boston;                // Boston housing folder; empty: the copy shipped with ngvi
};

// Where the shipped Boston housing data are: installed beside the tool (<prefix>/share/ngvi/...)
// or in the source tree the tool was built from.
std::vector<fs::path> boston_candidates() {
  std::vector<fs::path> c;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) c.push_back(exe.parent_path().parent_path() / "share/ngvi/data/uci/bostonHousing");
  c.push_back(fs::path(NGVI_SOURCE_DATA_DIR) / "uci/bostonHousing");
  return c;
}

fs::path locate_boston(const StudyOptions& opt) {
  if (!opt.boston.empty()) {
    if (!fs::is_regular_file(opt.boston / "data.txt"))
      throw UsageError("--boston " + opt.boston.string() +
                       ": not a UCI data folder (it has no data.txt)");
    return opt.boston;
  }
  std::string looked;
  for (const fs::path& p : boston_candidates()) {
    if (fs::is_regular_file(p / "data.txt")) return p;
    looked += (looked.empty() ? "" : ", ") + p.string();
  }
  throw UsageError("the Boston housing data shipped with ngvi were not found (looked in " + looked +
                   "); pass --boston DIR, or leave the problem out with --problem");
}

// The seeds of the run: --seed, --seed + 1, … (--seeds of them, default 5; --quick 3).
std::vector<std::uint64_t> run_seeds(const StudyOptions& opt) {
  const int n = opt.seeds > 0 ? opt.seeds : opt.quick ? 3 : 5;
  const std::uint64_t base = opt.common.seed;
  if (base > std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(n - 1))
    throw UsageError(
        fmt::format("--seed {} with --seeds {}: the last seed, --seed + {}, exceeds "
                    "{}",
                    base, n, n - 1, std::numeric_limits<std::uint64_t>::max()));
  std::vector<std::uint64_t> seeds;
  for (int k = 0; k < n; ++k) seeds.push_back(base + static_cast<std::uint64_t>(k));
  return seeds;
}

// Fits the problem from every seed, the seeds in parallel (each fit's own work is split the same
// way whatever runs beside it, so the records are the same bits for any thread count); only the
// base seed's fits draw a progress bar.
study::ProblemSeeds run_seeds_of(const std::string& name, const study::StudySettings& settings,
                                 const std::vector<std::uint64_t>& seeds) {
  study::ProblemSeeds ps;
  ps.seeds = seeds;
  ps.runs.resize(seeds.size());
  tbb::task_group group;
  for (std::size_t k = 0; k < seeds.size(); ++k)
    group.run([&, k] {
      study::StudySettings s = settings;
      s.seed = seeds[k];
      s.progress = k == 0;
      ps.runs[k] = study::run_problem(name, s);
    });
  group.wait();
  return ps;
}

int run(const StudyOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const ThreadLimit limit(opt.common.threads);
  const std::vector<std::uint64_t> seeds = run_seeds(opt);
  std::vector<std::string> problems;
  for (const std::string& p : study::problem_names())
    if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), p) != opt.only.end())
      problems.push_back(p);
  study::StudySettings settings;
  settings.quick = opt.quick;
  if (std::find(problems.begin(), problems.end(), "uci_boston") != problems.end())
    settings.boston = locate_boston(opt);
  require_writable_folder("--out", opt.common.out);  // before any fitting
  plot::find_gnuplot();  // a missing gnuplot fails now (exit 1), not after minutes of fitting

  study::StudyRun run;
  run.seeds = seeds;
  run.quick = opt.quick;
  run.timing = !opt.no_timing;
  bool all_ok = true;
  for (const std::string& name : problems) {
    const auto p0 = std::chrono::steady_clock::now();
    run.problems.push_back(run_seeds_of(name, settings, seeds));
    const study::ProblemSeeds& ps = run.problems.back();
    std::string failed, poor;
    for (std::size_t k = 0; k < ps.runs.size(); ++k)
      for (const study::MethodRecord& m : ps.runs[k].methods) {
        const std::string which =
            seeds.size() > 1 ? fmt::format(" {} (seed {})", m.name, seeds[k]) : " " + m.name;
        if (m.status == "failed") {
          failed += which;
          all_ok = false;
        } else if (m.health != "ok") {
          poor += which;
        }
      }
    const study::ProblemRecord& p = ps.base();
    fmt::print(
        "{:<27} P = {:<4} {} methods × {} seed{}, {} iterations each, {:.1f} s{}{}\n", name,
        p.parameters, p.methods.size(), seeds.size(), seeds.size() == 1 ? "" : "s", p.iterations,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count(),
        failed.empty() ? "" : "; FAILED:" + failed, poor.empty() ? "" : "; poor fits:" + poor);
    std::fflush(stdout);
  }
  run.verdicts = study::study_verdicts(run.problems);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  StagedFolder folder(opt.common.out);  // every file appears at the end, or none
  study::write_study_folder(run, folder.path(), opt.common.threads);
  folder.commit();

  fmt::print("\nVerdicts{}:\n",
             seeds.size() > 1
                 ? fmt::format(" over {} seeds ({}–{})", seeds.size(), seeds.front(), seeds.back())
                 : std::string());
  for (const study::StudyVerdict& v : run.verdicts)
    fmt::print("  [{}] {}: {} ({} of {} seed{} hold{})\n",
               v.kind == study::ClaimKind::check ? (v.confirmed ? "check passed" : "check FAILED")
                                                 : v.status(),
               v.problem, v.claim, v.seeds_holding, v.seeds, v.seeds == 1 ? "" : "s",
               v.seeds_holding == 1 ? "s" : "");
  fmt::print("\nreport folder written: {} (open {} in a browser; numbers in results.json)\n",
             opt.common.out.string(), (opt.common.out / "report.html").string());
  if (!all_ok)
    fmt::print(stderr, "ngvi study: error: some fits failed numerically (see the report)\n");
  return all_ok ? exit_code::ok : exit_code::failed;
}

}  // namespace

Subcommand add_study_command(CLI::App& root) {
  auto opt = std::make_shared<StudyOptions>();
  CLI::App* cmd = root.add_subcommand(
      "study",
      "The main job: VON, VOGN (GGN, empirical Fisher, MC Fisher), IVON, noisy Adam, noisy K-FAC, "
      "Bayes-by-backprop and MAP + Laplace on built-in seeded problems (1-D regression with a gap, "
      "two moons, Bayesian linear regression, 2-D logistic regression, Boston housing), from each "
      "of several seeds (--seeds), with an HMC (NUTS) reference posterior for the gap and two "
      "moons networks. Writes a report folder: report.html (self-contained), "
      "report.md, results.json, "
      "history/<problem>/seed_<seed>/<method>.csv and plots/ (SVG and PNG, drawn with gnuplot). "
      "Up to 3 minutes on 2 cores with the default 5 seeds; --quick (3 seeds) under 30 "
      "seconds.");
  add_common_options(*cmd, opt->common,
                     "the report folder (created if missing; existing files in it are replaced)");
  cmd->add_flag("--quick", opt->quick,
                "the short version: fewer epochs, coarser grids, fewer predictive draws (seconds "
                "instead of minutes; what the tests run); default: off");
  cmd->add_option("--seeds", opt->seeds,
                  "fit every problem and method from this many seeds, --seed, --seed + 1, …; the "
                  "tables show mean ± sd over them and each finding is decided by the 95% "
                  "t-interval of its statistic over them; default: 5, with --quick 3")
      ->check(integer_in(1, max_seeds));
  cmd->add_flag("--no-timing", opt->no_timing,
                "leave wall times out of results.json, so runs with the same seed give identical "
                "files; default: off (times are written)");
  cmd->add_option("--problem", opt->only, "run only these problems (repeatable); default: all five")
      ->check(CLI::IsMember(study::problem_names()));
  cmd->add_option("--boston", opt->boston,
                  "the Boston housing folder in the UCI format (data.txt, index_*.txt); default: "
                  "the copy shipped with ngvi (data/uci/bostonHousing)");
  return Subcommand{cmd, [opt] { return run(*opt); }};
}

}  // namespace ngvi::app
