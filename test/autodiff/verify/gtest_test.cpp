// Tests of autodiff/verify/gtest.hpp (GoogleTest, built only when find_package(GTest) finds it):
// the macros pass on a correct model and report a GoogleTest failure — non-fatal for
// NGVI_EXPECT_*, fatal for NGVI_ASSERT_* — naming the worst component on a model whose AD
// derivative is deliberately wrong (gtest-spi's EXPECT_*_FAILURE catch the failure and check
// its message). The models are support/wrong_derivative_models.hpp, as in boost_test_test.cpp.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/gtest.hpp>

#include <support/wrong_derivative_models.hpp>

using namespace ngvi::test::wrong_derivative_models;

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
