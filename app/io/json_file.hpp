// JSON files of the command-line tool (nlohmann-json): written atomically, read with errors
// that name the file, line and column.
//
// Every JSON file the tool writes (results.json, a verification report, a saved posterior) goes
// through write_json_file, so it is complete or absent, never half-written. read_json_file turns
// nlohmann's byte offset of a syntax error into the line and column a user can look up.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <app/io/atomic_write.hpp>
#include <nlohmann/json.hpp>

#include <nn/data_error.hpp>

namespace ngvi::app {

// Writes `j` to `path`, indented by two spaces, atomically. Throws FileError (see
// write_file_atomically). Cost: O(size of the text).
inline void write_json_file(const std::filesystem::path& path, const nlohmann::json& j) {
  write_file_atomically(path, j.dump(2) + "\n");
}

// Parses `path` as JSON. Throws nn::DataError naming the file, the line and column of a syntax
// error and what the parser expected, or that the file cannot be opened. Cost: O(file size).
inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw nn::DataError(path, 0, 0, "a readable JSON file", "a file that cannot be opened");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t at = e.byte == 0 ? 0 : (e.byte - 1 < text.size() ? e.byte - 1 : text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    const std::size_t from = at < 20 ? 0 : at - 20;
    throw nn::DataError(
        path, line, column, "valid JSON",
        "a syntax error near " + nn::quote_bytes(std::string_view(text).substr(from, 40)));
  }
}

}  // namespace ngvi::app
