// Tests of autodiff/core/tape_scope.hpp (and the active-tape slot of active_tape.hpp):
// a scope rewinds exactly what was recorded inside it — on normal exit and on an exception —
// and restores the previously active tape; scopes nest, so an inner scope (or a driver such
// as gradient(), which opens one) can run in the middle of an outer recording without
// disturbing it; scope.rewind() keeps the scope open for record-sweep loops.
#include <cmath>
#include <ostream>
#include <stdexcept>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/dual.hpp>
#include <autodiff/core/tape_scope.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(tape_scope_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::Tape;
using ngvi::ad::TapeScope;
using ngvi::ad::Var;

struct Counts {
  std::size_t vars, statements, operands;
  bool operator==(const Counts&) const = default;
};
Counts counts(const Tape<double>& t) {
  return {t.num_vars(), t.num_statements(), t.num_operands()};
}
std::ostream& operator<<(std::ostream& os, const Counts& c) {
  return os << "{vars " << c.vars << ", statements " << c.statements << ", operands " << c.operands
            << "}";
}

// Sweeps the tape from `scope`'s mark with seed 1 on y and returns x̄.
double adjoint_of(TapeScope<double>& scope, const Var<double>& y, const Var<double>& x) {
  Tape<double>& t = scope.tape();
  t.zero_adjoints();
  t.adjoint(y.index()) = 1.0;
  t.reverse(scope.mark());
  return t.adjoint(x.index());
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_scope_rewinds_what_it_recorded) {
  Tape<double>& t = ngvi::ad::active_tape<double>();
  const Counts before = counts(t);
  {
    TapeScope<double> scope;
    BOOST_TEST(&scope.tape() == &t);  // the default scope records on the active tape
    const Var<double> x = Var<double>::independent(2.0);
    const Var<double> y = x * x + 1.0;
    BOOST_TEST(t.num_vars() == before.vars + 2);
    BOOST_TEST(adjoint_of(scope, y, x) == 4.0);
  }
  BOOST_TEST(counts(t) == before);
}

BOOST_AUTO_TEST_CASE(nested_scopes_rewind_only_their_own_part) {
  TapeScope<double> outer;
  Tape<double>& t = outer.tape();
  const Var<double> x = Var<double>::independent(0.5);
  const Var<double> u = sin(x);
  const Counts after_u = counts(t);
  {
    TapeScope<double> inner;
    const Var<double> w = Var<double>::independent(3.0);
    const Var<double> v = w * w * u;  // may use outer variables
    BOOST_TEST(adjoint_of(inner, v, w) == 6.0 * std::sin(0.5));
    BOOST_TEST(inner.mark().vars == after_u.vars);
  }
  BOOST_TEST(counts(t) == after_u);  // the inner part is gone, the outer part intact
  // The outer recording continues and sweeps correctly: y = sin(x)·x.
  const Var<double> y = u * x;
  NGVI_CHECK_REPORT(vf::compare(adjoint_of(outer, y, x), std::cos(0.5) * 0.5 + std::sin(0.5),
                                tol::closed_form, "outer gradient after an inner scope"));
}

BOOST_AUTO_TEST_CASE(gradient_inside_an_outer_recording) {
  TapeScope<double> outer;
  Tape<double>& t = outer.tape();
  const Var<double> x = Var<double>::independent(1.2);
  const Var<double> u = exp(x) * x;
  const Counts mid = counts(t);
  // A whole driver call in the middle of the recording.
  auto f = [](const auto& v) {
    using std::log;
    using S = std::decay_t<decltype(v(0))>;
    return S(log(v(0)) * v(1) + v(1) * v(1));
  };
  const Eigen::VectorXd g = ngvi::ad::gradient(f, Eigen::Vector2d(2.0, 3.0));
  NGVI_CHECK_REPORT(vf::compare(g, Eigen::Vector2d(1.5, std::log(2.0) + 6.0), tol::closed_form,
                                "inner gradient"));
  BOOST_TEST(counts(t) == mid);
  BOOST_TEST(&ngvi::ad::active_tape<double>() == &t);
  // The outer recording is unharmed: d/dx (e^x x)·x = e^x x (x + 2).
  const Var<double> y = u * x;
  NGVI_CHECK_REPORT(vf::compare(adjoint_of(outer, y, x), std::exp(1.2) * 1.2 * 3.2,
                                tol::closed_form, "outer gradient after gradient()"));
  const Counts with_y = counts(t);
  // And a gradient whose function captures an outer variable treats it as a constant
  // parameter (the inner sweep stops at its own mark).
  auto h = [&u](const auto& v) {
    using S = std::decay_t<decltype(v(0))>;
    if constexpr (std::is_same_v<S, double>)
      return S(v(0) * u.value());
    else
      return S(v(0) * u);
  };
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::gradient(h, Eigen::VectorXd::Constant(1, 5.0))(0),
                                u.value(), tol::closed_form, "gradient with a captured outer Var"));
  BOOST_TEST(counts(t) == with_y);
}

BOOST_AUTO_TEST_CASE(a_scope_on_another_tape_makes_it_active_and_restores) {
  Tape<double>& own = ngvi::ad::active_tape<double>();
  Tape<double> other;
  Tape<double> third;
  const Counts own_before = counts(own);
  {
    TapeScope<double> s1(other);
    BOOST_TEST(&ngvi::ad::active_tape<double>() == &other);
    const Var<double> x = Var<double>::independent(1.0);
    BOOST_TEST(other.num_vars() == 1u);
    {
      TapeScope<double> s2(third);
      BOOST_TEST(&ngvi::ad::active_tape<double>() == &third);
      (void)Var<double>::independent(2.0);
      BOOST_TEST(third.num_vars() == 1u);
    }
    BOOST_TEST(&ngvi::ad::active_tape<double>() == &other);
    BOOST_TEST(third.num_vars() == 0u);
    const Var<double> y = x + x;
    BOOST_TEST(adjoint_of(s1, y, x) == 2.0);
  }
  BOOST_TEST(&ngvi::ad::active_tape<double>() == &own);
  BOOST_TEST(other.num_vars() == 0u);
  BOOST_TEST(counts(own) == own_before);
  // The thread's own tape is what active_tape() falls back to.
  BOOST_TEST(&ngvi::ad::thread_tape<double>() == &own);
}

BOOST_AUTO_TEST_CASE(an_exception_rewinds_and_restores) {
  Tape<double>& own = ngvi::ad::active_tape<double>();
  Tape<double> other;
  const Counts before = counts(own);
  try {
    TapeScope<double> s1;
    (void)Var<double>::independent(1.0);
    TapeScope<double> s2(other);
    (void)Var<double>::independent(2.0);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  BOOST_TEST(counts(own) == before);
  BOOST_TEST(other.num_vars() == 0u);
  BOOST_TEST(&ngvi::ad::active_tape<double>() == &own);
}

BOOST_AUTO_TEST_CASE(scope_rewind_keeps_the_scope_open_for_loops) {
  TapeScope<double> scope;
  Tape<double>& t = scope.tape();
  const Counts start = counts(t);
  for (int i = 1; i <= 5; ++i) {
    scope.rewind();
    BOOST_TEST(counts(t) == start);
    const Var<double> x = Var<double>::independent(static_cast<double>(i));
    const Var<double> y = x * x * x;
    BOOST_TEST(x.index() == start.vars);  // the same slots every iteration
    BOOST_TEST(adjoint_of(scope, y, x) == 3.0 * i * i);
  }
}

BOOST_AUTO_TEST_CASE(scopes_of_the_dual_tape_are_independent_of_the_double_tape) {
  using D = ngvi::ad::Dual<double, 1>;
  Tape<double>& td = ngvi::ad::active_tape<double>();
  const Counts before = counts(td);
  {
    TapeScope<D> scope;
    (void)Var<D>::independent(D(1.0, 0, 1.0));
    BOOST_TEST(scope.tape().num_vars() >= 1u);
    BOOST_TEST(counts(td) == before);
  }
}

BOOST_AUTO_TEST_SUITE_END()
