// load_training_table: the input path of `ngvi fit --csv FILE --target COLUMN`.
//
// Reads the CSV file (io/csv_table.hpp), takes the column named by --target as the target
// and every other column as an input, and rejects what no fit can use: a target that names no
// column, a table with no input column, fewer than two data rows, and a constant column (an
// input with zero spread carries no information and cannot be standardised; a constant target
// leaves nothing to fit). Every problem is an DataError naming the file, the line and the
// column, which the tool reports with exit code 2 before it has written anything.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <io/csv_table.hpp>
#include <io/data_error.hpp>
#include <io/record_lines.hpp>

#include <nn/dataset.hpp>

namespace ngvi::io {

struct TrainingTable {
  nn::Dataset data;                      // X: the inputs in file order, Y: the target (one column)
  std::vector<std::string> input_names;  // names of X's columns
  std::string target_name;               // name of Y's column
  RecordLines lines;                     // the line each example was read from
  std::filesystem::path file;            // where it was read from
};

// The checks of select_training_columns on `table` (see the top of the file): the index of the
// column `target`, or a DataError. `whole` false: `table` holds some of the rows of a larger one
// (the rows of one process, io/csv_table.hpp), and only the columns are checked here — the
// caller checks the values over the whole table. Cost: O(rows·columns), no memory.
inline Eigen::Index check_training_columns(const CsvTable& table, std::string_view target,
                                           bool whole = true) {
  const Eigen::Index t = table.column(target);
  const Eigen::Index rows = table.values.rows(), cols = table.values.cols();
  if (cols < 2)
    throw DataError(table.file, 1, 0,
                    "at least one input column besides the target " + quote_bytes(target),
                    "only the target column");
  if (!whole) return t;
  if (rows < 2)
    throw DataError(table.file, 0, 0, "at least 2 data lines to fit on", std::to_string(rows));
  for (Eigen::Index c = 0; c < cols; ++c) {
    const double first = table.values(0, c);
    if ((table.values.col(c).array() == first).all())
      throw DataError(table.file, 0, static_cast<std::size_t>(c + 1),
                      std::string(c == t ? "a target" : "an input") + " column whose values vary",
                      table.describe_column(c) + " holding " + fmt::format("{}", first) +
                          " on every one of its " + std::to_string(rows) + " data lines (" +
                          std::to_string(table.lines.front()) + " to " +
                          std::to_string(table.lines.back()) + ")");
  }
  return t;
}

// Splits `table` into inputs and the target column `target`, taking its storage: the inputs
// stay where the table held them (the columns after the target move one to the left and the
// matrix is shrunk in place), only the target column is copied. Throws DataError (see the top
// of the file; `whole` as for check_training_columns). Cost: O(rows·columns) time; memory: one
// column.
inline TrainingTable select_training_columns(CsvTable&& table, std::string_view target,
                                             bool whole = true) {
  const Eigen::Index t = check_training_columns(table, target, whole);
  const Eigen::Index cols = table.values.cols();
  TrainingTable out;
  out.file = table.file;
  out.lines = std::move(table.lines);
  out.target_name = table.names[static_cast<std::size_t>(t)];
  for (Eigen::Index c = 0; c < cols; ++c)
    if (c != t) out.input_names.push_back(table.names[static_cast<std::size_t>(c)]);
  out.data.Y = table.values.col(t);
  for (Eigen::Index c = t + 1; c < cols; ++c) table.values.col(c - 1) = table.values.col(c);
  table.values.conservativeResize(Eigen::NoChange, cols - 1);
  out.data.X = std::move(table.values);
  return out;
}

// The same, leaving `table` as it is. Cost: O(rows·columns) time and a copy of the table.
inline TrainingTable select_training_columns(const CsvTable& table, std::string_view target) {
  return select_training_columns(CsvTable(table), target);
}

// read_csv_table + select_training_columns, the table's storage taken. Throws DataError.
// Cost: O(file size) time; memory: the table's doubles and read_csv_table's buffers.
inline TrainingTable load_training_table(const std::filesystem::path& file,
                                         std::string_view target) {
  return select_training_columns(read_csv_table(file), target);
}

}  // namespace ngvi::io
