// `ngvi active --data DIR --method M`: active learning by predictive variance on a UCI folder
// (app/active/active_learning.hpp, the protocol of Zhang et al. 2018's Table 2): per round the
// test RMSE of the rows added by the largest predictive variance and of rows added at random,
// mean ± standard error over trials, printed as a table beside the paper's figures for the same
// data set, and written into --out as active.json, active.md and the plot rmse.svg/rmse.png (the
// folder appears whole or not at all).
#pragma once

#include <CLI/CLI.hpp>
#include <app/cli/subcommand.hpp>

namespace ngvi::app {

// Declares the subcommand and its options on `root`. Cost of the run: see run_active_learning.
Subcommand add_active_command(CLI::App& root);

}  // namespace ngvi::app
