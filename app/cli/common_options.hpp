// The options every ngvi subcommand takes (--seed, --threads, --out) and what they do.
//
// --seed fixes every random number a subcommand draws (data, initial values, Monte-Carlo
// samples); --threads caps the oneTBB worker threads for the whole process, and results do not
// depend on it (see CONTRIBUTING.md, determinism); --out names the folder a subcommand writes
// its files into. ThreadLimit applies --threads for the lifetime of a run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <app/cli/exit_codes.hpp>
#include <oneapi/tbb/global_control.h>

namespace ngvi::app {

struct CommonOptions {
  std::uint64_t seed =
      1;            // seed of every random draw; 1 so that runs repeat unless asked otherwise
  int threads = 0;  // oneTBB worker threads; 0 = one per core the process may use
  std::filesystem::path out;  // output folder; each subcommand documents its default
};

// Adds --seed, --threads and --out to `cmd`, storing into `o`; `out_help` says what the
// subcommand writes there and its default (o.out must already hold that default).
inline void add_common_options(CLI::App& cmd, CommonOptions& o, const std::string& out_help) {
  cmd.add_option("--seed", o.seed, "seed of every random draw (data, initial values, samples)")
      ->capture_default_str();
  cmd.add_option(
         "--threads", o.threads,
         "oneTBB worker threads; 0 = one per available core. Results are identical for any value")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd.add_option("--out", o.out, out_help)->capture_default_str();
}

// Throws UsageError naming `option` if `path` lies in a folder that does not exist (an output
// file the run would only fail to write at its end). An empty path passes.
inline void require_existing_folder(const std::string& option, const std::filesystem::path& path) {
  if (!path.empty() && !path.parent_path().empty() &&
      !std::filesystem::is_directory(path.parent_path()))
    throw UsageError(option + " " + path.string() + ": the directory " +
                     path.parent_path().string() + " does not exist");
}

// Caps oneTBB's parallelism at `threads` (0: leave TBB's default) while it lives.
class ThreadLimit {
 public:
  explicit ThreadLimit(int threads)
      : control_(threads > 0 ? std::make_unique<tbb::global_control>(
                                   tbb::global_control::max_allowed_parallelism,
                                   static_cast<std::size_t>(threads))
                             : nullptr) {}

 private:
  std::unique_ptr<tbb::global_control> control_;
};

}  // namespace ngvi::app
