// Boost.Test macros that verify a model's derivatives in one line.
//
// For users' own verification tests (and ours): each macro runs one of the checks of
// check.hpp with its default tolerances (tolerances.hpp) and, on failure, records a Boost.Test
// error whose message is the check as written followed by the report — the worst component of
// each comparison with the computed and the reference value:
//   NGVI_CHECK_GRADIENT(f, x)      check_gradient: AD gradient vs finite differences
//   NGVI_CHECK_HVP(f, x, v)        check_hvp: AD H·v vs finite differences and vs hessian·v
//   NGVI_CHECK_HESSIAN(f, x)       check_hessian: AD Hessian vs finite differences and AD vs AD
//   NGVI_CHECK_DERIVATIVES(f, x)   check_derivatives: the gradient and the Hessian
// Further arguments go to the check (a Tolerance, FiniteDiffOptions). The NGVI_REQUIRE_
// variants stop the test case on failure. f is generic in its scalar, as check.hpp says.
// Include this header after (or instead of) <boost/test/unit_test.hpp>; the GoogleTest
// counterpart is gtest.hpp.
#pragma once

#include <boost/test/unit_test.hpp>

#include <autodiff/verify/check.hpp>
#include <autodiff/verify/report.hpp>

// The check's report is computed once; the message only on failure matters.
#define NGVI_VERIFY_BOOST_IMPL_(level, report_expr, call)                                    \
  do {                                                                                       \
    const ::ngvi::ad::verify::CheckReport ngvi_verify_report_ = (report_expr);               \
    BOOST_##level##_MESSAGE(ngvi_verify_report_.passed,                                      \
                            ::ngvi::ad::verify::failure_message(ngvi_verify_report_, call)); \
  } while (0)

#define NGVI_CHECK_GRADIENT(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(CHECK, ::ngvi::ad::verify::check_gradient(__VA_ARGS__), \
                          "NGVI_CHECK_GRADIENT(" #__VA_ARGS__ ")")
#define NGVI_CHECK_HVP(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(CHECK, ::ngvi::ad::verify::check_hvp(__VA_ARGS__), \
                          "NGVI_CHECK_HVP(" #__VA_ARGS__ ")")
#define NGVI_CHECK_HESSIAN(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(CHECK, ::ngvi::ad::verify::check_hessian(__VA_ARGS__), \
                          "NGVI_CHECK_HESSIAN(" #__VA_ARGS__ ")")
#define NGVI_CHECK_DERIVATIVES(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(CHECK, ::ngvi::ad::verify::check_derivatives(__VA_ARGS__), \
                          "NGVI_CHECK_DERIVATIVES(" #__VA_ARGS__ ")")

#define NGVI_REQUIRE_GRADIENT(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(REQUIRE, ::ngvi::ad::verify::check_gradient(__VA_ARGS__), \
                          "NGVI_REQUIRE_GRADIENT(" #__VA_ARGS__ ")")
#define NGVI_REQUIRE_HVP(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(REQUIRE, ::ngvi::ad::verify::check_hvp(__VA_ARGS__), \
                          "NGVI_REQUIRE_HVP(" #__VA_ARGS__ ")")
#define NGVI_REQUIRE_HESSIAN(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(REQUIRE, ::ngvi::ad::verify::check_hessian(__VA_ARGS__), \
                          "NGVI_REQUIRE_HESSIAN(" #__VA_ARGS__ ")")
#define NGVI_REQUIRE_DERIVATIVES(...)                                                  \
  NGVI_VERIFY_BOOST_IMPL_(REQUIRE, ::ngvi::ad::verify::check_derivatives(__VA_ARGS__), \
                          "NGVI_REQUIRE_DERIVATIVES(" #__VA_ARGS__ ")")
