// Bitwise comparison of results, for the reproducibility tests.
//
// Reproducibility is the one property ngvi checks with no tolerance at all: the same inputs
// must give the same bits whatever was recorded on the tape before and whatever the thread
// count. bitwise_equal compares two doubles or two Eigen matrices byte for byte (same shape,
// same representation, so -0.0 differs from 0.0 and NaNs compare by payload) and, when they
// differ, names the first differing entry with both values in hexadecimal floating point and
// their difference. NGVI_CHECK_BITWISE wraps it in a non-fatal BOOST_TEST whose failure
// message is that description.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

namespace ngvi::test {

struct BitwiseReport {
  bool equal = true;
  std::string message;  // empty when equal
};

namespace detail {
inline std::string hex_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}
}  // namespace detail

// Whether a and b have identical bits; `what` names the quantity in the message.
template <class DA, class DB>
BitwiseReport bitwise_equal(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b,
                            const std::string& what) {
  BitwiseReport r;
  if (a.rows() != b.rows() || a.cols() != b.cols()) {
    r.equal = false;
    r.message = what + ": shapes " + std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                " and " + std::to_string(b.rows()) + "x" + std::to_string(b.cols()) + " differ";
    return r;
  }
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      const double x = a.derived().coeff(i, j), y = b.derived().coeff(i, j);
      if (std::memcmp(&x, &y, sizeof(double)) != 0) {
        r.equal = false;
        r.message = what + ": entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
                    detail::hex_double(x) + " vs " + detail::hex_double(y) + " (difference " +
                    detail::hex_double(x - y) + ")";
        return r;
      }
    }
  }
  return r;
}

inline BitwiseReport bitwise_equal(double a, double b, const std::string& what) {
  return bitwise_equal(Eigen::Matrix<double, 1, 1>(a), Eigen::Matrix<double, 1, 1>(b), what);
}

}  // namespace ngvi::test

#define NGVI_CHECK_BITWISE(a, b, what)                                                         \
  do {                                                                                         \
    const ::ngvi::test::BitwiseReport ngvi_bitwise_ = ::ngvi::test::bitwise_equal(a, b, what); \
    BOOST_TEST(ngvi_bitwise_.equal, ngvi_bitwise_.message);                                    \
  } while (0)
