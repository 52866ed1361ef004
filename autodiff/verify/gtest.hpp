// GoogleTest macros that verify a model's derivatives in one line.
//
// The counterpart of boost_test.hpp for projects that test with GoogleTest (this header
// includes <gtest/gtest.h>; nothing else in ngvi needs GoogleTest). Each macro runs one of the
// checks of check.hpp with its default tolerances and, on failure, reports a GoogleTest failure
// whose message is the check as written followed by the report (the worst component of each
// comparison with both values):
//   NGVI_EXPECT_GRADIENT(f, x), NGVI_EXPECT_HVP(f, x, v), NGVI_EXPECT_HESSIAN(f, x),
//   NGVI_EXPECT_DERIVATIVES(f, x)        non-fatal (ADD_FAILURE)
//   NGVI_ASSERT_GRADIENT(f, x), ...      fatal (FAIL: returns from the test function)
// Further arguments go to the check (a Tolerance, FiniteDiffOptions).
#pragma once

#include <gtest/gtest.h>

#include <autodiff/verify/check.hpp>
#include <autodiff/verify/report.hpp>

// `if (...) {} else` keeps the macro one statement, safe inside an unbraced if/else.
#define NGVI_VERIFY_GTEST_IMPL_(on_failure, report_expr, call)                   \
  if (const ::ngvi::ad::verify::CheckReport ngvi_verify_report_ = (report_expr); \
      ngvi_verify_report_.passed) {                                              \
  } else                                                                         \
    on_failure() << ::ngvi::ad::verify::failure_message(ngvi_verify_report_, call)

#define NGVI_EXPECT_GRADIENT(...)                                                       \
  NGVI_VERIFY_GTEST_IMPL_(ADD_FAILURE, ::ngvi::ad::verify::check_gradient(__VA_ARGS__), \
                          "NGVI_EXPECT_GRADIENT(" #__VA_ARGS__ ")")
#define NGVI_EXPECT_HVP(...)                                                       \
  NGVI_VERIFY_GTEST_IMPL_(ADD_FAILURE, ::ngvi::ad::verify::check_hvp(__VA_ARGS__), \
                          "NGVI_EXPECT_HVP(" #__VA_ARGS__ ")")
#define NGVI_EXPECT_HESSIAN(...)                                                       \
  NGVI_VERIFY_GTEST_IMPL_(ADD_FAILURE, ::ngvi::ad::verify::check_hessian(__VA_ARGS__), \
                          "NGVI_EXPECT_HESSIAN(" #__VA_ARGS__ ")")
#define NGVI_EXPECT_DERIVATIVES(...)                                                       \
  NGVI_VERIFY_GTEST_IMPL_(ADD_FAILURE, ::ngvi::ad::verify::check_derivatives(__VA_ARGS__), \
                          "NGVI_EXPECT_DERIVATIVES(" #__VA_ARGS__ ")")

#define NGVI_ASSERT_GRADIENT(...)                                                \
  NGVI_VERIFY_GTEST_IMPL_(FAIL, ::ngvi::ad::verify::check_gradient(__VA_ARGS__), \
                          "NGVI_ASSERT_GRADIENT(" #__VA_ARGS__ ")")
#define NGVI_ASSERT_HVP(...)                                                \
  NGVI_VERIFY_GTEST_IMPL_(FAIL, ::ngvi::ad::verify::check_hvp(__VA_ARGS__), \
                          "NGVI_ASSERT_HVP(" #__VA_ARGS__ ")")
#define NGVI_ASSERT_HESSIAN(...)                                                \
  NGVI_VERIFY_GTEST_IMPL_(FAIL, ::ngvi::ad::verify::check_hessian(__VA_ARGS__), \
                          "NGVI_ASSERT_HESSIAN(" #__VA_ARGS__ ")")
#define NGVI_ASSERT_DERIVATIVES(...)                                                \
  NGVI_VERIFY_GTEST_IMPL_(FAIL, ::ngvi::ad::verify::check_derivatives(__VA_ARGS__), \
                          "NGVI_ASSERT_DERIVATIVES(" #__VA_ARGS__ ")")
