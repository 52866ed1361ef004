// Tests of io/json_file.hpp: a round trip through the atomic writer, and syntax errors
// reported at the right line and column.
#include <cstddef>
#include <filesystem>
#include <string>

#include <boost/test/unit_test.hpp>
#include <io/json_file.hpp>
#include <nlohmann/json.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(json_file_test)

using ngvi::test::contains;
using ngvi::test::TempDir;

BOOST_AUTO_TEST_CASE(round_trip) {
  TempDir dir;
  const nlohmann::json j = {{"seed", 7}, {"values", {1.5, -2.0}}, {"name", "h\xc3\xa9"}};
  ngvi::io::write_json_file(dir.path / "r.json", j);
  BOOST_TEST(ngvi::io::read_json_file(dir.path / "r.json") == j);
  BOOST_TEST(ngvi::test::read_file(dir.path / "r.json").back() == '\n');
}

namespace {
// read_json_file(path) must throw a DataError at `line`:`column` whose message is printable
// ASCII and contains `needle`.
void check_error_at(const std::filesystem::path& path, std::size_t line, std::size_t column,
                    const std::string& needle) {
  try {
    (void)ngvi::io::read_json_file(path);
    BOOST_FAIL("no DataError for " << path);
  } catch (const ngvi::io::DataError& e) {
    BOOST_TEST(e.line() == line, e.what());
    BOOST_TEST(e.column() == column, e.what());
    BOOST_TEST(ngvi::test::printable_ascii(e.what()), e.what());
    BOOST_TEST(contains(e.what(), needle), e.what());
  }
}
}  // namespace

BOOST_AUTO_TEST_CASE(syntax_errors_name_line_and_column) {
  TempDir dir;
  check_error_at(dir.write("bad.json", "{\n  \"a\": 1,\n  \"b\": \x01\n}\n"), 3, 8, "valid JSON");
  BOOST_CHECK_THROW((void)ngvi::io::read_json_file(dir.path / "missing.json"), ngvi::io::DataError);
}

// nlohmann throws out_of_range (not parse_error) for a number beyond a double's range; found by
// the fuzzer (test/fuzz/corpus holds the input).
BOOST_AUTO_TEST_CASE(numbers_beyond_double_name_line_and_column) {
  TempDir dir;
  check_error_at(dir.write("big.json", "{\n  \"a\": [1,\n    2e999]\n}\n"), 3, 5, "2e999");
  check_error_at(dir.write("top.json",
                           "4444444001E000000000000059953591\x1e"
                           "2\n"),
                 1, 1, "a number that fits a double");
}

BOOST_AUTO_TEST_SUITE_END()
