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
#include <utility>

#include <unistd.h>

namespace ngvi::io {

// A file that cannot be read or written (missing directory, permissions, full disk).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file written in pieces and published atomically: the text goes to the temporary file as it
// is produced (so a large file is never held in memory), commit() renames it over the target,
// and an AtomicFile destroyed uncommitted (an exception on the way) removes its temporary file
// and leaves the target as it was. Several of them committed one after another, after all were
// written, make a set of files that appears whole or not at all but for a failing rename.
// Throws FileError (naming the file and what failed) from the constructor if the directory does
// not exist or the temporary file cannot be opened, from write() and commit() if writing,
// flushing or renaming fails.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
    namespace fs = std::filesystem;
    static std::atomic<unsigned long> counter{0};
    const fs::path dir = path_.has_parent_path() ? path_.parent_path() : fs::path(".");
    if (!fs::is_directory(dir))
      throw FileError("cannot write " + path_.string() + ": directory " + dir.string() +
                      " does not exist");
    if (fs::is_directory(path_))
      throw FileError("cannot write " + path_.string() + ": it is a directory");
    tmp_ = path_;
    tmp_ += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_)
      throw FileError("cannot write " + path_.string() + ": opening " + tmp_.string() +
                      " failed: " + std::strerror(errno));
  }
  // The moved-from file no longer owns the temporary file.
  AtomicFile(AtomicFile&& o) noexcept
      : path_(std::move(o.path_)),
        tmp_(std::move(o.tmp_)),
        out_(std::move(o.out_)),
        committed_(std::exchange(o.committed_, true)) {}
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile() {
    if (committed_) return;
    out_.close();
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }

  // Appends `text`. Cost: O(|text|), buffered.
  AtomicFile& write(std::string_view text) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out_) fail("writing");
    return *this;
  }

  // Flushes, closes and renames the temporary file over the target.
  void commit() {
    out_.flush();
    if (!out_) fail("writing");
    out_.close();
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec)
      throw FileError("cannot write " + path_.string() +
                      ": renaming the temporary file failed: " + ec.message());
    committed_ = true;
  }

 private:
  [[noreturn]] void fail(const char* what) {
    throw FileError("cannot write " + path_.string() + ": " + what + " " + tmp_.string() +
                    " failed (disk full?)");
  }

  std::filesystem::path path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Writes `text` to `path` atomically (see the top of the file). Throws FileError if the
// directory does not exist or writing or renaming fails; the target is then unchanged and no
// temporary file remains. Cost: O(|text|) plus one rename.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

}  // namespace ngvi::io
