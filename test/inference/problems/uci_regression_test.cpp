// The UCI regression problem on a small folder in the UCI format written here: the training
// split standardised to mean 0 and standard deviation 1, the test split with the TRAINING
// statistics (recomputed here), the target standardizer handed out for the predictive, the
// network's shape, and missing files and bad options as clear errors.
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/problems/uci_regression.hpp>
#include <nn/data_error.hpp>

#include <support/posterior_checks.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(uci_regression_test)

namespace problems = ngvi::vi::problems;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using ngvi::ad::verify::compare;

namespace {

// Six rows, two features and a target; rows 0-3 train, 4-5 test.
void write_folder(const ngvi::test::TempDir& dir) {
  dir.write("toy/data.txt", "1 10 5\n2 14 7\n3 9 4\n6 11 9\n4 12 6\n0 8 1\n");
  dir.write("toy/index_features.txt", "0\n1\n");
  dir.write("toy/index_target.txt", "2\n");
  dir.write("toy/index_train_0.txt", "0\n1\n2\n3\n");
  dir.write("toy/index_test_0.txt", "4\n5\n");
}

}  // namespace

BOOST_AUTO_TEST_CASE(standardised_with_training_statistics) {
  ngvi::test::TempDir dir;
  write_folder(dir);
  const problems::UciRegression p = problems::make_uci_regression(
      {.folder = dir.path / "toy", .hidden_units = 5, .noise_precision = 2.0});
  MatrixXd raw(4, 3);
  raw << 1, 10, 5, 2, 14, 7, 3, 9, 4, 6, 11, 9;
  const Eigen::RowVectorXd mean = raw.colwise().mean();
  const Eigen::RowVectorXd sd =
      ((raw.rowwise() - mean).array().square().colwise().sum() / 4.0).sqrt();  // population sd
  NGVI_CHECK_REPORT(compare(p.targets.mean(0), mean(2), tol::closed_form, "target shift"));
  NGVI_CHECK_REPORT(compare(p.targets.scale(0), sd(2), tol::closed_form, "target scale"));
  MatrixXd test_raw(2, 3);
  test_raw << 4, 12, 6, 0, 8, 1;
  const MatrixXd z = ((test_raw.rowwise() - mean).array().rowwise() / sd.array()).matrix();
  NGVI_CHECK_REPORT(
      compare(p.test_model.data().X, z.leftCols(2).eval(), tol::closed_form, "test inputs"));
  NGVI_CHECK_REPORT(
      compare(p.test_model.data().Y, z.rightCols(1).eval(), tol::closed_form, "test targets"));
  NGVI_CHECK_REPORT(
      compare(p.model.data().X.colwise().mean().norm(), 0.0, tol::closed_form, "train mean 0"));
  NGVI_CHECK_REPORT(
      compare(p.model.data().Y.squaredNorm() / 4.0, 1.0, tol::closed_form, "train variance 1"));
  BOOST_TEST(p.model.num_params() == 2 * 5 + 5 + 5 + 1);
  BOOST_TEST(p.model.likelihood().precision() == 2.0);
  BOOST_TEST(p.description.find("toy split 0") == 0, p.description);
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
  ngvi::test::TempDir dir;
  write_folder(dir);
  BOOST_CHECK_THROW(problems::make_uci_regression({}), std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_uci_regression({.folder = dir.path / "missing"}), nn::DataError);
  BOOST_CHECK_THROW(problems::make_uci_regression({.folder = dir.path / "toy", .split = 1}),
                    nn::DataError);
  BOOST_CHECK_THROW(
      problems::make_uci_regression({.folder = dir.path / "toy", .noise_precision = 0.0}),
      std::invalid_argument);
  BOOST_CHECK_THROW(
      problems::make_uci_regression({.folder = dir.path / "toy", .activation = nn::Dense(1, 1)}),
      std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
