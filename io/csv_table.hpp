// read_csv_table: a numeric CSV file with a header line, as `ngvi fit --csv FILE` reads it.
//
// The dialect is RFC 4180: fields separated by commas, records by LF or CRLF, a field may be
// enclosed in double quotes (then it may hold commas, line breaks and "" for a quote). The first
// record names the columns (non-empty, distinct); every later record holds one finite number per
// column. Blank lines are skipped, a UTF-8 byte-order mark at the start is ignored, spaces and
// tabs around an unquoted field are trimmed. Every problem — a file that cannot be read, an
// unterminated quote, a ragged record, an empty, non-numeric, NaN or infinite cell, a missing or
// duplicated column name, no data — is an DataError naming the file, the line the record
// starts on and the 1-based column (its name too, once the header is read); pieces of the file
// in the message are escaped (quote_bytes). The whole table is read before anything is
// returned, so a caller never acts on half a file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <Eigen/Core>
#include <io/data_error.hpp>
#include <io/numeric_table.hpp>

namespace ngvi::io {

struct CsvTable {
  std::filesystem::path file;      // where it was read from (for later messages)
  std::vector<std::string> names;  // column names, from the header
  Eigen::MatrixXd values;          // one row per data record, one column per name
  std::vector<std::size_t> lines;  // the 1-based line each data record starts on

  // The index of the column called `name`. Throws DataError (line 1, the header) listing
  // the column names when there is none. Cost: O(columns).
  Eigen::Index column(std::string_view name) const {
    for (std::size_t c = 0; c < names.size(); ++c)
      if (names[c] == name) return static_cast<Eigen::Index>(c);
    std::string known;
    for (std::size_t c = 0; c < names.size() && c < 20; ++c)
      known += (c ? ", " : "") + quote_bytes(names[c]);
    if (names.size() > 20) known += ", ... (" + std::to_string(names.size()) + " columns)";
    throw DataError(file, 1, 0,
                    "a column named " + quote_bytes(name) + " in the header (" + known + ")",
                    "no such column");
  }
  // "column 3 ('price')": how messages name column c (0-based).
  std::string describe_column(Eigen::Index c) const {
    return "column " + std::to_string(c + 1) + " (" +
           quote_bytes(names[static_cast<std::size_t>(c)]) + ")";
  }
};

namespace detail {

// Splits `text` into records of fields (RFC 4180), recording the line each record starts on.
// Throws DataError for an unterminated quote or text after a closing quote.
class CsvScanner {
 public:
  CsvScanner(const std::filesystem::path& file, std::string_view text) : file_(file), text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  // The next non-blank record into `fields`; false at the end of the text.
  bool next(std::vector<std::string>& fields, std::size_t& line) {
    for (;;) {
      if (pos_ >= text_.size()) return false;
      fields.clear();
      line = line_;
      bool any_content = false;
      for (;;) {
        std::string field;
        const bool quoted = read_field(field, fields.size() + 1);
        any_content = any_content || quoted || !field.empty();
        fields.push_back(std::move(field));
        if (pos_ >= text_.size()) break;
        const char c = text_[pos_];
        if (c == ',') {
          ++pos_;
          any_content = true;
          continue;
        }
        // A line end: LF or CRLF (read_field stops only at ',' or '\n' or "\r\n").
        pos_ += c == '\r' ? 2 : 1;
        ++line_;
        break;
      }
      if (any_content) return true;
    }
  }

 private:
  static bool is_blank(char c) { return c == ' ' || c == '\t'; }
  bool at_line_end() const {
    return text_[pos_] == '\n' ||
           (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n');
  }

  // Reads one field, leaving pos_ at the ',' or line end after it (or the end of the text).
  // Returns whether it was quoted.
  bool read_field(std::string& field, std::size_t column) {
    while (pos_ < text_.size() && is_blank(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      const std::size_t start_line = line_;
      ++pos_;
      for (;;) {
        if (pos_ >= text_.size())
          throw DataError(file_, start_line, column, "a closing double quote",
                          "the end of the file");
        const char c = text_[pos_++];
        if (c == '"') {
          if (pos_ < text_.size() && text_[pos_] == '"') {
            field += '"';
            ++pos_;
            continue;
          }
          break;
        }
        if (c == '\n') ++line_;
        field += c;
      }
      while (pos_ < text_.size() && is_blank(text_[pos_])) ++pos_;
      if (pos_ < text_.size() && text_[pos_] != ',' && !at_line_end()) {
        const std::size_t end = text_.find_first_of(",\n", pos_);
        throw DataError(
            file_, line_, column, "a comma or a line end after the closing double quote",
            quote_bytes(text_.substr(pos_, end == std::string_view::npos ? end : end - pos_)));
      }
      return true;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && !at_line_end()) ++pos_;
    std::string_view raw = text_.substr(start, pos_ - start);
    while (!raw.empty() && is_blank(raw.back())) raw.remove_suffix(1);
    field.assign(raw);
    return false;
  }

  const std::filesystem::path& file_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

}  // namespace detail

// Reads `file` as described at the top of this file. Throws DataError.
// Cost: O(file size) time and memory.
inline CsvTable read_csv_table(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file))
    throw DataError(file, 0, 0, "a readable file", "a file that cannot be opened");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(file, 0, 0, "a readable file", "a read error");

  CsvTable t;
  t.file = file;
  detail::CsvScanner scan(file, text);
  std::vector<std::string> fields;
  std::size_t line = 0;
  if (!scan.next(fields, line))
    throw DataError(file, 0, 0, "a header line naming the columns", "an empty file");
  std::unordered_map<std::string_view, std::size_t> first_column;
  for (std::size_t c = 0; c < fields.size(); ++c) {
    if (fields[c].empty()) throw DataError(file, line, c + 1, "a column name", "an empty field");
    const auto [it, fresh] = first_column.emplace(fields[c], c);
    if (!fresh)
      throw DataError(file, line, c + 1, "distinct column names",
                      quote_bytes(fields[c]) + " again (first in column " +
                          std::to_string(it->second + 1) + ")");
  }
  t.names = fields;
  const std::size_t cols = t.names.size();
  const std::size_t header_line = line;

  std::vector<double> values;
  while (scan.next(fields, line)) {
    if (fields.size() != cols)
      throw DataError(file, line, fields.size() < cols ? fields.size() + 1 : cols + 1,
                      std::to_string(cols) + " fields (as in the header on line " +
                          std::to_string(header_line) + ")",
                      std::to_string(fields.size()) + " fields");
    for (std::size_t c = 0; c < cols; ++c) {
      try {
        values.push_back(parse_number(fields[c], file, line, c + 1));
      } catch (const DataError& e) {
        throw DataError(file, line, c + 1,
                        e.expected() + " in " + t.describe_column(static_cast<Eigen::Index>(c)),
                        e.found());
      }
    }
    t.lines.push_back(line);
  }
  if (t.lines.empty())
    throw DataError(file, 0, 0, "at least one data line after the header", "only the header");
  const auto rows = static_cast<Eigen::Index>(t.lines.size());
  t.values.resize(rows, static_cast<Eigen::Index>(cols));
  for (Eigen::Index r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      t.values(r, static_cast<Eigen::Index>(c)) = values[static_cast<std::size_t>(r) * cols + c];
  return t;
}

}  // namespace ngvi::io
