// `ngvi study` (study_command.hpp): options, the checks made before fitting, the run, the folder.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <app/study/csv_problem.hpp>
#include <app/study/study_command.hpp>
#include <app/study/study_problems.hpp>
#include <app/study/study_run.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

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
  // --csv: the user's table as the problem (csv_problem.hpp), with its options.
  fs::path csv;
  std::string target;
  std::string task = "regression";  // or "classification" (labels 0 and 1)
  std::vector<Eigen::Index> hidden = {16};
  double test_fraction = 0.2;
  double noise_precision = 10.0;
  bool task_given = false, hidden_given = false, test_fraction_given = false, noise_given = false;
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
  try {
    return study::run_seeds(opt.common.seed, opt.seeds, opt.quick);
  } catch (const std::invalid_argument&) {
    const int n = opt.seeds > 0 ? opt.seeds : opt.quick ? 3 : 5;
    throw UsageError(
        fmt::format("--seed {} with --seeds {}: the last seed, --seed + {}, exceeds {}",
                    opt.common.seed, n, n - 1, std::numeric_limits<std::uint64_t>::max()));
  }
}

// The user's table as the run's one problem (csv_problem.hpp), checked before any fitting.
study::Problem table_problem(const StudyOptions& opt) {
  if (opt.target.empty()) throw UsageError("--csv needs --target COLUMN");
  if (!opt.only.empty())
    throw UsageError("--problem picks built-in problems; with --csv the table is the problem");
  study::CsvProblemOptions o;
  o.csv = opt.csv;
  o.target = opt.target;
  o.classification = opt.task == "classification";
  o.hidden =
      opt.hidden.size() == 1 && opt.hidden[0] == 0 ? std::vector<Eigen::Index>{} : opt.hidden;
  if (std::find(o.hidden.begin(), o.hidden.end(), 0) != o.hidden.end())
    throw UsageError("--hidden: widths must be positive (a single 0 means no hidden layer)");
  if (!(opt.test_fraction > 0.0 && opt.test_fraction < 1.0))
    throw UsageError(
        fmt::format("--test-fraction {}: must lie strictly between 0 and 1", opt.test_fraction));
  o.test_fraction = opt.test_fraction;
  o.noise_precision = opt.noise_precision;
  o.seed = opt.common.seed;
  study::Problem p = study::csv_problem(o);
  try {
    study::check_problem(p);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--hidden {}: {}", fmt::join(opt.hidden, ","), e.what()));
  }
  return p;
}

int run(const StudyOptions& opt) {
  run_seeds(opt);  // a bad --seed/--seeds pair is bad usage, found before anything else
  if (opt.csv.empty() && (!opt.target.empty() || opt.task_given || opt.hidden_given ||
                          opt.test_fraction_given || opt.noise_given))
    throw UsageError(
        "--target, --task, --hidden, --test-fraction and --noise-precision belong to --csv FILE");
  study::RunOptions ro;
  ro.out = opt.common.out;
  ro.seed = opt.common.seed;
  ro.seeds = opt.seeds;
  ro.quick = opt.quick;
  ro.timing = !opt.no_timing;
  ro.threads = opt.common.threads;
  study::StudySettings settings;
  settings.quick = opt.quick;
  std::vector<study::ProblemRunner> runners;
  if (!opt.csv.empty()) {
    auto problem = std::make_shared<const study::Problem>(table_problem(opt));
    runners.push_back(
        {problem->name,
         [problem](const study::StudySettings& s) { return study::run_problem(*problem, s); },
         true});
    return study::run_study(runners, ro, settings);
  }
  for (const std::string& p : study::problem_names())
    if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), p) != opt.only.end())
      runners.push_back(
          {p, [p](const study::StudySettings& s) { return study::run_problem(p, s); }, false});
  for (const study::ProblemRunner& r : runners)
    if (r.name == "uci_boston") settings.boston = locate_boston(opt);
  return study::run_study(runners, ro, settings);
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
      "seconds. With --csv FILE --target COLUMN: the same study and report on your own table.");
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
  cmd->add_option("--csv", opt->csv,
                  "run the study on this table instead of the built-in problems (CSV with a header "
                  "line, one number per cell, as `ngvi fit --csv` reads it); needs --target")
      ->check(CLI::ExistingFile);
  cmd->add_option("--target", opt->target, "the target column of --csv (its header name)");
  cmd->add_option("--task", opt->task,
                  "with --csv: regression (Gaussian likelihood, target standardised) or "
                  "classification (Bernoulli-logit; the target holds the labels 0 and 1)")
      ->check(CLI::IsMember({"regression", "classification"}))
      ->capture_default_str()
      ->each([opt](const std::string&) { opt->task_given = true; });
  cmd->add_option("--hidden", opt->hidden,
                  "with --csv: hidden layer widths of the tanh network, comma-separated (e.g. "
                  "50,50); 0 = no hidden layer (a model linear in θ, whose exact posterior the "
                  "study computes for a regression). At most 1000 parameters (the curvature "
                  "analyses' exact Hessians)")
      ->delimiter(',')
      ->check(integer_in<Eigen::Index>(0, 100000))
      ->capture_default_str()
      ->each([opt](const std::string&) { opt->hidden_given = true; });
  cmd->add_option("--test-fraction", opt->test_fraction,
                  "with --csv: the fraction of the rows held out for the test metrics, chosen by "
                  "--seed (the same split for every seed of the run)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->each([opt](const std::string&) { opt->test_fraction_given = true; });
  cmd->add_option("--noise-precision", opt->noise_precision,
                  "with --csv, a regression: τ, the Gaussian noise precision in standardised "
                  "units (10: noise sd of 0.32 target standard deviations)")
      ->check(positive_finite())
      ->capture_default_str()
      ->each([opt](const std::string&) { opt->noise_given = true; });
  cmd->add_option("--boston", opt->boston,
                  "the Boston housing folder in the UCI format (data.txt, index_*.txt); default: "
                  "the copy shipped with ngvi (data/uci/bostonHousing)");
  return Subcommand{cmd, [opt] { return run(*opt); }};
}

}  // namespace ngvi::app
