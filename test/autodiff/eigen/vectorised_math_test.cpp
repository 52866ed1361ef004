// Tests of autodiff/eigen/vectorised_math.hpp: the vectorised tanh, exp, log, logistic,
// log1p_exp, square and sqrt kernels and their first and second derivatives against the
// scalar definitions (libm through elementary.hpp) over a grid that crosses every branch
// (tanh's series/closed-form switch at |x| = 0.125, log1p_exp's sign switch, large |x|),
// including in-place use; and the same bits for every placement of the arrays in memory.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/vectorised_math.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(vectorised_math_test)
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
  NGVI_CHECK_REPORT(
      vf::compare(value_only, f_ref, tol::vectorised_kernel, s + " value-only kernel"));
  NGVI_CHECK_REPORT(vf::compare(d, d_ref, tol::vectorised_kernel, s + " derivative"));
  NGVI_CHECK_REPORT(vf::compare(inplace, f, tol::exact, s + " in place"));
  NGVI_CHECK_REPORT(vf::compare(d_in, d, tol::exact, s + " derivative in place"));
  NGVI_CHECK_REPORT(vf::compare(f2, f, tol::exact, s + " value (two-derivative kernel)"));
  NGVI_CHECK_REPORT(
      vf::compare(d2, d2_ref, tol::vectorised_kernel.scaled(10.0), s + " second derivative"));
}

// Input and outputs at every offset of 0…7 doubles (so every phase modulo 64 bytes) give the
// bits of the offset-0 run: the kernels must not peel by address.
template <class Op>
void check_placement(const char* name) {
  const Eigen::Index n = 37;  // not a multiple of any packet size
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) x(i) = -3.0 + 0.17 * static_cast<double>(i);
  if constexpr (std::is_same_v<Op, ad::fn::Log> || std::is_same_v<Op, ad::fn::Sqrt>)
    x = x.array().abs() + 0.01;
  Eigen::VectorXd f0(n), d0(n), d10(n), d20(n), v0(n);
  Eigen::VectorXd buffer(4 * n + 32);
  for (int shift = 0; shift < 8; ++shift) {
    double* xp = buffer.data() + shift;
    double* fp = xp + n + 8 - shift;  // a different phase from xp
    double* dp = fp + n + (shift % 3);
    double* d2p = dp + n + 1;
    Eigen::Map<Eigen::VectorXd>(xp, n) = x;
    ad::detail::eval_with_derivative<Op>(xp, fp, dp, n);
    const Eigen::VectorXd f = Eigen::Map<Eigen::VectorXd>(fp, n),
                          d = Eigen::Map<Eigen::VectorXd>(dp, n);
    ad::detail::eval_with_two_derivatives<Op>(xp, fp, dp, d2p, n);
    const Eigen::VectorXd d1 = Eigen::Map<Eigen::VectorXd>(dp, n),
                          d2 = Eigen::Map<Eigen::VectorXd>(d2p, n);
    ad::detail::eval_value<Op>(xp, fp, n);
    const Eigen::VectorXd v = Eigen::Map<Eigen::VectorXd>(fp, n);
    if (shift == 0) {
      f0 = f, d0 = d, d10 = d1, d20 = d2, v0 = v;
      continue;
    }
    const std::string s = std::string(name) + " shifted by " + std::to_string(shift) + " doubles";
    NGVI_CHECK_BITWISE(f, f0, s + ": value");
    NGVI_CHECK_BITWISE(d, d0, s + ": derivative");
    NGVI_CHECK_BITWISE(d1, d10, s + ": derivative (two-derivative kernel)");
    NGVI_CHECK_BITWISE(d2, d20, s + ": second derivative");
    NGVI_CHECK_BITWISE(v, v0, s + ": value-only kernel");
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(results_do_not_depend_on_where_the_arrays_sit) {
  check_placement<ad::fn::Tanh>("tanh");
  check_placement<ad::fn::Exp>("exp");
  check_placement<ad::fn::Log>("log");
  check_placement<ad::fn::Logistic>("logistic");
  check_placement<ad::fn::Log1pExp>("log1p_exp");
  check_placement<ad::fn::Sin>("sin");
  check_placement<ad::fn::Cos>("cos");
  check_placement<ad::fn::Square>("square");
  check_placement<ad::fn::Sqrt>("sqrt");
}

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
