// Tests of autodiff/eigen/vectorised_math.hpp: the vectorised tanh, exp, log, logistic,
// log1p_exp, square and sqrt kernels and their first and second derivatives against the
// scalar definitions (libm through elementary.hpp) over a grid that crosses every branch
// (tanh's series/closed-form switch at |x| = 0.125, log1p_exp's sign switch, large |x|),
// including in-place use.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/vectorised_math.hpp>
#include <autodiff/verify/compare.hpp>
#include <support/check_report.hpp>

namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

Eigen::VectorXd grid(double lo, double hi) {
  Eigen::VectorXd x(1001);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    x(i) = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(x.size() - 1);
  return x;
}

template <class Op>
void check_kernel(const Eigen::VectorXd& x, const char* name) {
  const Eigen::Index n = x.size();
  Eigen::VectorXd f(n), d(n), f2(n), d1(n), d2(n), inplace = x, d_in(n);
  ad::detail::eval_with_derivative<Op>(x.data(), f.data(), d.data(), n);
  ad::detail::eval_with_derivative<Op>(inplace.data(), inplace.data(), d_in.data(), n);
  ad::detail::eval_with_two_derivatives<Op>(x.data(), f2.data(), d1.data(), d2.data(), n);
  Eigen::VectorXd f_ref(n), d_ref(n), d2_ref(n), value_only(n);
  ad::detail::eval_value<Op>(x.data(), value_only.data(), n);
  for (Eigen::Index i = 0; i < n; ++i) {
    // Reference: the scalar formulas, second derivative through one dual evaluation of f'.
    f_ref(i) = Op::f(x(i));
    d_ref(i) = Op::df(x(i), f_ref(i));
    const ad::Dual<double, 1> xd(x(i), 0, 1.0);
    d2_ref(i) = Op::df(xd, Op::f(xd)).d[0];
  }
  const std::string s = name;
  NGVI_CHECK_REPORT(vf::compare(f, f_ref, tol::vectorised_kernel, s + " value"));
  NGVI_CHECK_REPORT(vf::compare(value_only, f_ref, tol::vectorised_kernel, s + " value-only kernel"));
  NGVI_CHECK_REPORT(vf::compare(d, d_ref, tol::vectorised_kernel, s + " derivative"));
  NGVI_CHECK_REPORT(vf::compare(inplace, f, tol::exact, s + " in place"));
  NGVI_CHECK_REPORT(vf::compare(d_in, d, tol::exact, s + " derivative in place"));
  NGVI_CHECK_REPORT(vf::compare(f2, f, tol::exact, s + " value (two-derivative kernel)"));
  NGVI_CHECK_REPORT(vf::compare(d2, d2_ref, tol::vectorised_kernel.scaled(10.0), s + " second derivative"));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vectorised_math_test)

BOOST_AUTO_TEST_CASE(tanh_kernel) {
  check_kernel<ad::fn::Tanh>(grid(-20.0, 20.0), "tanh");
  check_kernel<ad::fn::Tanh>(grid(-0.3, 0.3), "tanh near 0");
}
BOOST_AUTO_TEST_CASE(exp_log_sqrt_square_kernels) {
  check_kernel<ad::fn::Exp>(grid(-30.0, 30.0), "exp");
  check_kernel<ad::fn::Log>(grid(1e-3, 50.0), "log");
  check_kernel<ad::fn::Sqrt>(grid(1e-3, 50.0), "sqrt");
  check_kernel<ad::fn::Square>(grid(-7.0, 7.0), "square");
}
BOOST_AUTO_TEST_CASE(sin_and_cos_kernels_in_every_quadrant_and_beyond_the_reduction_range) {
  check_kernel<ad::fn::Sin>(grid(-40.0, 40.0), "sin");
  check_kernel<ad::fn::Cos>(grid(-40.0, 40.0), "cos");
  check_kernel<ad::fn::Sin>(grid(-1e4, 1e4), "sin, |x| to 1e4");
  check_kernel<ad::fn::Cos>(grid(1e6, 3e6), "cos past 2^20 (libm)");
}
BOOST_AUTO_TEST_CASE(logistic_and_log1p_exp_kernels) {
  check_kernel<ad::fn::Logistic>(grid(-30.0, 30.0), "logistic");
  check_kernel<ad::fn::Log1pExp>(grid(-40.0, 40.0), "log1p_exp");
  check_kernel<ad::fn::Log1pExp>(grid(-1e-6, 1e-6), "log1p_exp near 0");
  check_kernel<ad::fn::Log1pExp>(grid(-745.0, -700.0), "log1p_exp deep in the left tail");
}

BOOST_AUTO_TEST_SUITE_END()
