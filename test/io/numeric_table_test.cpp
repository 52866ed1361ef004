// Tests of io/numeric_table.hpp: parsing of whitespace and CSV files, and the errors for
// malformed files (each must name the file, the line and the column, and say what was expected
// and what was found).
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>
#include <io/data_error.hpp>
#include <io/numeric_table.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(numeric_table_test)

using namespace ngvi;
namespace fs = std::filesystem;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

namespace {

using ngvi::test::contains;
using ngvi::test::TempDir;

// Loads `content` and checks that it fails with a DataError at (line, column) whose message
// names the file, the line, the column and contains `found`.
void expect_error(const std::string& content, std::size_t line, std::size_t column,
                  const std::string& found) {
  TempDir dir;
  const fs::path p = dir.write("bad.txt", content);
  try {
    (void)io::load_matrix(p);
    BOOST_FAIL("no DataError for: " << content);
  } catch (const io::DataError& e) {
    const std::string msg = e.what();
    BOOST_TEST(e.line() == line, msg);
    BOOST_TEST(e.column() == column, msg);
    BOOST_TEST(contains(msg, p.string()), msg);
    if (line > 0) BOOST_TEST(contains(msg, "line " + std::to_string(line)), msg);
    if (column > 0) BOOST_TEST(contains(msg, "column " + std::to_string(column)), msg);
    BOOST_TEST(contains(msg, "expected"), msg);
    BOOST_TEST(contains(msg, found), msg);
    BOOST_TEST(e.file() == p);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_whitespace_and_csv) {
  TempDir dir;
  const Eigen::MatrixXd a =
      io::load_matrix(dir.write("a.txt", "# comment\n1 2.5\t-3e2\n\n  4 +5 6  \r\n7 8 9\n\n"));
  Eigen::MatrixXd ref(3, 3);
  ref << 1, 2.5, -300, 4, 5, 6, 7, 8, 9;
  NGVI_CHECK_REPORT(compare(a, ref, tol::exact, "whitespace file"));
  const Eigen::MatrixXd b = io::load_matrix(dir.write("b.csv", "1, 2.5,-3e2\r\n4,5,6\n7 ,8, 9\n"));
  NGVI_CHECK_REPORT(compare(b, ref, tol::exact, "csv file"));
  const Eigen::MatrixXd c = io::load_matrix(dir.write("c.csv", "x,y,z\n1,2.5,-300\n4,5,6\n7,8,9\n"),
                                            io::LoadOptions{io::LoadOptions::Separator::comma, 1});
  NGVI_CHECK_REPORT(compare(c, ref, tol::exact, "csv with header"));
  const nn::Dataset d = io::load_dataset(dir.write("d.txt", "1 2 3\n4 5 6\n"), {2, 0}, {1});
  BOOST_TEST(d.X(1, 0) == 6.0);
  BOOST_TEST(d.X(1, 1) == 4.0);
  BOOST_TEST(d.Y(0, 0) == 2.0);
}

BOOST_AUTO_TEST_CASE(ragged_rows) {
  expect_error("1 2 3\n4 5 6\n7 8\n", 3, 3, "2 fields");
  expect_error("1 2 3\n4 5 6 7\n", 2, 4, "4 fields");
  expect_error("1,2,3\n4,5\n", 2, 3, "2 fields");
}

BOOST_AUTO_TEST_CASE(non_numeric_fields) {
  expect_error("1 2 3\n4 abc 6\n", 2, 2, "'abc'");
  expect_error("1 2 3\n4 5 6x\n", 2, 3, "'6x'");
  expect_error("1,2,3\n4,,6\n", 2, 2, "empty field");
  expect_error("1 2 3\n4 5 1e999\n", 2, 3, "out of the range");
}

BOOST_AUTO_TEST_CASE(nan_and_infinity) {
  expect_error("1 2 3\n4 nan 6\n", 2, 2, "NaN");
  expect_error("1 2 3\n4 5 -inf\n", 2, 3, "infinity");
  expect_error("\n\n1 2 3\n4 5 6\nInf 5 6\n", 5, 1, "infinity");
}

BOOST_AUTO_TEST_CASE(empty_and_missing_files) {
  expect_error("", 0, 0, "an empty file");
  expect_error("\n  \n# only a comment\n", 0, 0, "an empty file");
  TempDir dir;
  try {
    (void)io::load_matrix(dir.path / "missing.txt");
    BOOST_FAIL("no DataError");
  } catch (const io::DataError& e) {
    BOOST_TEST(contains(e.what(), "missing.txt"), e.what());
    BOOST_TEST(contains(e.what(), "cannot be opened"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(shape_mismatches) {
  TempDir dir;
  const fs::path p = dir.write("t.txt", "1 2 3\n4 5 6\n");
  try {
    (void)io::load_dataset(p, {0, 3}, {1});
    BOOST_FAIL("no DataError");
  } catch (const io::DataError& e) {
    BOOST_TEST(contains(e.what(), "t.txt"), e.what());
    BOOST_TEST(contains(e.what(), "column index 3"), e.what());
    BOOST_TEST(contains(e.what(), "3 columns"), e.what());
  }
  BOOST_CHECK_THROW((void)io::load_indices(dir.write("i.txt", "0\n1.5\n")), io::DataError);
  BOOST_CHECK_THROW((void)io::load_indices(dir.write("j.txt", "0 1\n")), io::DataError);
}

// Bytes outside printable ASCII in a bad field reach the message escaped, never raw.
BOOST_AUTO_TEST_CASE(random_bytes_are_escaped_in_messages) {
  TempDir dir;
  const fs::path p = dir.write("bin.txt", std::string("1 2\n3 \x01\xff\x1b[31m\0z\n", 17));
  try {
    (void)io::load_matrix(p);
    BOOST_FAIL("no DataError");
  } catch (const io::DataError& e) {
    BOOST_TEST(test::printable_ascii(e.what()), e.what());
    BOOST_TEST(contains(e.what(), R"('\x01\xff\x1b[31m\x00z')"), e.what());
    BOOST_TEST(e.line() == 2);
    BOOST_TEST(e.column() == 2);
  }
}

BOOST_AUTO_TEST_CASE(indices_beyond_two_to_the_53_are_rejected) {
  TempDir dir;
  BOOST_TEST(io::load_indices(dir.write("ok.txt", "9007199254740992\n")).front() ==
             9007199254740992LL);
  BOOST_CHECK_THROW((void)io::load_indices(dir.write("big.txt", "1e300\n")), io::DataError);
  BOOST_CHECK_THROW((void)io::load_indices(dir.write("neg.txt", "-1\n")), io::DataError);
}

BOOST_AUTO_TEST_SUITE_END()
