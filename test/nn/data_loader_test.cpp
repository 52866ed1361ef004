// Tests of nn/data_loader.hpp and nn/dataset.hpp: parsing of whitespace and CSV files, the
// errors for malformed files (each must name the file, the line and the column, and say what
// was expected and what was found), the UCI split reader and standardisation.
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <nn/data_loader.hpp>
#include <nn/dataset.hpp>

#include <support/check_report.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(data_loader_test)

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
    (void)nn::load_matrix(p);
    BOOST_FAIL("no DataError for: " << content);
  } catch (const nn::DataError& e) {
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

// An optional external copy of the UCI data, in the folder shared/data/uci beside the repository
// root (this file is test/nn/ inside it); the test that reads it is skipped where it is absent.
fs::path uci_dir() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() /
         "shared/data/uci";
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_whitespace_and_csv) {
  TempDir dir;
  const Eigen::MatrixXd a =
      nn::load_matrix(dir.write("a.txt", "# comment\n1 2.5\t-3e2\n\n  4 +5 6  \r\n7 8 9\n\n"));
  Eigen::MatrixXd ref(3, 3);
  ref << 1, 2.5, -300, 4, 5, 6, 7, 8, 9;
  NGVI_CHECK_REPORT(compare(a, ref, tol::exact, "whitespace file"));
  const Eigen::MatrixXd b = nn::load_matrix(dir.write("b.csv", "1, 2.5,-3e2\r\n4,5,6\n7 ,8, 9\n"));
  NGVI_CHECK_REPORT(compare(b, ref, tol::exact, "csv file"));
  const Eigen::MatrixXd c = nn::load_matrix(dir.write("c.csv", "x,y,z\n1,2.5,-300\n4,5,6\n7,8,9\n"),
                                            nn::LoadOptions{nn::LoadOptions::Separator::comma, 1});
  NGVI_CHECK_REPORT(compare(c, ref, tol::exact, "csv with header"));
  const nn::Dataset d = nn::load_dataset(dir.write("d.txt", "1 2 3\n4 5 6\n"), {2, 0}, {1});
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
    (void)nn::load_matrix(dir.path / "missing.txt");
    BOOST_FAIL("no DataError");
  } catch (const nn::DataError& e) {
    BOOST_TEST(contains(e.what(), "missing.txt"), e.what());
    BOOST_TEST(contains(e.what(), "cannot be opened"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(shape_mismatches) {
  TempDir dir;
  const fs::path p = dir.write("t.txt", "1 2 3\n4 5 6\n");
  try {
    (void)nn::load_dataset(p, {0, 3}, {1});
    BOOST_FAIL("no DataError");
  } catch (const nn::DataError& e) {
    BOOST_TEST(contains(e.what(), "t.txt"), e.what());
    BOOST_TEST(contains(e.what(), "column index 3"), e.what());
    BOOST_TEST(contains(e.what(), "3 columns"), e.what());
  }
  BOOST_CHECK_THROW((void)nn::load_indices(dir.write("i.txt", "0\n1.5\n")), nn::DataError);
  BOOST_CHECK_THROW((void)nn::load_indices(dir.write("j.txt", "0 1\n")), nn::DataError);
  // A UCI folder whose split names a row that data.txt does not have.
  fs::create_directories(dir.path / "toy");
  dir.write("toy/data.txt", "1 2\n3 4\n5 6\n");
  dir.write("toy/index_features.txt", "0\n");
  dir.write("toy/index_target.txt", "1\n");
  dir.write("toy/index_train_0.txt", "0\n1\n");
  dir.write("toy/index_test_0.txt", "3\n");
  try {
    (void)nn::load_uci_split(dir.path / "toy", 0);
    BOOST_FAIL("no DataError");
  } catch (const nn::DataError& e) {
    BOOST_TEST(contains(e.what(), "index_test_0.txt"), e.what());
    BOOST_TEST(contains(e.what(), "below 3"), e.what());
  }
  dir.write("toy/index_test_0.txt", "2\n");
  const nn::UciSplit s = nn::load_uci_split(dir.path / "toy", 0);
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
    (void)nn::load_uci_split(dir.path / "uci", 0);
    BOOST_FAIL("no DataError for a row in both splits");
  } catch (const nn::DataError& e) {
    BOOST_TEST(contains(e.what(), "index_test_0.txt"), e.what());
    BOOST_TEST(contains(e.what(), "index_train_0.txt"), e.what());
    BOOST_TEST(contains(e.what(), "row 2 again in entry 1"), e.what());
  }
  write_toy_uci(dir, "0\n1\n0\n", "2\n3\n");
  try {
    (void)nn::load_uci_split(dir.path / "uci", 0);
    BOOST_FAIL("no DataError for a row listed twice");
  } catch (const nn::DataError& e) {
    BOOST_TEST(contains(e.what(), "each row at most once"), e.what());
    BOOST_TEST(contains(e.what(), "row 0 again in entry 3"), e.what());
  }
  write_toy_uci(dir, "0\n1\n", "3\n2\n");
  const nn::UciSplit s = nn::load_uci_split(dir.path / "uci", 0);
  BOOST_TEST(s.train.size() == 2);
  BOOST_TEST(s.test.Y(0, 0) == 8.0);
  BOOST_CHECK_THROW((void)nn::load_uci_split(dir.path / "uci", -1), nn::DataError);
}

// Bytes outside printable ASCII in a bad field reach the message escaped, never raw.
BOOST_AUTO_TEST_CASE(random_bytes_are_escaped_in_messages) {
  TempDir dir;
  const fs::path p = dir.write("bin.txt", std::string("1 2\n3 \x01\xff\x1b[31m\0z\n", 17));
  try {
    (void)nn::load_matrix(p);
    BOOST_FAIL("no DataError");
  } catch (const nn::DataError& e) {
    BOOST_TEST(test::printable_ascii(e.what()), e.what());
    BOOST_TEST(contains(e.what(), R"('\x01\xff\x1b[31m\x00z')"), e.what());
    BOOST_TEST(e.line() == 2);
    BOOST_TEST(e.column() == 2);
  }
}

BOOST_AUTO_TEST_CASE(indices_beyond_two_to_the_53_are_rejected) {
  TempDir dir;
  BOOST_TEST(nn::load_indices(dir.write("ok.txt", "9007199254740992\n")).front() ==
             9007199254740992LL);
  BOOST_CHECK_THROW((void)nn::load_indices(dir.write("big.txt", "1e300\n")), nn::DataError);
  BOOST_CHECK_THROW((void)nn::load_indices(dir.write("neg.txt", "-1\n")), nn::DataError);
}

BOOST_AUTO_TEST_CASE(uci_hidden_units_and_split_count) {
  TempDir dir;
  write_toy_uci(dir, "0\n1\n", "2\n3\n");
  BOOST_TEST(nn::uci_hidden_units(dir.path / "uci") == 50);
  BOOST_TEST(nn::uci_hidden_units(dir.path / "uci", 7) == 7);
  BOOST_TEST(nn::uci_split_count(dir.path / "uci") == 1);
  dir.write("uci/index_train_1.txt", "0\n");
  BOOST_TEST(nn::uci_split_count(dir.path / "uci") == 2);
  dir.write("uci/n_hidden.txt", "100\n");
  dir.write("uci/n_splits.txt", "20\n");
  BOOST_TEST(nn::uci_hidden_units(dir.path / "uci") == 100);
  BOOST_TEST(nn::uci_split_count(dir.path / "uci") == 20);
  dir.write("uci/n_hidden.txt", "0\n");
  BOOST_CHECK_THROW((void)nn::uci_hidden_units(dir.path / "uci"), nn::DataError);
  dir.write("uci/n_splits.txt", "3\n4\n");
  BOOST_CHECK_THROW((void)nn::uci_split_count(dir.path / "uci"), nn::DataError);
  BOOST_CHECK_THROW((void)nn::uci_split_count(dir.path / "missing"), nn::DataError);
}

// The real data: Boston housing split 0 has 455 training and 51 test rows of 13 features
// (data/uci/SOURCE.md), checked on the optional external copy (uci_dir()) when it is present;
// skipped with a message where it is absent.
BOOST_AUTO_TEST_CASE(uci_boston_split) {
  const fs::path dir = uci_dir() / "bostonHousing";
  if (!fs::exists(dir / "data.txt")) {
    BOOST_TEST_MESSAGE("skipped: " << dir << " not found");
    return;
  }
  const nn::UciSplit s = nn::load_uci_split(dir, 0);
  BOOST_TEST(s.train.size() == 455);
  BOOST_TEST(s.test.size() == 51);
  BOOST_TEST(s.train.input_dim() == 13);
  BOOST_TEST(s.target_column == 13);
  const Eigen::MatrixXd all = nn::load_matrix(dir / "data.txt");
  BOOST_TEST(all.rows() == 506);
  BOOST_TEST(all(0, 13) == 24.0);  // the first house's median value
}

BOOST_AUTO_TEST_CASE(standardisation_uses_training_statistics) {
  nn::Dataset train{Eigen::MatrixXd(4, 2), Eigen::MatrixXd(4, 1)};
  train.X << 1, 5, 2, 5, 3, 5, 4, 5;  // second column constant: scale 1
  train.Y << 10, 20, 30, 40;
  const nn::DatasetStandardizer st = nn::DatasetStandardizer::fit(train);
  NGVI_CHECK_REPORT(compare(st.x.mean, Eigen::RowVector2d(2.5, 5.0), tol::closed_form, "x mean"));
  NGVI_CHECK_REPORT(
      compare(st.x.scale, Eigen::RowVector2d(std::sqrt(1.25), 1.0), tol::closed_form, "x scale"));
  const nn::Dataset z = st.transform(train);
  NGVI_CHECK_REPORT(compare(z.Y.col(0).mean(), 0.0, tol::closed_form, "standardised mean"));
  NGVI_CHECK_REPORT(
      compare(std::sqrt(z.Y.squaredNorm() / 4.0), 1.0, tol::closed_form, "standardised sd"));
  NGVI_CHECK_REPORT(compare(st.y.inverse_transform(z.Y), train.Y, tol::closed_form, "round trip"));
  NGVI_CHECK_REPORT(compare(st.y.inverse_transform_variance(Eigen::MatrixXd::Ones(1, 1))(0, 0),
                            125.0, tol::closed_form, "variance back to original units"));
  nn::Dataset test{Eigen::MatrixXd(1, 2), Eigen::MatrixXd(1, 1)};
  test.X << 2.5, 7;
  test.Y << 25;
  const nn::Dataset zt = st.transform(test);
  BOOST_TEST(zt.X(0, 0) == 0.0);
  BOOST_TEST(zt.X(0, 1) == 2.0);
  BOOST_TEST(zt.Y(0, 0) == 0.0);
  BOOST_CHECK_THROW(st.x.transform(Eigen::MatrixXd::Zero(1, 3)), std::invalid_argument);
  const std::vector<Eigen::Index> rows = {3, 0};
  const nn::Dataset sub = train.subset(rows);
  BOOST_TEST(sub.Y(0, 0) == 40.0);
  BOOST_CHECK_THROW(train.subset(std::vector<Eigen::Index>{4}), std::out_of_range);
}

BOOST_AUTO_TEST_SUITE_END()
