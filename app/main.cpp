// ngvi: the command-line tool. One subcommand per job, each declared in its own folder of app/
// (add_*_command) with every option and its default in its --help; main() parses, runs the
// chosen subcommand through run_guarded and returns the documented exit code
// (app/cli/exit_codes.hpp: 0 ok, 1 a failed check or run, 2 bad usage or bad input).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/run_guarded.hpp>
#include <app/cli/subcommand.hpp>
#include <app/fit/fit_command.hpp>
#include <app/study/study_command.hpp>
#include <app/uci/uci_command.hpp>
#include <app/verify/verify_command.hpp>

int main(int argc, char** argv) {
  namespace app = ngvi::app;
  CLI::App root{
      "ngvi: exact second-order automatic differentiation and natural-gradient variational "
      "inference.\n"
      "Exit codes: 0 success; 1 a check failed or the run failed; 2 bad usage or bad input.\n"
      "Run `ngvi <subcommand> --help` for the options of each subcommand.",
      "ngvi"};
  root.require_subcommand(1);
  root.failure_message(CLI::FailureMessage::help);
  const std::vector<app::Subcommand> subcommands = {
      app::add_study_command(root), app::add_verify_command(root), app::add_uci_command(root),
      app::add_fit_command(root)};
  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; everything else is bad usage.
    const int code = root.exit(e);
    return code == 0 ? app::exit_code::ok : app::exit_code::usage;
  }
  for (const app::Subcommand& s : subcommands)
    if (s.command->parsed()) return app::run_guarded(s.command->get_name(), s.run);
  return app::exit_code::usage;
}
