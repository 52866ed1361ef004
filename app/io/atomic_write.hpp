// write_file_atomically: results, reports and checkpoints are never left half-written.
//
// The text goes to a temporary file beside the target (same directory, so the final rename
// stays within one file system), which is flushed, closed and then renamed over the target; a
// crash, a full disk or an exception leaves the previous file (or no file) in place, never a
// truncated one. The temporary name carries the process id and a counter, so two writers never
// share one. Errors are FileError and name the file and what failed.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

namespace ngvi::app {

// A file that cannot be read or written (missing directory, permissions, full disk).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` atomically (see the top of the file). Throws FileError if the
// directory does not exist or writing or renaming fails; the target is then unchanged and no
// temporary file remains. Cost: O(|text|) plus one rename.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  namespace fs = std::filesystem;
  static std::atomic<unsigned long> counter{0};
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir))
    throw FileError("cannot write " + path.string() + ": directory " + dir.string() +
                    " does not exist");
  if (fs::is_directory(path))
    throw FileError("cannot write " + path.string() + ": it is a directory");
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  std::error_code ignored;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw FileError("cannot write " + path.string() + ": opening " + tmp.string() +
                      " failed: " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ignored);
      throw FileError("cannot write " + path.string() + ": writing " + tmp.string() +
                      " failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ignored);
    throw FileError("cannot write " + path.string() +
                    ": renaming the temporary file failed: " + ec.message());
  }
}

}  // namespace ngvi::app
