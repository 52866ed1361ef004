// Subcommand: what each ngvi subcommand hands to main() when it registers itself.
//
// A subcommand's add_*_command(CLI::App& root) function declares its CLI11 subcommand with
// every option (and its --help text), and returns the parsed subcommand together with the body
// main() runs, through run_guarded, when that subcommand was chosen on the command line. The
// body reads the options the parse filled in, so it is called only after parsing succeeded.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace ngvi::app {

struct Subcommand {
  CLI::App* command = nullptr;  // owned by the root CLI::App
  std::function<int()> run;     // returns an exit code (app/cli/exit_codes.hpp)
  // Under mpirun (app/cli/ranks.hpp): true if every rank runs `run` (the subcommand shares its
  // work among them), false if rank 0 alone does and the others exit at once with 0.
  bool on_every_rank = false;
};

}  // namespace ngvi::app
