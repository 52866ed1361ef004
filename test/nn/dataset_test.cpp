// Tests of nn/dataset.hpp: standardisation with the training statistics (means, population
// standard deviations, a constant column's scale of 1, the round trip and the variance back in
// original units, all in closed form) and row subsets.
#include <cmath>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <nn/dataset.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(dataset_test)

using namespace ngvi;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

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
