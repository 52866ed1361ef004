// Tests of io/csv_table.hpp: the RFC 4180 dialect (quotes, CRLF, BOM, blank lines) and an
// error naming file, line and column (and the column's name) for every malformed input, with
// random bytes escaped.
#include <filesystem>
#include <string>

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

// Reading `content` must fail at (line, column) with a message naming the file and holding
// every piece in `parts`, in printable ASCII.
void expect_error(const std::string& content, std::size_t line, std::size_t column,
                  std::initializer_list<std::string> parts) {
  TempDir dir;
  const fs::path p = dir.write("bad.csv", content);
  try {
    (void)ngvi::io::read_csv_table(p);
    BOOST_FAIL("no DataError for: " << ngvi::io::quote_bytes(content, 200));
  } catch (const ngvi::io::DataError& e) {
    const std::string msg = e.what();
    BOOST_TEST(e.line() == line, msg);
    BOOST_TEST(e.column() == column, msg);
    BOOST_TEST(contains(msg, p.string()), msg);
    BOOST_TEST(ngvi::test::printable_ascii(msg), msg);
    for (const std::string& part : parts)
      BOOST_TEST(contains(msg, part), msg << "\n  lacks: " << part);
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
}

BOOST_AUTO_TEST_CASE(random_bytes_are_escaped) {
  expect_error(std::string("a,b\n1,\x80\x01\x1b[2J\0\n", 14), 2, 2, {R"('\x80\x01\x1b[2J\x00')"});
  expect_error(std::string("\xff\xfe,b\n1,2\n3,\xc3\x28\n"), 3, 2,
               {R"(column 2 ('b'))", R"('\xc3(')"});
  TempDir dir;
  BOOST_CHECK_THROW((void)ngvi::io::read_csv_table(dir.path / "missing.csv"), ngvi::io::DataError);
  BOOST_CHECK_THROW((void)ngvi::io::read_csv_table(dir.path), ngvi::io::DataError);
}

BOOST_AUTO_TEST_SUITE_END()
