// Tests of io/data_error.hpp: quote_bytes keeps printable ASCII, escapes everything else, and
// truncates; DataError's message names the file, line and column.
#include <string>

#include <boost/test/unit_test.hpp>
#include <io/data_error.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(data_error_test)

using namespace ngvi;

BOOST_AUTO_TEST_CASE(quote_bytes_escapes_everything_outside_printable_ascii) {
  BOOST_TEST(io::quote_bytes("abc 1.5e3") == "'abc 1.5e3'");
  BOOST_TEST(io::quote_bytes("it's a\\b") == R"('it\'s a\\b')");
  BOOST_TEST(io::quote_bytes("\t\n\r") == R"('\t\n\r')");
  BOOST_TEST(io::quote_bytes(std::string("\0\x7f\x80\xff", 4)) == R"('\x00\x7f\x80\xff')");
  BOOST_TEST(io::quote_bytes("h\xc3\xa9") ==
             R"('h\xc3\xa9')");  // UTF-8 too: a terminal-safe message
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string q = io::quote_bytes(all, all.size());
  BOOST_TEST(test::printable_ascii(q), q);
  BOOST_TEST(q.size() == 2 + 95 + 2 + 3 * 2 +
                             4 * (256 - 95 - 3));  // quotes, printable (2 escaped), \t\n\r, \xHH
}

BOOST_AUTO_TEST_CASE(quote_bytes_truncates) {
  BOOST_TEST(io::quote_bytes(std::string(50, 'x')) == "'" + std::string(40, 'x') + "...'");
  BOOST_TEST(io::quote_bytes("abcdef", 3) == "'abc...'");
  BOOST_TEST(io::quote_bytes("abc", 3) == "'abc'");
}

BOOST_AUTO_TEST_CASE(message_names_file_line_and_column) {
  const io::DataError e("/tmp/x.csv", 3, 2, "a number", "'abc'");
  BOOST_TEST(std::string(e.what()) ==
             "ngvi::io data error in /tmp/x.csv, line 3, column 2: expected a number, found 'abc'");
  const io::DataError whole("/tmp/x.csv", 0, 0, "a readable file", "a read error");
  BOOST_TEST(std::string(whole.what()) ==
             "ngvi::io data error in /tmp/x.csv: expected a readable file, found a read error");
}

BOOST_AUTO_TEST_SUITE_END()
