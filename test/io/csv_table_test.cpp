// Tests of io/csv_table.hpp: the RFC 4180 dialect (quotes, CRLF, BOM, blank lines) and an
// error naming file, line and column (and the column's name) for every malformed input, with
// random bytes escaped — whatever the size of the chunks the file is streamed in — and of the
// record lines it keeps as runs (io/record_lines.hpp).
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>
#include <io/csv_table.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(csv_table_test)

namespace fs = std::filesystem;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;
using ngvi::test::contains;
using ngvi::test::TempDir;

namespace {

// Chunk sizes the error cases are read with: 1 and 2 bytes (a boundary at every byte, inside
// every CRLF and quoted field), 7 bytes and the default.
constexpr std::size_t error_chunks[] = {1, 2, 7, ngvi::io::CsvReadOptions{}.chunk_bytes};

// Reading `content` must fail at (line, column) with a message naming the file and holding
// every piece in `parts`, in printable ASCII, the same message for every chunk size.
void expect_error(const std::string& content, std::size_t line, std::size_t column,
                  std::initializer_list<std::string> parts) {
  TempDir dir;
  const fs::path p = dir.write("bad.csv", content);
  std::string first_message;
  for (const std::size_t chunk : error_chunks) {
    try {
      (void)ngvi::io::read_csv_table(p, {.chunk_bytes = chunk});
      BOOST_FAIL("no DataError for: " << ngvi::io::quote_bytes(content, 200));
    } catch (const ngvi::io::DataError& e) {
      const std::string msg = e.what();
      BOOST_TEST(e.line() == line, msg);
      BOOST_TEST(e.column() == column, msg);
      BOOST_TEST(contains(msg, p.string()), msg);
      BOOST_TEST(ngvi::test::printable_ascii(msg), msg);
      for (const std::string& part : parts)
        BOOST_TEST(contains(msg, part), msg << "\n  lacks: " << part);
      if (first_message.empty()) first_message = msg;
      BOOST_TEST(msg == first_message, "chunk " << chunk);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_header_and_numbers) {
  TempDir dir;
  const auto t = ngvi::io::read_csv_table(dir.write(
      "t.csv",
      "\xEF\xBB\xBF"
      "x1, \"price, in $\" ,\"say \"\"hi\"\"\"\r\n1,2.5,-3e2\r\n\r\n 4 ,+5,\"6\"\n\n7,8,9"));
  BOOST_TEST(t.names.size() == 3u);
  BOOST_TEST(t.names[0] == "x1");
  BOOST_TEST(t.names[1] == "price, in $");
  BOOST_TEST(t.names[2] == "say \"hi\"");
  Eigen::MatrixXd ref(3, 3);
  ref << 1, 2.5, -300, 4, 5, 6, 7, 8, 9;
  NGVI_CHECK_REPORT(compare(t.values, ref, tol::exact, "csv values"));
  BOOST_TEST(t.lines == (std::vector<std::size_t>{2, 4, 6}),
             "the line of each record, blank lines counted");
  BOOST_TEST(t.column("say \"hi\"") == 2);
}

BOOST_AUTO_TEST_CASE(a_quoted_line_break_counts_as_a_line) {
  TempDir dir;
  const auto t = ngvi::io::read_csv_table(dir.write("q.csv", "a,\"b\nc\"\n1,2\n3,4\n"));
  BOOST_TEST(t.names[1] == "b\nc");
  BOOST_TEST(t.lines == (std::vector<std::size_t>{3, 4}));
}

BOOST_AUTO_TEST_CASE(unknown_column_lists_the_known_ones) {
  TempDir dir;
  const auto t = ngvi::io::read_csv_table(dir.write("t.csv", "a,b\n1,2\n"));
  try {
    (void)t.column("price\x01");
    BOOST_FAIL("no DataError");
  } catch (const ngvi::io::DataError& e) {
    BOOST_TEST(contains(e.what(), R"(a column named 'price\x01' in the header ('a', 'b'))"),
               e.what());
    BOOST_TEST(contains(e.what(), "line 1"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(header_errors) {
  expect_error("", 0, 0, {"a header line", "an empty file"});
  expect_error("\n \n", 0, 0, {"an empty file"});
  expect_error("a,b\n", 0, 0, {"at least one data line", "only the header"});
  expect_error("a,,c\n1,2,3\n", 1, 2, {"a column name", "an empty field"});
  expect_error("a,b,a\n1,2,3\n", 1, 3, {"distinct column names", "'a' again (first in column 1)"});
}

BOOST_AUTO_TEST_CASE(record_errors) {
  expect_error("a,b,c\n1,2,3\n4,5\n", 3, 3, {"3 fields (as in the header on line 1)", "2 fields"});
  expect_error("a,b\n1,2,3\n", 2, 3, {"3 fields"});
  expect_error("a,b\n1,x\n", 2, 2, {"column 2 ('b')", "'x'"});
  expect_error("a,b\n1,\n", 2, 2, {"column 2 ('b')", "an empty field"});
  expect_error("a,b\n1,2\n\nnan,2\n", 4, 1, {"a finite number", "NaN"});
  expect_error("a,b\n1,-inf\n", 2, 2, {"infinity"});
  expect_error("a,b\n1,1e999\n", 2, 2, {"out of the range"});
  expect_error("a,b\n1,\"2\n3,4\n", 2, 2, {"a closing double quote", "the end of the file"});
  expect_error("a,b\n1,\"2\"x,\n", 2, 2, {"after the closing double quote", "'x'"});
  // What follows a closing quote is shown up to a comma or LF, at most 40 bytes and "...".
  expect_error("a,b\n1,\"2\" " + std::string(45, 'y') + "\n", 2, 2,
               {"found '" + std::string(40, 'y') + "...'"});
  expect_error("a,b\n1,\"2\"" + std::string(40, 'y') + ",3\n", 2, 2,
               {"found '" + std::string(40, 'y') + "'"});
}

BOOST_AUTO_TEST_CASE(random_bytes_are_escaped) {
  expect_error(std::string("a,b\n1,\x80\x01\x1b[2J\0\n", 14), 2, 2, {R"('\x80\x01\x1b[2J\x00')"});
  expect_error(std::string("\xff\xfe,b\n1,2\n3,\xc3\x28\n"), 3, 2,
               {R"(column 2 ('b'))", R"('\xc3(')"});
  TempDir dir;
  BOOST_CHECK_THROW((void)ngvi::io::read_csv_table(dir.path / "missing.csv"), ngvi::io::DataError);
  BOOST_CHECK_THROW((void)ngvi::io::read_csv_table(dir.path), ngvi::io::DataError);
}

// A file whose header holds a quoted name with a comma, "" and a CRLF, whose records end in CRLF
// or LF with a blank line between, one of them longer than most chunks.
BOOST_AUTO_TEST_CASE(chunk_boundaries_anywhere_give_the_same_table) {
  const std::string long_number = "1" + std::string(60, '0') + "e-60";  // exactly 1
  const std::string content =
      "\xEF\xBB\xBF"
      "id,\"x, \"\"q\"\"\r\nname\" , y\r\n"
      "1,\"2.5\",-3\r\n"
      "\r\n"
      " 4 , +5e-1 ,\"6\"\n"
      "\"7\",8,9\r\n" +
      long_number + ",10,11";
  TempDir dir;
  const fs::path p = dir.write("chunks.csv", content);
  // The table by hand, and as read in one chunk (another route: no boundary but the file's end).
  const std::vector<std::string> names = {"id", "x, \"q\"\r\nname", "y"};
  Eigen::MatrixXd ref(4, 3);
  ref << 1, 2.5, -3, 4, 0.5, 6, 7, 8, 9, 1, 10, 11;
  const std::vector<std::size_t> lines = {3, 5, 6, 7};
  const auto whole = ngvi::io::read_csv_table(p, {.chunk_bytes = content.size() + 1});
  BOOST_TEST(whole.names == names);
  NGVI_CHECK_REPORT(compare(whole.values, ref, tol::exact, "one chunk"));
  BOOST_TEST(whole.lines == lines);
  BOOST_TEST(whole.lines.runs() == 2u, "runs: line 3, then lines 5, 6, 7");
  // Chunk sizes 1 .. size put a boundary after every byte: between the CR and LF of every CRLF,
  // inside the byte-order mark, the quoted name, its "" and the long number.
  for (std::size_t chunk = 1; chunk <= content.size(); ++chunk) {
    const auto t = ngvi::io::read_csv_table(p, {.chunk_bytes = chunk});
    BOOST_TEST(t.names == whole.names, "chunk " << chunk);
    NGVI_CHECK_REPORT(
        compare(t.values, whole.values, tol::exact, "chunk " + std::to_string(chunk)));
    BOOST_TEST(t.lines == whole.lines, "chunk " << chunk);
  }
  BOOST_CHECK_THROW((void)ngvi::io::read_csv_table(p, {.chunk_bytes = 0}), std::invalid_argument);
}

// Some records only (CsvReadOptions::first_row, row_count): the rows and lines of the whole read
// at those positions, for every chunk size; count_csv_records counts what the whole read holds;
// a selection past the end, or a ragged record before it, is an error naming it.
BOOST_AUTO_TEST_CASE(a_range_of_records_is_the_whole_reads_rows) {
  const std::string content = "a,b\n1,2\n\n3,4\n\"5\",6\r\n7,8\n9,10\n11,12";
  TempDir dir;
  const fs::path p = dir.write("range.csv", content);
  const auto whole = ngvi::io::read_csv_table(p);
  BOOST_TEST(ngvi::io::count_csv_records(p) == 6u);
  for (const std::size_t chunk : error_chunks)
    for (std::size_t first = 0; first < 6; ++first)
      for (std::ptrdiff_t count = 1; first + static_cast<std::size_t>(count) <= 6; ++count) {
        const auto part = ngvi::io::read_csv_table(
            p, {.chunk_bytes = chunk, .first_row = first, .row_count = count});
        BOOST_TEST_CONTEXT("chunk " << chunk << ", records " << first << " + " << count) {
          BOOST_TEST(part.names == whole.names);
          NGVI_CHECK_REPORT(compare(
              part.values,
              Eigen::MatrixXd(whole.values.middleRows(static_cast<Eigen::Index>(first), count)),
              tol::exact, "rows"));
          for (std::ptrdiff_t k = 0; k < count; ++k)
            BOOST_TEST(part.lines[static_cast<std::size_t>(k)] ==
                       whole.lines[first + static_cast<std::size_t>(k)]);
        }
      }
  const auto tail = ngvi::io::read_csv_table(p, {.first_row = 4});
  BOOST_TEST(tail.values.rows() == 2);
  try {
    (void)ngvi::io::read_csv_table(p, {.first_row = 4, .row_count = 3});
    BOOST_FAIL("no DataError for records 5 to 7 of 6");
  } catch (const ngvi::io::DataError& e) {
    BOOST_TEST(contains(e.what(), "data records 5 to 7"), e.what());
    BOOST_TEST(contains(e.what(), "6 data records"), e.what());
  }
  const fs::path ragged = dir.write("ragged.csv", "a,b\n1,2\n3\n5,6\n");
  BOOST_CHECK_THROW((void)ngvi::io::read_csv_table(ragged, {.first_row = 2}), ngvi::io::DataError);
  BOOST_CHECK_THROW((void)ngvi::io::count_csv_records(ragged), ngvi::io::DataError);
}

// The numbers' buffer moved into the matrix in slices of 2^20 numbers from the last rows up
// (io/csv_table.hpp): three slices and a part one, against the matrix filled directly.
BOOST_AUTO_TEST_CASE(rows_move_into_the_matrix_slice_by_slice) {
  const std::size_t cols = 3, rows = 3 * ((std::size_t{1} << 20) / cols) + 7;
  ngvi::io::detail::RowBuffer buffer(cols);
  Eigen::MatrixXd ref(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (std::size_t r = 0; r < rows; ++r) {
    double* row = buffer.append();
    for (std::size_t c = 0; c < cols; ++c) {
      row[c] = static_cast<double>(cols * r + c) + 0.5;
      ref(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = row[c];
    }
  }
  NGVI_CHECK_REPORT(compare(buffer.take_matrix(), ref, tol::exact, "matrix"));
}

// RecordLines by index (a binary search over the runs) against walking it and against a plain
// vector of the same lines.
BOOST_AUTO_TEST_CASE(record_lines_by_index_and_in_order) {
  const std::vector<std::size_t> lines = {2, 3, 4, 7, 9, 10, 11, 12, 20, 22};
  ngvi::io::RecordLines r;
  for (const std::size_t line : lines) r.push_back(line);
  BOOST_TEST(r.size() == lines.size());
  BOOST_TEST(r.runs() == 5u);
  BOOST_TEST(r == lines);
  for (std::size_t k = 0; k < lines.size(); ++k) BOOST_TEST(r[k] == lines[k], "record " << k);
  BOOST_TEST(r.front() == 2u);
  BOOST_TEST(r.back() == 22u);
  BOOST_CHECK_THROW((void)r[lines.size()], std::out_of_range);
  BOOST_CHECK_THROW((void)ngvi::io::RecordLines().back(), std::out_of_range);
}

BOOST_AUTO_TEST_SUITE_END()
