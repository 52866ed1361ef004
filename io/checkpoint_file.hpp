// Checkpoint files: the fit-loop callback that writes them, and the reader.
//
// The Checkpointer writes atomically (write_file_atomically: a temporary file renamed over the
// target), so a run stopped at any moment leaves its last checkpoint, never a truncated file.
// Resume with vi::resume(model, options, load_checkpoint(path)), which continues bitwise
// identically to the uninterrupted run; the checkpoint's encoding is vi::FitCheckpoint's
// (inference/checkpoint.hpp). A checkpoint carries the fingerprint of its data set
// (data_fingerprint), so that resuming on another table is refused. The history file is written
// by io/history_file.hpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <io/atomic_write.hpp>
#include <io/data_error.hpp>

#include <inference/checkpoint.hpp>
#include <inference/fit_result.hpp>
#include <nn/dataset.hpp>

namespace ngvi::io {

// The fingerprint of a data set for FitCheckpoint::data_fingerprint: its shape and a 64-bit
// FNV-1a checksum of the bytes of its numbers (X, then Y), which any changed number alters with
// probability 1 − 2⁻⁶⁴. Cost: O(size of the data).
inline std::string data_fingerprint(const nn::Dataset& d) {
  std::uint64_t h = 14695981039346656037ull;
  auto add = [&](const Eigen::MatrixXd& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      unsigned char bytes[sizeof(double)];
      std::memcpy(bytes, m.data() + i, sizeof(double));
      for (const unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
    }
  };
  add(d.X);
  add(d.Y);
  return fmt::format("{} rows, {} inputs, {} targets, checksum {:016x}", d.X.rows(), d.X.cols(),
                     d.Y.cols(), h);
}

// Writes a checkpoint every `every` iterations (and at the end of a run that did not fail),
// atomically; with an empty path it writes nothing (so a caller can pass one on every rank and
// give the path to rank 0 alone). Resume with vi::resume(model, options, load_checkpoint(path)).
struct Checkpointer {
  std::filesystem::path path;
  Eigen::Index every = 100;      // iterations between checkpoints
  std::string data_fingerprint;  // stored in each checkpoint (data_fingerprint()); empty: none
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (!path.empty() && every > 0 && ctx.iteration() % every == 0) write(ctx);
    return false;
  }
  template <class Ctx, class Result>
  void on_end(const Ctx& ctx, const Result& result) {
    if (!path.empty() && result.status != vi::FitStatus::failed) write(ctx);
  }

 private:
  template <class Ctx>
  void write(const Ctx& ctx) const {
    vi::FitCheckpoint c = ctx.checkpoint();
    c.data_fingerprint = data_fingerprint;
    write_file_atomically(path, c.encode());
  }
};

// Reads a checkpoint file. Throws std::runtime_error naming the file if it cannot be read, and
// DataError naming the file and, in what was found, the field (FitCheckpoint::decode) if it
// is not a valid checkpoint; the decoder's message is quoted, as it may hold bytes of the file.
inline vi::FitCheckpoint load_checkpoint(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("ngvi::io::load_checkpoint: cannot open " + path.string());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return vi::FitCheckpoint::decode(text);
  } catch (const std::invalid_argument& e) {
    throw DataError(path, 0, 0, "an ngvi checkpoint whose fields hold together",
                    quote_bytes(e.what(), 400));
  }
}

}  // namespace ngvi::io
