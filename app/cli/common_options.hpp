// The options every ngvi subcommand takes (--seed, --threads, --out) and what they do.
//
// --seed fixes every random number a subcommand draws (data, initial values, Monte-Carlo
// samples); --threads caps the oneTBB worker threads for the whole process, and results do not
// depend on it (see CONTRIBUTING.md, determinism); both are read exactly (number_checks.hpp: a
// seed outside [0, 2⁶⁴ − 1] is an error, not clamped); --out names the folder a subcommand writes
// its files into. ThreadLimit applies --threads for the lifetime of a run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <oneapi/tbb/global_control.h>
#include <unistd.h>

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
      ->check(integer_in<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max())
                  .description(""))  // UINT says the range
      ->capture_default_str();
  cmd.add_option(
         "--threads", o.threads,
         "oneTBB worker threads; 0 = one per available core. Results are identical for any value")
      ->check(integer_in(0, 1024))
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

// Throws UsageError naming `option` unless `folder` is a folder this process can write into, or
// can be created as one: checked before any work, so that a run never ends unable to write its
// results (issue 22: a fit under /proc ran, then failed, and its posterior was lost). It writes
// and removes a probe file; a folder it had to create for the check is removed again (the command
// creates it when it writes), so a run that stops later with bad input leaves nothing behind.
// An empty path passes. Cost: a few file-system calls.
inline void require_writable_folder(const std::string& option,
                                    const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  if (folder.empty()) return;
  const std::string named = option + " " + folder.string();
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec))
    throw UsageError(named + ": this is a file, not a folder");
  fs::path created;  // the outermost folder that does not exist yet, removed after the check
  for (fs::path p = folder; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created = p;
    if (p == p.parent_path()) break;
  }
  std::string failure;
  try {
    fs::create_directories(folder);
    const fs::path probe = folder / (".ngvi-write-check-" + std::to_string(::getpid()));
    {
      std::ofstream f(probe);
      f << "ngvi\n";
      f.close();
      if (!f) failure = "cannot write a file into it";
    }
    fs::remove(probe, ec);
  } catch (const fs::filesystem_error& e) {
    failure = std::string("cannot create it (") + e.code().message() + ")";
  }
  if (!created.empty()) fs::remove_all(created, ec);
  if (!failure.empty()) throw UsageError(named + ": " + failure);
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
