// Boost.Test glue for ngvi::ad::verify::CheckReport, shared by every test.
//
// NGVI_CHECK_REPORT(report) is a non-fatal BOOST_TEST on report.passed whose failure message is
// the report itself (worst component, both values, the difference and the tolerance), so a
// failing numerical test says where and by how much without a debugger. NGVI_REQUIRE_REPORT
// stops the test case instead, for checks later lines depend on. The report expression is
// evaluated once.
#pragma once

#include <boost/test/unit_test.hpp>

#include <autodiff/verify/report.hpp>

#define NGVI_CHECK_REPORT(report)                                   \
  do {                                                              \
    const ::ngvi::ad::verify::CheckReport& ngvi_report_ = (report); \
    BOOST_TEST(ngvi_report_.passed, ngvi_report_.to_string());      \
  } while (0)

#define NGVI_REQUIRE_REPORT(report)                                    \
  do {                                                                 \
    const ::ngvi::ad::verify::CheckReport& ngvi_report_ = (report);    \
    BOOST_TEST_REQUIRE(ngvi_report_.passed, ngvi_report_.to_string()); \
  } while (0)
