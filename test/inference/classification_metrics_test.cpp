// Accuracy, NLL and expected calibration error against values worked out by hand on tiny fixed
// examples, ECE on constructed cases whose calibration is known (perfect, and overconfident by a
// known amount), the tie rule, and bad input.
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include <inference/classification_metrics.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(classification_metrics_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::check_error_mentions;

BOOST_AUTO_TEST_CASE(hand_computed_three_classes) {
  MatrixXd p(4, 3);
  p << 0.7, 0.2, 0.1,   // label 0: right, confidence 0.7
      0.1, 0.6, 0.3,    // label 2: wrong, confidence 0.6
      0.25, 0.25, 0.5,  // label 2: right, confidence 0.5
      0.05, 0.05, 0.9;  // label 2: right, confidence 0.9
  const VectorXd y = (VectorXd(4) << 0, 2, 2, 2).finished();
  const vi::ClassificationMetrics m = vi::classification_metrics(p, y);
  NGVI_CHECK_REPORT(compare(m.accuracy, 0.75, tol::closed_form, "accuracy 3/4"));
  NGVI_CHECK_REPORT(compare(m.nll,
                            -(std::log(0.7) + std::log(0.3) + std::log(0.5) + std::log(0.9)) / 4.0,
                            tol::closed_form, "NLL"));
  // Ten bins: each example alone in bins 7, 6, 5, 9: (0.3 + 0.6 + 0.5 + 0.1)/4.
  NGVI_CHECK_REPORT(compare(m.ece, 0.375, tol::closed_form, "ECE, 10 bins"));
  // One bin: |accuracy − mean confidence| = |0.75 − 0.675|.
  NGVI_CHECK_REPORT(
      compare(vi::expected_calibration_error(p, y, 1), 0.075, tol::closed_form, "ECE, 1 bin"));
}

BOOST_AUTO_TEST_CASE(ece_of_constructed_calibration) {
  // 10 examples at confidence 0.8 with 8 right: calibrated; 10 at 0.95 with 6 right: over by 0.35.
  MatrixXd p(20, 2);
  VectorXd y(20);
  for (Eigen::Index i = 0; i < 10; ++i) {
    p.row(i) << 0.2, 0.8;
    y(i) = i < 8 ? 1.0 : 0.0;
    p.row(10 + i) << 0.95, 0.05;
    y(10 + i) = i < 6 ? 0.0 : 1.0;
  }
  NGVI_CHECK_REPORT(compare(vi::expected_calibration_error(p.topRows(10), y.head(10)), 0.0,
                            tol::closed_form, "calibrated bin"));
  NGVI_CHECK_REPORT(compare(vi::expected_calibration_error(p, y), 0.5 * 0.35, tol::closed_form,
                            "half the examples overconfident by 0.35"));
  const vi::ClassificationMetrics m = vi::classification_metrics(p, y);
  NGVI_CHECK_REPORT(compare(m.accuracy, 14.0 / 20.0, tol::closed_form, "accuracy"));
}

BOOST_AUTO_TEST_CASE(ties_go_to_the_lowest_class_and_confidence_one_is_in_the_last_bin) {
  MatrixXd p(2, 2);
  p << 0.5, 0.5, 0.0, 1.0;
  const VectorXd y = (VectorXd(2) << 0, 1).finished();
  const vi::ClassificationMetrics m = vi::classification_metrics(p, y);
  NGVI_CHECK_REPORT(compare(m.accuracy, 1.0, tol::closed_form, "tie counted as class 0"));
  // Bins 5 (conf 0.5, right) and 9 (conf 1, right): (0.5 + 0)/2.
  NGVI_CHECK_REPORT(compare(m.ece, 0.25, tol::closed_form, "ECE"));
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
  MatrixXd p(2, 2);
  p << 0.4, 0.6, 0.3, 0.7;
  const VectorXd y = (VectorXd(2) << 0, 1).finished();
  check_error_mentions([&] { (void)vi::classification_metrics(MatrixXd(0, 2), VectorXd()); },
                       "no examples");
  check_error_mentions([&] { (void)vi::classification_metrics(p, VectorXd::Zero(3)); },
                       "3 labels for 2 rows");
  check_error_mentions(
      [&] { (void)vi::classification_metrics(p, (VectorXd(2) << 0, 2).finished()); },
      "expected a class index in 0..1");
  MatrixXd q = p;
  q(1, 1) = std::nan("");
  check_error_mentions([&] { (void)vi::classification_metrics(q, y); }, "is not in [0, 1]");
  q(1, 1) = 0.8;
  check_error_mentions([&] { (void)vi::classification_metrics(q, y); }, "sum to");
  check_error_mentions([&] { (void)vi::expected_calibration_error(p, y, 0); }, "bins must be >= 1");
  check_error_mentions([&] { (void)vi::classification_metrics(MatrixXd::Ones(2, 1), y); },
                       "at least 2");
}

BOOST_AUTO_TEST_SUITE_END()
