// Numeric tables: text files of numbers (whitespace- or comma-separated) read into matrices and
// Datasets.
//
// Real data files are where user errors happen, so every problem is a DataError
// (io/data_error.hpp) that names the file, the 1-based line, the 1-based field ("column")
// and what was expected versus what was found: a ragged row, a field that is not a number,
// a NaN or infinity, an empty file, a column or row index outside the table. Pieces of the
// file quoted in a message are escaped (quote_bytes), whatever bytes they hold. Nothing here
// asserts or crashes on bad input. Empty lines (and lines holding only whitespace) are
// skipped, as are lines starting with '#'; CRLF line ends are accepted. The separator is
// detected from the first data line (a comma means CSV) unless set in LoadOptions.
//
// The UCI folder reader (io/uci_folder.hpp) reads its files with load_matrix and load_indices;
// the CSV reader with named columns (io/csv_table.hpp) parses its numbers with parse_number.
#pragma once

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <Eigen/Core>
#include <io/data_error.hpp>

#include <nn/dataset.hpp>

namespace ngvi::io {

struct LoadOptions {
  enum class Separator { automatic, whitespace, comma };
  Separator separator = Separator::automatic;
  // Lines to skip at the top (a header), counted before empty/comment lines are skipped.
  std::size_t header_lines = 0;
};

// Parses one field of `file` (at 1-based `line` and `column`, for the message) as a finite
// double, or throws DataError: an empty field, trailing characters, NaN, an infinity or a value
// outside the range of double. A leading '+' is accepted. Cost: O(|field|).
inline double parse_number(std::string_view field, const std::filesystem::path& file,
                           std::size_t line, std::size_t column) {
  if (field.empty()) throw DataError(file, line, column, "a number", "an empty field");
  std::string_view s = field;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    throw DataError(file, line, column, "a finite number",
                    quote_bytes(field) + " (out of the range of double)");
  if (ec != std::errc() || end != s.data() + s.size())
    throw DataError(file, line, column, "a number", quote_bytes(field));
  if (std::isnan(v))
    throw DataError(file, line, column, "a finite number", "NaN " + quote_bytes(field));
  if (std::isinf(v))
    throw DataError(file, line, column, "a finite number", "infinity " + quote_bytes(field));
  return v;
}

namespace detail {

inline std::vector<std::string_view> split_fields(std::string_view line, bool comma) {
  std::vector<std::string_view> out;
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
  };
  auto trim = [&](std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
  };
  if (comma) {
    std::size_t start = 0;
    while (true) {
      const std::size_t pos = line.find(',', start);
      out.push_back(trim(line.substr(
          start, pos == std::string_view::npos ? std::string_view::npos : pos - start)));
      if (pos == std::string_view::npos) break;
      start = pos + 1;
    }
  } else {
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && is_space(line[i])) ++i;
      const std::size_t j = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      if (i > j) out.push_back(line.substr(j, i - j));
    }
  }
  return out;
}

inline bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f') return false;
  return true;
}

}  // namespace detail

// Reads a rectangular table of finite numbers. Throws DataError (see the top of this file).
// Cost: O(file size).
inline Eigen::MatrixXd load_matrix(const std::filesystem::path& file,
                                   const LoadOptions& options = {}) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file, 0, 0, "a readable file", "a file that cannot be opened");
  std::vector<double> values;
  std::size_t cols = 0, rows = 0, first_data_line = 0, line_no = 0;
  std::optional<bool> comma;
  if (options.separator != LoadOptions::Separator::automatic)
    comma = options.separator == LoadOptions::Separator::comma;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no <= options.header_lines) continue;
    if (detail::is_blank(line)) continue;
    std::string_view sv(line);
    {
      std::size_t k = 0;
      while (k < sv.size() && (sv[k] == ' ' || sv[k] == '\t')) ++k;
      if (k < sv.size() && sv[k] == '#') continue;
    }
    if (!comma) comma = sv.find(',') != std::string_view::npos;
    const auto fields = detail::split_fields(sv, *comma);
    if (rows == 0) {
      cols = fields.size();
      first_data_line = line_no;
    } else if (fields.size() != cols) {
      throw DataError(
          file, line_no, fields.size() < cols ? fields.size() + 1 : cols + 1,
          std::to_string(cols) + " fields (as on line " + std::to_string(first_data_line) + ")",
          std::to_string(fields.size()) + " fields");
    }
    for (std::size_t c = 0; c < fields.size(); ++c)
      values.push_back(parse_number(fields[c], file, line_no, c + 1));
    ++rows;
  }
  if (in.bad()) throw DataError(file, line_no, 0, "a readable file", "a read error");
  if (rows == 0) throw DataError(file, 0, 0, "at least one row of numbers", "an empty file");
  Eigen::MatrixXd M(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      M(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = values[r * cols + c];
  return M;
}

// Selects columns of a loaded table as inputs and targets (0-based column indices).
// Throws DataError naming the first column index outside the table.
inline nn::Dataset select_columns(const Eigen::MatrixXd& table,
                                  const std::vector<Eigen::Index>& x_cols,
                                  const std::vector<Eigen::Index>& y_cols,
                                  const std::filesystem::path& file = "<table>") {
  auto pick = [&](const std::vector<Eigen::Index>& cols, const char* what) {
    Eigen::MatrixXd M(table.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const Eigen::Index c = cols[k];
      if (c < 0 || c >= table.cols())
        throw DataError(file, 0, 0,
                        std::string(what) + " column indices in 0.." +
                            std::to_string(table.cols() - 1) + " (the table has " +
                            std::to_string(table.cols()) + " columns)",
                        "column index " + std::to_string(c));
      M.col(static_cast<Eigen::Index>(k)) = table.col(c);
    }
    return M;
  };
  return nn::Dataset{pick(x_cols, "input"), pick(y_cols, "target")};
}

// load_matrix + select_columns.
inline nn::Dataset load_dataset(const std::filesystem::path& file,
                                const std::vector<Eigen::Index>& x_cols,
                                const std::vector<Eigen::Index>& y_cols,
                                const LoadOptions& options = {}) {
  return select_columns(load_matrix(file, options), x_cols, y_cols, file);
}

// A file of non-negative integers, one per line (blank lines skipped), e.g. a UCI split.
// Throws DataError for a value that is negative, fractional or above 2^53 (beyond which a double
// no longer holds every integer). Cost: O(file size).
inline std::vector<Eigen::Index> load_indices(const std::filesystem::path& file) {
  const Eigen::MatrixXd M = load_matrix(file, LoadOptions{LoadOptions::Separator::whitespace, 0});
  if (M.cols() != 1)
    throw DataError(file, 1, 2, "one index per line",
                    std::to_string(M.cols()) + " fields per line");
  constexpr double largest = 9007199254740992.0;  // 2^53
  std::vector<Eigen::Index> idx;
  idx.reserve(static_cast<std::size_t>(M.rows()));
  for (Eigen::Index r = 0; r < M.rows(); ++r) {
    const double v = M(r, 0);
    if (v < 0 || v > largest || std::floor(v) != v)
      throw DataError(file, 0, 1, "non-negative integer indices up to 2^53",
                      "the value " + std::to_string(v) + " in data row " + std::to_string(r + 1));
    idx.push_back(static_cast<Eigen::Index>(v));
  }
  return idx;
}

}  // namespace ngvi::io
