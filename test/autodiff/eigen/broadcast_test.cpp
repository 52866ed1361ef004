// Tests of autodiff/eigen/broadcast.hpp: add_rowwise and add_colwise with Var and double
// operands against scalar routes and finite differences; a vector of the wrong length throws
// naming both shapes.
#include <cmath>
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include "routes.hpp"

BOOST_AUTO_TEST_SUITE(broadcast_test)
namespace {

namespace ad = ngvi::ad;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

}  // namespace

BOOST_AUTO_TEST_CASE(rowwise_and_colwise_match_scalar_route) {
  const Eigen::MatrixXd C = Eigen::MatrixXd::Constant(3, 4, 0.25);
  // θ = M (3×4) | r (4) | c (3)
  auto fused = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    const Mat<T> M = Eigen::Map<const Mat<T>>(th.data(), 3, 4);
    const Vec<T> r = th.segment(12, 4), c = th.segment(16, 3);
    const Mat<T> A = ad::add_rowwise(M, r.transpose());
    const Mat<T> B = ad::add_colwise(A, c);
    const Mat<T> D = ad::add_colwise(C, c);  // double matrix, Var vector
    T s = 0.0;
    using std::sin;
    for (Eigen::Index i = 0; i < B.size(); ++i) s += sin(B(i)) * D(i);
    return s;
  };
  auto scalar = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    T s = 0.0;
    using std::sin;
    for (Eigen::Index j = 0; j < 4; ++j)
      for (Eigen::Index i = 0; i < 3; ++i)
        s += sin(th(i + 3 * j) + th(12 + j) + th(16 + i)) * (C(i, j) + th(16 + i));
    return s;
  };
  Eigen::VectorXd th(19);
  for (Eigen::Index i = 0; i < 19; ++i) th(i) = std::cos(0.8 * static_cast<double>(i));
  ngvi::test::check_fused_against_scalar(fused, scalar, th);
}

BOOST_AUTO_TEST_CASE(wrong_length_throws_naming_shapes) {
  ad::TapeScope<double> scope;
  const Mat<ad::Var<double>> M = Eigen::MatrixXd::Ones(2, 3).cast<ad::Var<double>>();
  try {
    (void)ad::add_rowwise(M, Eigen::RowVector2d(1.0, 2.0));
    BOOST_FAIL("add_rowwise with a vector of length 2 on 3 columns did not throw");
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    BOOST_TEST(msg.find("length 2") != std::string::npos, msg);
    BOOST_TEST(msg.find("2x3") != std::string::npos, msg);
  }
}

BOOST_AUTO_TEST_SUITE_END()
