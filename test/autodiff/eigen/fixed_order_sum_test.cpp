// Tests of autodiff/eigen/fixed_order_sum.hpp: the sum agrees with a compensated reference for
// every length 0…70 (every tail length of the eight lanes), and gives the same bits wherever
// the data sit in memory — the property it exists for (Eigen's sum() peels by address).
#include <cmath>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/eigen/fixed_order_sum.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(fixed_order_sum_test)
namespace {
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

// Kahan-Babuška (Neumaier) summation: an independent, more accurate route.
double compensated_sum(const double* x, Eigen::Index n) {
  double s = 0.0, c = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double t = s + x[i];
    c += std::abs(s) >= std::abs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
    s = t;
  }
  return s + c;
}
}  // namespace

BOOST_AUTO_TEST_CASE(agrees_with_a_compensated_sum_for_every_length) {
  Eigen::VectorXd x(70);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    x(i) = std::sin(1.3 * static_cast<double>(i)) * (1.0 + static_cast<double>(i % 5));
  for (Eigen::Index n = 0; n <= x.size(); ++n)
    NGVI_CHECK_REPORT(vf::compare(ngvi::ad::detail::fixed_order_sum(x.data(), n),
                                  compensated_sum(x.data(), n), tol::ad_vs_ad,
                                  "sum of " + std::to_string(n) + " terms"));
}

BOOST_AUTO_TEST_CASE(same_bits_at_every_address) {
  const Eigen::Index n = 45;
  Eigen::VectorXd buffer(n + 8);
  double reference = 0.0;
  for (int shift = 0; shift < 8; ++shift) {
    for (Eigen::Index i = 0; i < n; ++i)
      buffer(shift + i) = 1.0 / (1.0 + static_cast<double>(i)) - 0.3;
    const double s = ngvi::ad::detail::fixed_order_sum(buffer.data() + shift, n);
    if (shift == 0) reference = s;
    NGVI_CHECK_BITWISE(s, reference, "sum shifted by " + std::to_string(shift) + " doubles");
  }
}

BOOST_AUTO_TEST_SUITE_END()
