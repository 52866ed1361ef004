// DataError: how every problem with a data file is reported, and how its bytes are shown.
//
// A DataError (a std::runtime_error) names the file, the 1-based line, the 1-based field
// ("column") and what was expected versus what was found. The readers of the io module (numeric
// tables, the UCI folder, CSV tables with named columns, JSON, checkpoints) throw it. What was
// found is often a piece of the file itself, which may hold any bytes at all (a binary file passed
// by mistake, a corrupted download): quote_bytes shows such a piece with every byte outside
// printable ASCII escaped, so an error message never writes raw control characters or invalid UTF-8
// to a terminal or log.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ngvi::io {

// `s` in single quotes, printable ASCII kept as it is, a backslash or a quote escaped with a
// backslash, \t \n \r named, every other byte as \xHH; longer than `max_bytes` input bytes, the
// rest is replaced by "...". Cost: O(min(|s|, max_bytes)).
inline std::string quote_bytes(std::string_view s, std::size_t max_bytes = 40) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string q = "'";
  const std::size_t n = s.size() > max_bytes ? max_bytes : s.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == '\'') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c == '\t') {
      q += "\\t";
    } else if (c == '\n') {
      q += "\\n";
    } else if (c == '\r') {
      q += "\\r";
    } else if (c >= 0x20 && c < 0x7f) {
      q += static_cast<char>(c);
    } else {
      q += "\\x";
      q += hex[c >> 4];
      q += hex[c & 0xf];
    }
  }
  if (s.size() > n) q += "...";
  return q + "'";
}

class DataError : public std::runtime_error {
 public:
  // line and column are 1-based; 0 means "the file as a whole" / "the line as a whole".
  // `expected` and `found` are written by the caller; any piece of the file in them must have
  // gone through quote_bytes.
  DataError(std::filesystem::path file, std::size_t line, std::size_t column, std::string expected,
            std::string found)
      : std::runtime_error(format(file, line, column, expected, found)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        expected_(std::move(expected)),
        found_(std::move(found)) {}

  const std::filesystem::path& file() const { return file_; }
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  static std::string format(const std::filesystem::path& file, std::size_t line, std::size_t column,
                            const std::string& expected, const std::string& found) {
    std::string s = "ngvi::io data error in " + file.string();
    if (line > 0) s += ", line " + std::to_string(line);
    if (column > 0) s += ", column " + std::to_string(column);
    return s + ": expected " + expected + ", found " + found;
  }

  std::filesystem::path file_;
  std::size_t line_, column_;
  std::string expected_, found_;
};

}  // namespace ngvi::io
