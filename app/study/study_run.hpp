// study::run: the whole study — every problem fitted by every method from each seed, the
// verdicts over the seeds, the report folder — on the built-in problems (`ngvi study`) or on
// problems of the user's own (study_problem.hpp; `ngvi study --csv`, examples/study_problem.cpp).
//
// Each problem runs from the seeds options.seed, options.seed + 1, … side by side on the
// threads, every seed's record in its own slot, so the folder is the same bits for any thread
// count. On stdout: one line per problem as it finishes, then the verdicts and, for a user's
// problem, the findings that were not evaluated on it and why (finding_coverage.hpp). The
// folder's contents and results.json's schema are in app/study/README.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <app/study/problem_seeds.hpp>
#include <app/study/study_problem.hpp>
#include <app/study/study_problems.hpp>

namespace ngvi::app::study {

struct RunOptions {
  std::filesystem::path out = "ngvi-study";  // the report folder (created; files replaced)
  std::uint64_t seed = 1;                    // the base seed
  int seeds = 0;                             // seeds to run each problem from; 0: 5 (quick: 3)
  bool quick = false;                        // the short version (fewer epochs, draws, grid points)
  bool timing = true;  // write wall times into results.json (false: byte-comparable runs)
  int threads = 0;     // oneTBB threads; 0: one per core. Results do not depend on it.
};

// A problem as the runner sees it: its key and how to fit it from one seed's settings.
struct ProblemRunner {
  std::string name;
  std::function<ProblemRecord(const StudySettings&)> run;
  bool user_problem = false;  // list the findings not evaluated on it
};

// The seeds of a run: base, base + 1, … (`seeds` of them; 0: 5, with quick 3). Throws
// std::invalid_argument when the last would pass 2⁶⁴ − 1 or seeds is negative.
std::vector<std::uint64_t> run_seeds(std::uint64_t base, int seeds, bool quick);

// Runs the problems and writes the folder. Returns the exit code (app/cli/exit_codes.hpp): 0, or
// 1 when a fit failed numerically (the folder is still written). Throws UsageError for an --out
// that cannot be written (before any fitting), plot::PlotError without gnuplot, FileError when
// the folder cannot be written. `settings` gives everything but the seed and the progress bar
// (set per seed). Cost: the problems' fits and references, then the plots.
int run_study(const std::vector<ProblemRunner>& problems, const RunOptions& options,
              const StudySettings& settings);

// The user's problems through run_study: the same report as the built-in problems'. Throws
// std::invalid_argument for an invalid problem (check_problem) or two with the same name, before
// any fitting. Cost: as run_study.
int run(const std::vector<Problem>& problems, const RunOptions& options);

}  // namespace ngvi::app::study
