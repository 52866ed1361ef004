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
//
// The file is streamed: it is read in chunks (CsvReadOptions::chunk_bytes) into one buffer that
// holds the record being read (a record longer than a chunk, a quoted field may cross chunks and
// lines, grows it), each field is parsed where it lies in the buffer (a quoted one unescaped in
// place), and each number goes straight into one row-major buffer of doubles. At the end that
// buffer becomes the column-major matrix CsvTable::values slice by slice from its last rows,
// shrinking as it goes; the lines of the records are kept as runs (io/record_lines.hpp). So the
// memory is the table's doubles (8 bytes per cell) plus one chunk, one record and one slice of
// 8 MiB, not a copy of the file nor a string per cell. A caller that holds only some rows (a
// process of a run whose data are divided by row blocks) reads the data records
// first_row..first_row + row_count − 1 alone (CsvReadOptions): the records before them are split
// into fields and counted, not parsed, and reading stops after the last; count_csv_records counts
// the data records of a file, checking their field counts, without keeping any.
// That peak relies on what Linux and glibc
// do with a large buffer (above 32 MiB it is mapped on its own): realloc grows and shrinks it
// without copying it, and a fresh matrix occupies memory only as its pages are written. (A quote
// that is never closed makes the rest of the file one record, held whole until the error.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <Eigen/Core>
#include <io/data_error.hpp>
#include <io/numeric_table.hpp>
#include <io/record_lines.hpp>

namespace ngvi::io {

struct CsvTable {
  std::filesystem::path file;      // where it was read from (for later messages)
  std::vector<std::string> names;  // column names, from the header
  Eigen::MatrixXd values;          // one row per data record, one column per name
  RecordLines lines;               // the 1-based line each data record starts on

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

struct CsvReadOptions {
  // Bytes read from the file at a time (at least 1). Default 64 KiB.
  std::size_t chunk_bytes = std::size_t{1} << 16;
  // The data records to read, 0-based (the header is not counted): from first_row, row_count
  // of them (−1: to the end of the file).
  std::size_t first_row = 0;
  std::ptrdiff_t row_count = -1;
};

namespace detail {

// Splits the stream `in` (the contents of `file`) into records of fields (RFC 4180), read
// chunk_bytes at a time, recording the line each record starts on. The fields of the last record
// returned are views into the buffer, valid until the next call of next(). Throws DataError for
// an unterminated quote, text after a closing quote, or a read error.
class CsvScanner {
 public:
  CsvScanner(const std::filesystem::path& file, std::istream& in, std::size_t chunk_bytes)
      : file_(file), in_(in), chunk_(chunk_bytes) {
    if (have(3) && std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
  }

  // The next non-blank record (its fields: size(), field(k)); false at the end of the file.
  // `line` is set to the line it starts on. Cost: O(record bytes), and reading them.
  bool next(std::size_t& line) {
    for (;;) {
      record_ = pos_;  // the bytes before are done with (the next fill drops them)
      if (!have()) return false;
      fields_.clear();
      line = line_;
      bool any_content = false;
      for (;;) {
        const bool quoted = read_field(fields_.size() + 1);
        any_content = any_content || quoted || fields_.back().size > 0;
        if (!have()) break;
        const char c = buf_[pos_];
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

  std::size_t size() const { return fields_.size(); }
  // Field k (0-based) of the record, its quotes removed and "" unescaped.
  std::string_view field(std::size_t k) const {
    return {buf_.data() + record_ + fields_[k].begin, fields_[k].size};
  }

 private:
  struct Field {
    std::size_t begin, size;  // bytes, from the start of the record
  };

  static bool is_blank(char c) { return c == ' ' || c == '\t'; }

  // Whether at least n bytes from pos_ are in the buffer, reading chunks until they are or the
  // file ends. Reading moves the record being read to the front of the buffer (so positions
  // are kept relative to record_) and grows the buffer if the record fills it.
  bool have(std::size_t n = 1) {
    while (end_ - pos_ < n) {
      if (eof_) return false;
      if (record_ > 0) {
        std::memmove(buf_.data(), buf_.data() + record_, end_ - record_);
        pos_ -= record_;
        end_ -= record_;
        record_ = 0;
      }
      if (buf_.size() < end_ + chunk_) buf_.resize(end_ + chunk_);
      in_.read(buf_.data() + end_, static_cast<std::streamsize>(chunk_));
      if (in_.bad()) throw DataError(file_, 0, 0, "a readable file", "a read error");
      const auto got = static_cast<std::size_t>(in_.gcount());
      end_ += got;
      eof_ = got < chunk_;
    }
    return true;
  }

  bool at_line_end() {
    return buf_[pos_] == '\n' || (buf_[pos_] == '\r' && have(2) && buf_[pos_ + 1] == '\n');
  }

  // Reads one field into fields_, leaving pos_ at the ',' or line end after it (or the end of
  // the file). Returns whether it was quoted.
  bool read_field(std::size_t column) {
    while (have() && is_blank(buf_[pos_])) ++pos_;
    if (have() && buf_[pos_] == '"') {
      const std::size_t start_line = line_;
      ++pos_;
      // The content is written over the field's own bytes, never ahead of pos_.
      const std::size_t begin = pos_ - record_;
      std::size_t out = begin;
      for (;;) {
        if (!have())
          throw DataError(file_, start_line, column, "a closing double quote",
                          "the end of the file");
        const char c = buf_[pos_++];
        if (c == '"') {
          if (have() && buf_[pos_] == '"') {
            buf_[record_ + out++] = '"';
            ++pos_;
            continue;
          }
          break;
        }
        if (c == '\n') ++line_;
        buf_[record_ + out++] = c;
      }
      fields_.push_back(Field{begin, out - begin});
      while (have() && is_blank(buf_[pos_])) ++pos_;
      if (have() && buf_[pos_] != ',' && !at_line_end()) {
        // What follows, up to a comma or LF: 41 bytes are as many as quote_bytes shows.
        have(41);
        const std::string_view rest(buf_.data() + pos_, std::min<std::size_t>(41, end_ - pos_));
        throw DataError(file_, line_, column,
                        "a comma or a line end after the closing double quote",
                        quote_bytes(rest.substr(0, rest.find_first_of(",\n"))));
      }
      return true;
    }
    const std::size_t begin = pos_ - record_;
    while (have() && buf_[pos_] != ',' && !at_line_end()) ++pos_;
    std::size_t size = pos_ - record_ - begin;
    while (size > 0 && is_blank(buf_[record_ + begin + size - 1])) --size;
    fields_.push_back(Field{begin, size});
    return false;
  }

  const std::filesystem::path& file_;
  std::istream& in_;
  const std::size_t chunk_;
  std::vector<char> buf_;  // bytes [0, end_) read; the record being read starts at record_
  std::size_t record_ = 0, pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::size_t line_ = 1;
  std::vector<Field> fields_;
};

// Rows of `cols` numbers appended one at a time to one row-major buffer, grown by realloc
// (doubling), then moved into a column-major matrix by take_matrix(). Cost: O(1) amortised per
// row, O(rows·cols) for take_matrix.
class RowBuffer {
 public:
  explicit RowBuffer(std::size_t cols) : cols_(cols) {}
  RowBuffer(const RowBuffer&) = delete;
  RowBuffer& operator=(const RowBuffer&) = delete;
  ~RowBuffer() { std::free(data_); }

  // Room for the next row's cols numbers.
  double* append() {
    if (rows_ == capacity_) reallocate(std::max<std::size_t>(2 * capacity_, 64));
    return data_ + cols_ * rows_++;
  }

  // The rows as a rows × cols matrix; the buffer is left empty. The matrix is filled from its
  // last rows up in slices of slice_values numbers, the buffer shrunk by each slice once copied.
  Eigen::MatrixXd take_matrix() {
    Eigen::MatrixXd m(static_cast<Eigen::Index>(rows_), static_cast<Eigen::Index>(cols_));
    const std::size_t slice = std::max<std::size_t>(1, slice_values / cols_);
    for (std::size_t end = rows_; end > 0;) {
      const std::size_t first = end > slice ? end - slice : 0;
      for (std::size_t c = 0; c < cols_; ++c) {
        double* column = m.col(static_cast<Eigen::Index>(c)).data();
        for (std::size_t r = first; r < end; ++r) column[r] = data_[cols_ * r + c];
      }
      if (first > 0) reallocate(first);
      end = first;
    }
    std::free(data_);
    data_ = nullptr;
    rows_ = capacity_ = 0;
    return m;
  }

 private:
  static constexpr std::size_t slice_values = std::size_t{1} << 20;  // 8 MiB

  void reallocate(std::size_t rows) {
    void* p = std::realloc(data_, sizeof(double) * cols_ * rows);
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<double*>(p);
    capacity_ = rows;
  }

  std::size_t cols_;
  double* data_ = nullptr;
  std::size_t rows_ = 0, capacity_ = 0;
};

}  // namespace detail

namespace detail {

// Opens `file` for read_csv_table and count_csv_records. Throws DataError and
// std::invalid_argument (chunk_bytes = 0) naming `who`.
inline std::ifstream open_csv(const std::filesystem::path& file, const CsvReadOptions& options,
                              const char* who) {
  if (options.chunk_bytes == 0)
    throw std::invalid_argument(std::string("ngvi::io::") + who +
                                ": options.chunk_bytes must be at least 1");
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file))
    throw DataError(file, 0, 0, "a readable file", "a file that cannot be opened");
  return in;
}

// Throws DataError unless the record on `line` has `cols` fields, as the header (on
// header_line) has.
inline void check_field_count(const std::filesystem::path& file, std::size_t line,
                              std::size_t fields, std::size_t cols, std::size_t header_line) {
  if (fields != cols)
    throw DataError(file, line, fields < cols ? fields + 1 : cols + 1,
                    std::to_string(cols) + " fields (as in the header on line " +
                        std::to_string(header_line) + ")",
                    std::to_string(fields) + " fields");
}

}  // namespace detail

// The number of data records of `file` (the records after the header), each checked to have as
// many fields as the header; nothing is parsed or kept. Throws DataError (the file cannot be
// read, has no header, or a record is ragged or unterminated). Cost: O(file size) time; memory:
// one chunk and the longest record.
inline std::size_t count_csv_records(const std::filesystem::path& file,
                                     const CsvReadOptions& options = {}) {
  std::ifstream in = detail::open_csv(file, options, "count_csv_records");
  detail::CsvScanner scan(file, in, options.chunk_bytes);
  std::size_t line = 0;
  if (!scan.next(line))
    throw DataError(file, 0, 0, "a header line naming the columns", "an empty file");
  const std::size_t cols = scan.size(), header_line = line;
  std::size_t records = 0;
  for (; scan.next(line); ++records)
    detail::check_field_count(file, line, scan.size(), cols, header_line);
  return records;
}

// Reads `file` as described at the top of this file: every data record, or those that
// options.first_row and row_count select. Throws DataError (also when the file holds fewer
// records than selected), and std::invalid_argument for options.chunk_bytes = 0. Cost: O(bytes
// up to the last record read) time; memory: the doubles of the records read, one chunk, the
// longest record and an 8 MiB slice (see the top of the file).
inline CsvTable read_csv_table(const std::filesystem::path& file,
                               const CsvReadOptions& options = {}) {
  std::ifstream in = detail::open_csv(file, options, "read_csv_table");
  CsvTable t;
  t.file = file;
  detail::CsvScanner scan(file, in, options.chunk_bytes);
  std::size_t line = 0;
  if (!scan.next(line))
    throw DataError(file, 0, 0, "a header line naming the columns", "an empty file");
  for (std::size_t c = 0; c < scan.size(); ++c) t.names.emplace_back(scan.field(c));
  std::unordered_map<std::string_view, std::size_t> first_column;
  for (std::size_t c = 0; c < t.names.size(); ++c) {
    if (t.names[c].empty()) throw DataError(file, line, c + 1, "a column name", "an empty field");
    const auto [it, fresh] = first_column.emplace(t.names[c], c);
    if (!fresh)
      throw DataError(file, line, c + 1, "distinct column names",
                      quote_bytes(t.names[c]) + " again (first in column " +
                          std::to_string(it->second + 1) + ")");
  }
  const std::size_t cols = t.names.size();
  const std::size_t header_line = line;

  detail::RowBuffer values(cols);
  const bool some = options.first_row > 0 || options.row_count >= 0;
  const std::size_t end =
      options.row_count >= 0 ? options.first_row + static_cast<std::size_t>(options.row_count) : 0;
  for (std::size_t record = 0; (options.row_count < 0 || record < end) && scan.next(line);
       ++record) {
    detail::check_field_count(file, line, scan.size(), cols, header_line);
    if (record < options.first_row) continue;
    double* row = values.append();
    for (std::size_t c = 0; c < cols; ++c) {
      try {
        row[c] = parse_number(scan.field(c), file, line, c + 1);
      } catch (const DataError& e) {
        throw DataError(file, line, c + 1,
                        e.expected() + " in " + t.describe_column(static_cast<Eigen::Index>(c)),
                        e.found());
      }
    }
    t.lines.push_back(line);
  }
  if (some &&
      (t.lines.size() == 0 ||
       (options.row_count >= 0 && t.lines.size() < static_cast<std::size_t>(options.row_count))))
    throw DataError(file, 0, 0,
                    "data records " + std::to_string(options.first_row + 1) + " to " +
                        (options.row_count >= 0 ? std::to_string(end) : std::string("the end")),
                    std::to_string(options.first_row + t.lines.size()) + " data records");
  if (t.lines.empty())
    throw DataError(file, 0, 0, "at least one data line after the header", "only the header");
  t.values = values.take_matrix();
  return t;
}

}  // namespace ngvi::io
