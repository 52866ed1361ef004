// Tests of autodiff/verify/gtest.hpp (GoogleTest, built only when find_package(GTest) finds it):
// the macros pass on a correct model and report a GoogleTest failure — non-fatal for
// NGVI_EXPECT_*, fatal for NGVI_ASSERT_* — naming the worst component on a model whose AD
// derivative is deliberately wrong (gtest-spi's EXPECT_*_FAILURE catch the failure and check
// its message). The models are those of boost_test_test.cpp.
#include <type_traits>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/gtest.hpp>

namespace {

namespace ad = ngvi::ad;

const auto good_model = [](const auto& x) {
  using T = typename std::decay_t<decltype(x)>::Scalar;
  T s = ad::log1p(x(0) * x(0));
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) s += x(i) * x(i) * ad::exp(x(i + 1));
  return s;
};

// AD gradient component 1 off by 0.01 (zero in value).
const auto wrong_gradient = [](const auto& x) {
  using T = typename std::decay_t<decltype(x)>::Scalar;
  T s = x.squaredNorm();
  if constexpr (!std::is_same_v<T, double>) s += 0.01 * (x(1) - T(x(1).value()));
  return s;
};

template <class T>
constexpr bool is_second_order = false;
template <class R>
constexpr bool is_second_order<ad::Var<R>> = ad::is_dual<R>::value;

// Right gradient, Hessian (1, 1) off by 0.06·x_1 on the forward-over-reverse scalar.
const auto wrong_hessian = [](const auto& x) {
  using T = typename std::decay_t<decltype(x)>::Scalar;
  T s = x.squaredNorm();
  if constexpr (is_second_order<T>) s += 0.01 * x(1) * x(1) * x(1);
  return s;
};

Eigen::VectorXd point() { return Eigen::Vector3d(0.4, -0.7, 1.2); }
Eigen::VectorXd direction() { return Eigen::Vector3d(0.0, 1.0, 0.0); }

}  // namespace

TEST(gtest_test, macros_pass_on_a_correct_model) {
  NGVI_EXPECT_GRADIENT(good_model, point());
  NGVI_EXPECT_HVP(good_model, point(), direction());
  NGVI_EXPECT_HESSIAN(good_model, point());
  NGVI_ASSERT_DERIVATIVES(good_model, point());
}

TEST(gtest_test, macros_fail_on_a_wrong_derivative) {
  EXPECT_NONFATAL_FAILURE(NGVI_EXPECT_GRADIENT(wrong_gradient, point()),
                          "NGVI_EXPECT_GRADIENT(wrong_gradient, point()) failed");
  EXPECT_NONFATAL_FAILURE(NGVI_EXPECT_GRADIENT(wrong_gradient, point()),
                          "worst component [1] computed");
  EXPECT_NONFATAL_FAILURE(NGVI_EXPECT_HVP(wrong_hessian, point(), direction()), "[FAILED]");
  EXPECT_NONFATAL_FAILURE(NGVI_EXPECT_HESSIAN(wrong_hessian, point()),
                          "worst component (1, 1) computed");
  EXPECT_NONFATAL_FAILURE(NGVI_EXPECT_DERIVATIVES(wrong_hessian, point()), "[FAILED]");
  EXPECT_FATAL_FAILURE(NGVI_ASSERT_GRADIENT(wrong_gradient, point()),
                       "worst component [1] computed");
  EXPECT_FATAL_FAILURE(NGVI_ASSERT_HESSIAN(wrong_hessian, point()),
                       "worst component (1, 1) computed");
}
