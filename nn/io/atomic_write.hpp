// write_file_atomically: results and checkpoints are never left half-written.
//
// The text goes to a temporary file beside the target, which is flushed, closed and then
// renamed over the target; a crash or a full disk leaves the previous file intact. Errors name
// the file and what failed.
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace ngvi::nn {

inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  namespace fs = std::filesystem;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir))
    throw std::runtime_error("cannot write " + path.string() + ": directory " + dir.string() +
                             " does not exist");
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw std::runtime_error("cannot write " + path.string() + ": opening " + tmp.string() +
                               " failed: " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out)
      throw std::runtime_error("cannot write " + path.string() + ": writing " + tmp.string() +
                               " failed (disk full?)");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp);
    throw std::runtime_error("cannot write " + path.string() + ": renaming the temporary file failed: " +
                             ec.message());
  }
}

}  // namespace ngvi::nn
