// `ngvi fit --csv FILE --target COLUMN [--task regression|classification] [--method M]
// [--hidden ...]`: fits a network to a user's own CSV table (io/training_table.hpp) with a
// method of app/methods, and writes into --out the posterior summary by parameter block, the
// predictions with their uncertainty for every row (CSV and JSON) and the saved posterior
// (app/fit/posterior_file.hpp); `--posterior FILE --predict CSV` applies a saved posterior to new
// inputs. Every input is read and checked before anything is written; every file is written
// atomically.
#pragma once

#include <CLI/CLI.hpp>
#include <app/cli/ranks.hpp>
#include <app/cli/subcommand.hpp>

namespace ngvi::app {

// Declares the subcommand and its options on `root`. Cost of the run: that of the method's fit.
Subcommand add_fit_command(CLI::App& root, const Ranks& ranks);

}  // namespace ngvi::app
