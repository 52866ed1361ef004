// `ngvi study`: the project's main job. Fits VON, VOGN (each curvature), IVON, noisy Adam,
// noisy K-FAC, Bayes-by-backprop and MAP + Laplace to the built-in seeded problems
// (study_problems.hpp) from each of --seeds seeds (--seed, --seed + 1, …; the seeds run in
// parallel, with the same results for any thread count), decides the verdicts over the seeds
// (study_verdicts.hpp), and writes a report folder (study_folder.hpp): results.json, one history
// CSV per problem, seed and method, the plots as SVG and PNG, report.html and report.md. The
// folder's contents and results.json's schema are in app/study/README.md. With --csv FILE
// --target COLUMN the user's table is the one problem (app/study/csv_problem.hpp), run the same
// way (app/study/study_run.hpp); a bad table or a network beyond the study's limits is bad usage.
//
// A progress bar per fit on stderr (when it is a terminal), one line per problem on stdout, the
// verdicts at the end. Exit codes (app/cli/exit_codes.hpp): 2 for bad usage, including an --out
// that cannot be created or written and Boston data that cannot be found, checked before any
// fitting; 1 if a fit failed numerically (the report is still written) or the folder could not
// be written; 0 otherwise.
#pragma once

#include <CLI/CLI.hpp>
#include <app/cli/subcommand.hpp>

namespace ngvi::app {

// Declares the subcommand and its options on `root`. Cost of the run, HMC references included:
// 3 min 45 s wall, 223 s of CPU, on 2 cores shared with other work (load average 4.2–4.7) with
// the default 5 seeds; --quick (3 seeds) 21 s at a load average of 6. Not measured idle.
Subcommand add_study_command(CLI::App& root);

}  // namespace ngvi::app
