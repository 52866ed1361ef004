// The history file: the fit-loop callback that rewrites it at each history row.
//
// It writes atomically (write_file_atomically: a temporary file renamed over the target), so a
// run stopped at any moment leaves a complete history, never a truncated file. The rows are
// encoded by inference/callbacks.hpp (vi::history_csv, vi::history_json), where the in-memory
// callbacks (progress, held-out metrics, early stopping) are; checkpoint files are written by
// io/checkpoint_file.hpp.
#pragma once

#include <filesystem>
#include <vector>

#include <io/atomic_write.hpp>

#include <inference/callbacks.hpp>
#include <inference/fit_result.hpp>

namespace ngvi::io {

// Rewrites `path` with the history (CSV, or JSON if the path ends in .json) each time a row is
// added, atomically. Cost: O(rows) per row, so O(rows²) over a run — fine for the thousands of
// rows a history holds.
struct HistoryWriter {
  std::filesystem::path path;
  template <class Ctx>
  void on_history(vi::HistoryRow& row, const Ctx& ctx) {
    std::vector<vi::HistoryRow> rows = ctx.history();
    rows.push_back(row);
    write(rows);
  }
  template <class Ctx, class Result>
  void on_end(const Ctx&, const Result& result) {
    write(result.history);
  }

 private:
  void write(const std::vector<vi::HistoryRow>& rows) const {
    if (path.extension() == ".json")
      write_file_atomically(path, vi::history_json(rows).dump(1) + "\n");
    else
      write_file_atomically(path, vi::history_csv(rows));
  }
};

}  // namespace ngvi::io
