// Loading numeric text files (whitespace- or comma-separated) into Datasets.
//
// Real data files are where user errors happen, so every problem is a DataError
// (nn/data_error.hpp) that names the file, the 1-based line, the 1-based field ("column")
// and what was expected versus what was found: a ragged row, a field that is not a number,
// a NaN or infinity, an empty file, a column or row index outside the table. Pieces of the
// file quoted in a message are escaped (quote_bytes), whatever bytes they hold. Nothing here
// asserts or crashes on bad input. Empty lines (and lines holding only whitespace) are
// skipped, as are lines starting with '#'; CRLF line ends are accepted. The separator is
// detected from the first data line (a comma means CSV) unless set in LoadOptions.
//
// load_uci_split reads the standard UCI regression splits in the format of data/uci/ (data.txt,
// index_features.txt, index_target.txt, index_train_<k>.txt, index_test_<k>.txt) and rejects a
// split whose training and test rows overlap (or that lists a row twice); uci_hidden_units and
// uci_split_count read the folder's n_hidden.txt and n_splits.txt.
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

#include <nn/data_error.hpp>
#include <nn/dataset.hpp>

namespace ngvi::nn {

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
inline Dataset select_columns(const Eigen::MatrixXd& table, const std::vector<Eigen::Index>& x_cols,
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
  return Dataset{pick(x_cols, "input"), pick(y_cols, "target")};
}

// load_matrix + select_columns.
inline Dataset load_dataset(const std::filesystem::path& file,
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

struct UciSplit {
  Dataset train;
  Dataset test;
  std::vector<Eigen::Index> feature_columns;
  Eigen::Index target_column = 0;
};

// Split k of a UCI folder in the format of data/uci/ (see data/uci/SOURCE.md).
// Throws DataError for missing or malformed files, for indices outside data.txt, for a row
// listed twice in one index file and for a row in both the training and the test split (test
// figures computed on training rows would be silently optimistic). Cost: O(size of the files).
inline UciSplit load_uci_split(const std::filesystem::path& dir, int split) {
  if (split < 0)
    throw DataError(dir, 0, 0, "a split number of at least 0", "split " + std::to_string(split));
  const Eigen::MatrixXd table = load_matrix(dir / "data.txt");
  UciSplit s;
  s.feature_columns = load_indices(dir / "index_features.txt");
  const auto target = load_indices(dir / "index_target.txt");
  if (target.size() != 1)
    throw DataError(dir / "index_target.txt", 0, 0, "exactly one target column",
                    std::to_string(target.size()));
  s.target_column = target[0];
  const Dataset all = select_columns(table, s.feature_columns, {s.target_column}, dir / "data.txt");
  // owner[r] names the index file that listed data row r first (empty: none yet).
  std::vector<std::string> owner(static_cast<std::size_t>(all.size()));
  auto rows = [&](const std::string& name) {
    const std::filesystem::path f = dir / name;
    const auto idx = load_indices(f);
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] >= all.size())
        throw DataError(f, 0, 0,
                        "row indices below " + std::to_string(all.size()) + " (rows of data.txt)",
                        std::to_string(idx[k]) + " in entry " + std::to_string(k + 1));
      std::string& first = owner[static_cast<std::size_t>(idx[k])];
      if (!first.empty())
        throw DataError(
            f, 0, 0,
            first == name ? "each row at most once" : "no row in both " + first + " and " + name,
            "row " + std::to_string(idx[k]) + " again in entry " + std::to_string(k + 1));
      first = name;
    }
    return idx;
  };
  s.train = all.subset(rows("index_train_" + std::to_string(split) + ".txt"));
  s.test = all.subset(rows("index_test_" + std::to_string(split) + ".txt"));
  return s;
}

namespace detail {

// The single positive integer in `file`, at most `largest`. Throws DataError otherwise.
inline int load_positive_count(const std::filesystem::path& file, int largest) {
  const std::vector<Eigen::Index> v = load_indices(file);
  if (v.size() != 1 || v[0] < 1 || v[0] > largest)
    throw DataError(file, 0, 0, "one integer in 1.." + std::to_string(largest),
                    v.size() == 1 ? std::to_string(v[0]) : std::to_string(v.size()) + " values");
  return static_cast<int>(v[0]);
}

}  // namespace detail

// The hidden-layer width of a UCI folder's protocol: n_hidden.txt if present, else `fallback`
// (the published protocol's 50). Throws DataError for a malformed n_hidden.txt. Cost: O(1).
inline int uci_hidden_units(const std::filesystem::path& dir, int fallback = 50) {
  const std::filesystem::path f = dir / "n_hidden.txt";
  return std::filesystem::exists(f) ? detail::load_positive_count(f, 1 << 20) : fallback;
}

// The number of splits of a UCI folder: n_splits.txt if present, else the number of
// consecutive index_train_<k>.txt files from k = 0. Throws DataError for a malformed
// n_splits.txt or a folder without any split. Cost: O(number of splits).
inline int uci_split_count(const std::filesystem::path& dir) {
  const std::filesystem::path f = dir / "n_splits.txt";
  if (std::filesystem::exists(f)) return detail::load_positive_count(f, 1 << 20);
  int k = 0;
  while (std::filesystem::exists(dir / ("index_train_" + std::to_string(k) + ".txt"))) ++k;
  if (k == 0) throw DataError(dir, 0, 0, "index_train_0.txt or n_splits.txt", "neither");
  return k;
}

}  // namespace ngvi::nn
