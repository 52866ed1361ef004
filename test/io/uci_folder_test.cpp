// Tests of io/uci_folder.hpp: a split of a folder in the UCI format read into Datasets (rows
// outside data.txt, overlapping or repeated rows as errors naming the files), the folder's width
// and split count, the Boston split when a copy is present, and the UCI regression problem read
// from a folder against the same problem built from the Datasets in memory.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>
#include <io/data_error.hpp>
#include <io/numeric_table.hpp>
#include <io/uci_folder.hpp>

#include <autodiff/verify/compare.hpp>
#include <inference/problems/uci_regression.hpp>
#include <nn/dataset.hpp>

#include <support/check_report.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(uci_folder_test)

using namespace ngvi;
namespace fs = std::filesystem;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

namespace {

using ngvi::test::contains;
using ngvi::test::TempDir;

// The UCI data the repository ships (data/uci; this file is test/io/ inside the repository).
fs::path uci_dir() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" / "uci";
}

}  // namespace

// A split that names a row data.txt does not have is an error naming the index file; a split
// within the table reads the rows it names.
BOOST_AUTO_TEST_CASE(rows_outside_data_txt) {
  TempDir dir;
  // A UCI folder whose split names a row that data.txt does not have.
  fs::create_directories(dir.path / "toy");
  dir.write("toy/data.txt", "1 2\n3 4\n5 6\n");
  dir.write("toy/index_features.txt", "0\n");
  dir.write("toy/index_target.txt", "1\n");
  dir.write("toy/index_train_0.txt", "0\n1\n");
  dir.write("toy/index_test_0.txt", "3\n");
  try {
    (void)io::load_uci_split(dir.path / "toy", 0);
    BOOST_FAIL("no DataError");
  } catch (const io::DataError& e) {
    BOOST_TEST(contains(e.what(), "index_test_0.txt"), e.what());
    BOOST_TEST(contains(e.what(), "below 3"), e.what());
  }
  dir.write("toy/index_test_0.txt", "2\n");
  const io::UciSplit s = io::load_uci_split(dir.path / "toy", 0);
  BOOST_TEST(s.train.size() == 2);
  BOOST_TEST(s.test.X(0, 0) == 5.0);
  BOOST_TEST(s.test.Y(0, 0) == 6.0);
}

// A toy UCI folder: 4 rows of data, split 0 as given.
void write_toy_uci(const TempDir& dir, const std::string& train, const std::string& test) {
  dir.write("uci/data.txt", "1 2\n3 4\n5 6\n7 8\n");
  dir.write("uci/index_features.txt", "0\n");
  dir.write("uci/index_target.txt", "1\n");
  dir.write("uci/index_train_0.txt", train);
  dir.write("uci/index_test_0.txt", test);
}

// A row in both the training and the test split, or twice in one of them, is an error naming
// the file, the row and the other file; a clean split loads.
BOOST_AUTO_TEST_CASE(uci_split_overlap_is_an_error) {
  TempDir dir;
  write_toy_uci(dir, "0\n1\n2\n", "2\n3\n");
  try {
    (void)io::load_uci_split(dir.path / "uci", 0);
    BOOST_FAIL("no DataError for a row in both splits");
  } catch (const io::DataError& e) {
    BOOST_TEST(contains(e.what(), "index_test_0.txt"), e.what());
    BOOST_TEST(contains(e.what(), "index_train_0.txt"), e.what());
    BOOST_TEST(contains(e.what(), "row 2 again in entry 1"), e.what());
  }
  write_toy_uci(dir, "0\n1\n0\n", "2\n3\n");
  try {
    (void)io::load_uci_split(dir.path / "uci", 0);
    BOOST_FAIL("no DataError for a row listed twice");
  } catch (const io::DataError& e) {
    BOOST_TEST(contains(e.what(), "each row at most once"), e.what());
    BOOST_TEST(contains(e.what(), "row 0 again in entry 3"), e.what());
  }
  write_toy_uci(dir, "0\n1\n", "3\n2\n");
  const io::UciSplit s = io::load_uci_split(dir.path / "uci", 0);
  BOOST_TEST(s.train.size() == 2);
  BOOST_TEST(s.test.Y(0, 0) == 8.0);
  BOOST_CHECK_THROW((void)io::load_uci_split(dir.path / "uci", -1), io::DataError);
}

BOOST_AUTO_TEST_CASE(uci_hidden_units_and_split_count) {
  TempDir dir;
  write_toy_uci(dir, "0\n1\n", "2\n3\n");
  BOOST_TEST(io::uci_hidden_units(dir.path / "uci") == 50);
  BOOST_TEST(io::uci_hidden_units(dir.path / "uci", 7) == 7);
  BOOST_TEST(io::uci_split_count(dir.path / "uci") == 1);
  dir.write("uci/index_train_1.txt", "0\n");
  BOOST_TEST(io::uci_split_count(dir.path / "uci") == 2);
  dir.write("uci/n_hidden.txt", "100\n");
  dir.write("uci/n_splits.txt", "20\n");
  BOOST_TEST(io::uci_hidden_units(dir.path / "uci") == 100);
  BOOST_TEST(io::uci_split_count(dir.path / "uci") == 20);
  dir.write("uci/n_hidden.txt", "0\n");
  BOOST_CHECK_THROW((void)io::uci_hidden_units(dir.path / "uci"), io::DataError);
  dir.write("uci/n_splits.txt", "3\n4\n");
  BOOST_CHECK_THROW((void)io::uci_split_count(dir.path / "uci"), io::DataError);
  BOOST_CHECK_THROW((void)io::uci_split_count(dir.path / "missing"), io::DataError);
}

// The real data: Boston housing split 0 has 455 training and 51 test rows of 13 features
// (data/uci/SOURCE.md), read from the repository's copy.
BOOST_AUTO_TEST_CASE(uci_boston_split) {
  const fs::path dir = uci_dir() / "bostonHousing";
  BOOST_TEST_REQUIRE(fs::exists(dir / "data.txt"), dir << " not found");
  const io::UciSplit s = io::load_uci_split(dir, 0);
  BOOST_TEST(s.train.size() == 455);
  BOOST_TEST(s.test.size() == 51);
  BOOST_TEST(s.train.input_dim() == 13);
  BOOST_TEST(s.target_column == 13);
  const Eigen::MatrixXd all = io::load_matrix(dir / "data.txt");
  BOOST_TEST(all.rows() == 506);
  BOOST_TEST(all(0, 13) == 24.0);  // the first house's median value
}

// The problem read from a folder is the problem built from the same rows in memory (the
// standardisation and the network are checked against closed forms in
// test/inference/problems/uci_regression_test.cpp); the description names the folder.
BOOST_AUTO_TEST_CASE(uci_regression_problem_reads_the_folder) {
  TempDir dir;
  write_toy_uci(dir, "0\n1\n2\n", "3\n");
  const vi::problems::UciRegressionOptions po{.hidden_units = 3, .noise_precision = 2.0};
  const vi::problems::UciRegression p =
      io::uci_regression_problem({.folder = dir.path / "uci", .problem = po});
  nn::Dataset train{Eigen::MatrixXd(3, 1), Eigen::MatrixXd(3, 1)};
  train.X << 1, 3, 5;
  train.Y << 2, 4, 6;
  nn::Dataset test{Eigen::MatrixXd(1, 1), Eigen::MatrixXd(1, 1)};
  test.X << 7;
  test.Y << 8;
  const vi::problems::UciRegression q = vi::problems::make_uci_regression(
      {.train = train, .test = test, .name = "uci", .split = 0}, po);
  NGVI_CHECK_REPORT(compare(p.model.data().X, q.model.data().X, tol::exact, "training inputs"));
  NGVI_CHECK_REPORT(compare(p.model.data().Y, q.model.data().Y, tol::exact, "training targets"));
  NGVI_CHECK_REPORT(
      compare(p.test_model.data().X, q.test_model.data().X, tol::exact, "test inputs"));
  NGVI_CHECK_REPORT(
      compare(p.test_model.data().Y, q.test_model.data().Y, tol::exact, "test targets"));
  BOOST_TEST(p.description == q.description);
  BOOST_TEST(p.description.find("uci split 0 (N = 3, N* = 1)") == 0, p.description);
}

// An empty folder and bad options are std::invalid_argument, checked before any file is read
// (a bad option with a missing folder names the option); missing files and a split the folder
// does not have are DataErrors.
BOOST_AUTO_TEST_CASE(uci_regression_problem_errors) {
  TempDir dir;
  write_toy_uci(dir, "0\n1\n", "2\n3\n");
  BOOST_CHECK_THROW((void)io::uci_regression_problem({}), std::invalid_argument);
  try {
    (void)io::uci_regression_problem(
        {.folder = dir.path / "missing", .problem = {.noise_precision = 0.0}});
    BOOST_FAIL("no std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(contains(e.what(), "noise_precision"), e.what());
  }
  const vi::problems::UciRegressionOptions defaults;
  BOOST_CHECK_THROW(
      (void)io::uci_regression_problem({.folder = dir.path / "missing", .problem = defaults}),
      io::DataError);
  BOOST_CHECK_THROW((void)io::uci_regression_problem(
                        {.folder = dir.path / "uci", .split = 1, .problem = defaults}),
                    io::DataError);
}

BOOST_AUTO_TEST_SUITE_END()
