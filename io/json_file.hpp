// JSON files of the command-line tool (nlohmann-json): written atomically, read with errors
// that name the file, line and column.
//
// Every JSON file the tool writes (results.json, a verification report, a saved posterior) goes
// through write_json_file, so it is complete or absent, never half-written. read_json_file turns
// nlohmann's byte offset of a syntax error into the line and column a user can look up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include <io/atomic_write.hpp>
#include <io/data_error.hpp>
#include <nlohmann/json.hpp>

namespace ngvi::io {

// Writes `j` to `path`, indented by two spaces, atomically. Throws FileError (see
// write_file_atomically). Cost: O(size of the text).
inline void write_json_file(const std::filesystem::path& path, const nlohmann::json& j) {
  write_file_atomically(path, j.dump(2) + "\n");
}

namespace detail {

// The 1-based line and column of byte offset `at` of `text`.
inline std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace detail

// Parses `path` as JSON. Throws DataError naming the file, the line and column of a syntax
// error and what the parser expected, or of a number too large for a double (nlohmann throws
// out_of_range 406 for 1e999, with the token but not its place), or that the file cannot be
// opened. Cost: O(file size).
inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw DataError(path, 0, 0, "a readable JSON file", "a file that cannot be opened");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string_view view(text);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t at = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, text.size());
    const auto [line, column] = detail::line_and_column(view, at);
    const std::size_t from = at < 20 ? 0 : at - 20;
    throw DataError(path, line, column, "valid JSON",
                    "a syntax error near " + quote_bytes(view.substr(from, 40)));
  } catch (const nlohmann::json::out_of_range& e) {
    // The message ends "parsing '<token>'": find the token to give its place.
    const std::string_view what(e.what());
    const std::size_t open = what.find("parsing '");
    const std::string_view token =
        open == std::string_view::npos
            ? std::string_view()
            : what.substr(open + 9, what.size() - (open + 9) - (what.ends_with('\'') ? 1 : 0));
    const std::size_t at = token.empty() ? std::string_view::npos : view.find(token);
    const auto [line, column] = at == std::string_view::npos
                                    ? std::pair<std::size_t, std::size_t>{0, 0}
                                    : detail::line_and_column(view, at);
    throw DataError(path, line, column, "a number that fits a double",
                    "the number " + quote_bytes(token.substr(0, 40)));
  }
}

}  // namespace ngvi::io
