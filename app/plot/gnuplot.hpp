// run_gnuplot: runs the gnuplot program on a script file and reports its failure clearly.
//
// The tool draws through gnuplot (Debian's gnuplot-nox, installed by scripts/install-deps.sh)
// rather than a plotting library, so figures are whatever a gnuplot user would get. gnuplot is
// found as $NGVI_GNUPLOT if set, else on PATH; its standard output and error go to a log file
// beside the script. A missing program, a non-zero exit status or a death by signal is a
// PlotError that says which, with the end of gnuplot's log (escaped, so random bytes never
// reach the terminal raw).
#pragma once

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <io/data_error.hpp>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ngvi::app::plot {

class PlotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The gnuplot executable: $NGVI_GNUPLOT, else the first `gnuplot` on PATH. Throws PlotError if
// there is none. Cost: one stat per PATH entry.
inline std::filesystem::path find_gnuplot() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("NGVI_GNUPLOT"); env && *env) {
    if (::access(env, X_OK) != 0)
      throw PlotError(std::string("NGVI_GNUPLOT is set to ") + env +
                      ", which is not an executable program");
    return env;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  throw PlotError(
      "gnuplot was not found on PATH; the plots need it: install Debian's gnuplot-nox "
      "(bash scripts/install-deps.sh), or point NGVI_GNUPLOT at a gnuplot program");
}

// Runs gnuplot on `script`, its output going to `log`. Throws PlotError (see the top of the
// file). Cost: one process; as long as gnuplot takes.
inline void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& log) {
  const std::filesystem::path exe = find_gnuplot();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string arg0 = exe.string(), arg1 = script.string();
  std::vector<char*> argv = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw PlotError("cannot start gnuplot (" + exe.string() + "): " + std::strerror(spawned));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw PlotError(std::string("waiting for gnuplot failed: ") + std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::ifstream in(log, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > 1500) text = text.substr(text.size() - 1500);
  const std::string how = WIFEXITED(status)
                              ? "exited with status " + std::to_string(WEXITSTATUS(status))
                              : "was killed by signal " + std::to_string(WTERMSIG(status));
  throw PlotError("gnuplot (" + exe.string() + ") " + how + " on " + script.string() +
                  "; its output ends with: " + io::quote_bytes(text, text.size()));
}

}  // namespace ngvi::app::plot
