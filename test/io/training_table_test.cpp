// Tests of io/training_table.hpp: the target column becomes Y and the others X in file
// order, the table taken or copied; a missing target, no input column, too few rows and a
// constant column are errors naming the file and the column.
#include <filesystem>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>
#include <io/training_table.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(training_table_test)

namespace fs = std::filesystem;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;
using ngvi::test::contains;
using ngvi::test::TempDir;

namespace {

std::string error_of(const std::string& content, const std::string& target) {
  TempDir dir;
  try {
    (void)ngvi::io::load_training_table(dir.write("t.csv", content), target);
  } catch (const ngvi::io::DataError& e) {
    BOOST_TEST(contains(e.what(), "t.csv"), e.what());
    return e.what();
  }
  BOOST_FAIL("no DataError for target " << target << " in: " << content);
  return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(target_and_inputs) {
  TempDir dir;
  const auto t =
      ngvi::io::load_training_table(dir.write("t.csv", "a,y,b\n1,10,4\n2,20,5\n3,30,7\n"), "y");
  Eigen::MatrixXd X(3, 2), Y(3, 1);
  X << 1, 4, 2, 5, 3, 7;
  Y << 10, 20, 30;
  NGVI_CHECK_REPORT(compare(t.data.X, X, tol::exact, "inputs"));
  NGVI_CHECK_REPORT(compare(t.data.Y, Y, tol::exact, "target"));
  BOOST_TEST(t.input_names == (std::vector<std::string>{"a", "b"}));
  BOOST_TEST(t.target_name == "y");
  BOOST_TEST(t.lines == (std::vector<std::size_t>{2, 3, 4}));
}

// The table taken (its inputs shrunk in place, as above) or left as it is: the same split.
BOOST_AUTO_TEST_CASE(taken_or_copied_the_same) {
  TempDir dir;
  const auto table =
      ngvi::io::read_csv_table(dir.write("t.csv", "a,y,b,c\n1,10,4,0\n2,20,5,1\n\n3,30,7,0\n"));
  const auto copied = ngvi::io::select_training_columns(table, "y");
  const auto taken = ngvi::io::select_training_columns(ngvi::io::CsvTable(table), "y");
  Eigen::MatrixXd X(3, 3), Y(3, 1);
  X << 1, 4, 0, 2, 5, 1, 3, 7, 0;
  Y << 10, 20, 30;
  for (const auto* t : {&copied, &taken}) {
    NGVI_CHECK_REPORT(compare(t->data.X, X, tol::exact, "inputs"));
    NGVI_CHECK_REPORT(compare(t->data.Y, Y, tol::exact, "target"));
    BOOST_TEST(t->input_names == (std::vector<std::string>{"a", "b", "c"}));
    BOOST_TEST(t->lines == (std::vector<std::size_t>{2, 3, 5}));
  }
  BOOST_TEST(table.values.cols() == 4, "the copied-from table is left whole");
}

BOOST_AUTO_TEST_CASE(unusable_tables) {
  BOOST_TEST(
      contains(error_of("a,y\n1,2\n3,4\n", "z"), "a column named 'z' in the header ('a', 'y')"));
  BOOST_TEST(
      contains(error_of("y\n1\n2\n", "y"), "at least one input column besides the target 'y'"));
  BOOST_TEST(contains(error_of("a,y\n1,2\n", "y"), "at least 2 data lines"));
  const std::string constant_input = error_of("a,b,y\n1,5,2\n2,5,3\n3,5,4\n", "y");
  BOOST_TEST(contains(constant_input, "column 2: expected an input column whose values vary"),
             constant_input);
  BOOST_TEST(contains(constant_input,
                      "column 2 ('b') holding 5 on every one of its 3 data lines (2 to 4)"),
             constant_input);
  const std::string constant_target = error_of("a,y\n1,0.5\n2,0.5\n", "y");
  BOOST_TEST(contains(constant_target, "a target column whose values vary"), constant_target);
  BOOST_TEST(contains(constant_target, "holding 0.5"), constant_target);
}

BOOST_AUTO_TEST_SUITE_END()
