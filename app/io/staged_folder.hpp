// StagedFolder: an output folder whose files appear together or not at all, as io::AtomicFile
// (atomic_write.hpp) does for one file.
//
// A command writes its whole folder — files, subfolders, plots drawn by other programs — into a
// fresh staging folder beside the target (same parent, so every rename stays within one file
// system; a hidden name carrying the process id and a counter). commit() then publishes it: a
// target that does not exist, or is an empty folder, is replaced by the staging folder in one
// rename; into an existing folder every staged file is renamed over its namesake one after
// another (each atomic; files of the folder that the command does not write are kept), and the
// emptied staging folder is removed. A StagedFolder destroyed uncommitted (an exception on the
// way) removes the staging folder and any parent folder it had to create, so a failed command
// leaves no new folder and no new file in an old one.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <io/atomic_write.hpp>
#include <unistd.h>

namespace ngvi::app {

class StagedFolder {
 public:
  // Creates the staging folder beside `target` (and the target's missing parents). Throws
  // io::FileError naming the target if `target` is a file or the staging folder cannot be created.
  // Cost: a few file-system calls.
  explicit StagedFolder(std::filesystem::path target) : target_(std::move(target)) {
    namespace fs = std::filesystem;
    static std::atomic<unsigned long> counter{0};
    if (!target_.has_filename()) target_ = target_.parent_path();  // "out/" names "out"
    std::error_code ec;
    if (fs::exists(target_, ec) && !fs::is_directory(target_, ec))
      throw io::FileError("cannot write the folder " + target_.string() + ": it is a file");
    const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
    for (fs::path p = parent; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      created_ = p;
      if (p == p.parent_path()) break;
    }
    staging_ = parent / ("." + target_.filename().string() + ".staged." +
                         std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)));
    fs::create_directories(staging_, ec);
    if (ec) {
      remove_created();
      throw io::FileError("cannot write the folder " + target_.string() + ": creating " +
                          staging_.string() + " failed: " + ec.message());
    }
  }
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;
  ~StagedFolder() {
    if (!committed_) remove_created();
  }

  // The folder to write into; its contents become the target's at commit().
  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& target() const { return target_; }

  // Publishes the staged folder (see the top of the file). Throws io::FileError naming the file
  // whose rename failed; the files renamed before it stay published. Cost: one rename per file
  // into an existing non-empty folder, else one rename.
  void commit() {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(target_, ec) || fs::is_empty(target_, ec)) {
      fs::rename(staging_, target_, ec);
      if (!ec) {
        committed_ = true;
        return;
      }
    }
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(staging_))
      if (!e.is_directory()) files.push_back(fs::relative(e.path(), staging_));
    for (const fs::path& f : files) {
      fs::create_directories((target_ / f).parent_path(), ec);
      if (!ec) fs::rename(staging_ / f, target_ / f, ec);
      if (ec)
        throw io::FileError("cannot write " + (target_ / f).string() + ": moving it from " +
                            (staging_ / f).string() + " failed: " + ec.message());
    }
    committed_ = true;
    fs::remove_all(staging_, ec);
  }

 private:
  // Removes the staging folder, and the outermost parent folder the constructor created.
  void remove_created() const {
    std::error_code ignored;
    std::filesystem::remove_all(staging_, ignored);
    if (!created_.empty()) std::filesystem::remove_all(created_, ignored);
  }

  std::filesystem::path target_, staging_;
  std::filesystem::path created_;  // the outermost missing parent of target_, created for it
  bool committed_ = false;
};

}  // namespace ngvi::app
