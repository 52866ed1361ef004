// ngvi: the command-line tool. One subcommand per job, each declared in its own folder of app/
// (add_*_command) with every option and its default in its --help; main() parses, runs the
// chosen subcommand through run_guarded and returns the documented exit code
// (app/cli/exit_codes.hpp: 0 ok, 1 a failed check or run, 2 bad usage or bad input). Under
// `mpirun -np K` the Ranks made first start MPI (app/cli/ranks.hpp): `ngvi fit` and `ngvi uci`
// share their work among the ranks, the other subcommands run on rank 0.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <app/active/active_command.hpp>
#include <app/cli/allocator.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/ranks.hpp>
#include <app/cli/run_guarded.hpp>
#include <app/cli/subcommand.hpp>
#include <app/fit/fit_command.hpp>
#include <app/study/study_command.hpp>
#include <app/uci/uci_command.hpp>
#include <app/verify/verify_command.hpp>
#include <fmt/format.h>

int main(int argc, char** argv) {
  namespace app = ngvi::app;
  app::keep_freed_memory();
  std::unique_ptr<app::Ranks> ranks;
  try {
    ranks = std::make_unique<app::Ranks>(argc, argv);
  } catch (const app::UsageError& e) {
    fmt::print(stderr, "ngvi: error: {}\n", e.what());
    return app::exit_code::usage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ngvi: error: {}\n", e.what());
    return app::exit_code::failed;
  }
  CLI::App root{
      "ngvi: exact second-order automatic differentiation and natural-gradient variational "
      "inference.\n"
      "Exit codes: 0 success; 1 a check failed or the run failed; 2 bad usage or bad input.\n"
      "Run `ngvi <subcommand> --help` for the options of each subcommand.",
      "ngvi"};
  root.require_subcommand(1);
  // A rejected command line prints the error and one line pointing to --help, not the whole
  // help of the subcommand (some 2000 characters that bury the error).
  root.failure_message([](const CLI::App* app, const CLI::Error& e) {
    std::string names, used;
    for (const CLI::App* s : app->get_subcommands({}))
      names += (names.empty() ? "" : ", ") + s->get_name();
    for (const CLI::App* s : app->get_subcommands()) used = " " + s->get_name();
    return "ERROR: " + std::string(e.what()) + "\nRun `ngvi" + used + " --help` for the options" +
           (used.empty() ? " (subcommands: " + names + ")" : "") + ".\n";
  });
  const std::vector<app::Subcommand> subcommands = {
      app::add_study_command(root), app::add_verify_command(root),
      app::add_uci_command(root, *ranks), app::add_fit_command(root, *ranks),
      app::add_active_command(root)};
  int parse_exit = -1;  // -1: parsed; else the exit code of --help (0) or of bad usage (2)
  std::string parse_error;
  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; everything else is bad usage.
    parse_exit = root.exit(e) == 0 ? app::exit_code::ok : app::exit_code::usage;
    parse_error = e.what();
  }
  // Under mpirun, a command line rejected on one rank (an input file missing on its node) stops
  // every rank, naming it, rather than leaving the others waiting for it.
  if (parse_exit != app::exit_code::ok) {
    try {
      ranks->on_every_rank([&] {
        if (parse_exit == app::exit_code::usage) throw app::UsageError(parse_error);
      });
    } catch (const std::exception& e) {
      // (Rank 0's own rejection was printed by CLI11 above.)
      if (parse_exit != app::exit_code::usage || !ranks->leader())
        fmt::print(ranks->errors(), "ngvi{}: error: {}\n", ranks->tag(), e.what());
      return app::exit_code::usage;
    }
  }
  if (parse_exit >= 0) return parse_exit;
  for (const app::Subcommand& s : subcommands) {
    if (!s.command->parsed()) continue;
    if (!s.on_every_rank && !ranks->leader()) return app::exit_code::ok;
    return app::run_guarded(s.command->get_name(), s.run, *ranks);
  }
  return app::exit_code::usage;
}
