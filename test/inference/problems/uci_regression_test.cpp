// The UCI regression problem on a small split given in memory: the training split standardised
// to mean 0 and standard deviation 1, the test split with the TRAINING statistics (recomputed
// here), the target standardizer handed out for the predictive, the network's shape, and bad
// options as clear errors. (Reading a split from a folder: test/io/uci_folder_test.cpp.)
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/problems/uci_regression.hpp>
#include <nn/dataset.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(uci_regression_test)

namespace problems = ngvi::vi::problems;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using ngvi::ad::verify::compare;

namespace {

// Six rows, two features and a target; rows 0-3 train, 4-5 test.
problems::UciRegressionData toy_split() {
  problems::UciRegressionData d{.train = {MatrixXd(4, 2), MatrixXd(4, 1)},
                                .test = {MatrixXd(2, 2), MatrixXd(2, 1)},
                                .name = "toy",
                                .split = 0};
  d.train.X << 1, 10, 2, 14, 3, 9, 6, 11;
  d.train.Y << 5, 7, 4, 9;
  d.test.X << 4, 12, 0, 8;
  d.test.Y << 6, 1;
  return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(standardised_with_training_statistics) {
  const problems::UciRegression p =
      problems::make_uci_regression(toy_split(), {.hidden_units = 5, .noise_precision = 2.0});
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

BOOST_AUTO_TEST_CASE(bad_options_are_a_clear_error) {
  BOOST_CHECK_THROW(problems::make_uci_regression(toy_split(), {.hidden_units = 0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_uci_regression(toy_split(), {.noise_precision = 0.0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(problems::make_uci_regression(toy_split(), {.activation = nn::Dense(1, 1)}),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
