// `ngvi uci --data DIR --method M [--splits K] [--json FILE]`: the standard UCI regression protocol
// (app/uci/uci_protocol.hpp) on any folder in the format of data/uci/ (the standard UCI splits; see
// data/uci/SOURCE.md), for one or more methods, printed as a table beside the published figures for
// the same data set (app/uci/published_results.hpp) and optionally written as JSON (atomically).
#pragma once

#include <CLI/CLI.hpp>
#include <app/cli/ranks.hpp>
#include <app/cli/subcommand.hpp>

namespace ngvi::app {

// Declares the subcommand and its options on `root`. Cost of the run: see run_uci_protocol.
Subcommand add_uci_command(CLI::App& root, const Ranks& ranks);

}  // namespace ngvi::app
