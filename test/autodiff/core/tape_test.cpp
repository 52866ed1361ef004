// Tests of autodiff/core/tape.hpp: what a recording puts on the tape, marks and rewinding,
// reverse sweeps that stop at a mark, fused nodes interleaved with scalar statements, the
// index limit, and the tape's memory promise: after warm-up, recording the same
// computation again allocates nothing. That last claim is checked twice: with the tape's
// own allocation_count(), and by counting every global operator new on this thread while
// the recording runs.
//
// Counting operator new means replacing it, which replaces it for the whole test executable.
// The replacement forwards to malloc/free (all non-aligned forms, so AddressSanitizer sees a
// consistent pair) and only counts on a thread whose counting flag is set, i.e. inside the
// one test below; every other test sees an ordinary allocator.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/tape.hpp>
#include <autodiff/core/tape_scope.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>

namespace {
thread_local bool count_news = false;
thread_local std::size_t news_counted = 0;

void* counted_malloc(std::size_t n) {
  if (count_news) ++news_counted;
  return std::malloc(n == 0 ? 1 : n);
}
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = counted_malloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  if (void* p = counted_malloc(n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
// GCC cannot see that the operator new above is malloc, and warns that free() does not match
// it (-Wmismatched-new-delete) wherever these are inlined; they do match.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::index_t;
using ngvi::ad::Tape;
using ngvi::ad::TapeScope;
using ngvi::ad::Var;

// A fused node y = 3·x recorded as one tape entry: its reverse step adds 3·ȳ to x̄.
struct Triple {
  index_t x, y;
  void reverse(double* adj) const { adj[x] += 3.0 * adj[y]; }
};

Var<double> triple(const Var<double>& x) {
  Tape<double>& t = ngvi::ad::active_tape<double>();
  const index_t y = t.new_index();
  t.push_fused(t.arena().create<Triple>(Triple{x.index(), y}));
  return Var<double>::from_index(3.0 * x.value(), y, t);
}

// One recording of a fixed computation with enough statements (3·n) to make every tape
// buffer grow past its initial 1024 entries, a fused node, and 64 bytes of arena payload;
// returns df/dx0 after a reverse sweep. f = Σ_k sin(x_k)·x_{k+1} + 3x0 (fused) squared.
double record_and_sweep(TapeScope<double>& scope, const std::array<double, 8>& x0, int n) {
  Tape<double>& t = scope.tape();
  scope.rewind();
  std::array<Var<double>, 8> x;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = Var<double>::independent(x0[i]);
  Var<double> acc = 0.0;
  for (int k = 0; k < n; ++k) {
    const std::size_t i = static_cast<std::size_t>(k) % 7;
    acc = acc + sin(x[i]) * x[i + 1];
  }
  const Var<double> z = triple(x[0]);
  const Var<double> y = acc + z * z;
  double* payload = t.arena().allocate_array<double>(8);
  payload[0] = y.value();
  t.zero_adjoints();
  t.adjoint(y.index()) = 1.0;
  t.reverse(scope.mark());
  return t.adjoint(x[0].index());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tape_test)

BOOST_AUTO_TEST_CASE(independent_variables_and_statements_are_counted) {
  Tape<double> tape;
  TapeScope<double> scope(tape);
  BOOST_TEST(tape.num_vars() == 0u);
  const Var<double> a = Var<double>::independent(2.0);
  const Var<double> b = Var<double>::independent(3.0);
  BOOST_TEST(tape.num_vars() == 2u);
  BOOST_TEST(tape.num_statements() == 0u);  // inputs have no statement
  BOOST_TEST(a.index() == 0u);
  BOOST_TEST(b.index() == 1u);
  const Var<double> c = a * b + a;  // one statement, three operands
  BOOST_TEST(tape.num_statements() == 1u);
  BOOST_TEST(tape.num_operands() == 3u);
  BOOST_TEST(tape.num_vars() == 3u);
  BOOST_TEST(c.index() == 2u);
  const Var<double> copy = c;  // copies share the index and record nothing
  BOOST_TEST(copy.index() == c.index());
  BOOST_TEST(tape.num_statements() == 1u);
  // dc/da = b + 1, dc/db = a.
  tape.zero_adjoints();
  tape.adjoint(c.index()) = 1.0;
  tape.reverse();
  BOOST_TEST(tape.adjoint(a.index()) == 4.0);
  BOOST_TEST(tape.adjoint(b.index()) == 2.0);
  BOOST_TEST(tape.num_fused() == 0u);
  BOOST_TEST(tape.bytes_reserved() > 0u);
}

BOOST_AUTO_TEST_CASE(rewind_to_a_mark_forgets_only_what_came_after) {
  Tape<double> tape;
  TapeScope<double> scope(tape);
  const Var<double> a = Var<double>::independent(2.0);
  const Var<double> b = a * a;
  const Tape<double>::Mark m = tape.mark();
  const std::uint32_t stamp = tape.stamp();
  const Var<double> c = b * a;
  const Var<double> d = triple(c);
  BOOST_TEST(tape.num_statements() == 3u);  // b, c, and d's fused entry
  BOOST_TEST(tape.num_fused() == 1u);
  tape.rewind(m);
  BOOST_TEST(tape.num_statements() == 1u);
  BOOST_TEST(tape.num_operands() == 2u);
  BOOST_TEST(tape.num_vars() == 2u);
  BOOST_TEST(tape.num_fused() == 0u);
  BOOST_TEST(tape.stamp() != stamp);  // a new recording epoch
  BOOST_TEST(tape.owns(a.index(), a.stamp()));
  BOOST_TEST(tape.owns(b.index(), b.stamp()));
  BOOST_TEST(!tape.owns(c.index(), c.stamp()));  // its index is past the end
  (void)d;
  // The next variable reuses the rewound index.
  const Var<double> e = b + 1.0;
  BOOST_TEST(e.index() == c.index());
  tape.clear();
  BOOST_TEST(tape.num_vars() == 0u);
  BOOST_TEST(tape.num_statements() == 0u);
}

BOOST_AUTO_TEST_CASE(reverse_from_a_mark_propagates_only_later_statements) {
  Tape<double> tape;
  TapeScope<double> scope(tape);
  const Var<double> x = Var<double>::independent(1.5);
  const Var<double> u = x * x;  // recorded before the mark
  const Tape<double>::Mark m = tape.mark();
  const Var<double> y = u * x;  // after the mark
  tape.zero_adjoints();
  tape.adjoint(y.index()) = 1.0;
  tape.reverse(m);
  // y's own statement ran: ū = x, x̄ = u directly; u's statement (x̄ += 2x·ū) did not.
  BOOST_TEST(tape.adjoint(u.index()) == 1.5);
  BOOST_TEST(tape.adjoint(x.index()) == 2.25);
  // A full sweep finishes the job: dy/dx = 3x².
  tape.zero_adjoints();
  tape.adjoint(y.index()) = 1.0;
  tape.reverse();
  BOOST_TEST(tape.adjoint(x.index()) == 3 * 2.25);
}

BOOST_AUTO_TEST_CASE(fused_nodes_run_in_tape_order_with_scalar_statements) {
  Tape<double> tape;
  TapeScope<double> scope(tape);
  const Var<double> x = Var<double>::independent(0.7);
  const Var<double> s = sin(x);     // scalar
  const Var<double> z = triple(s);  // fused: 3 sin x
  const Var<double> w = z * z + x;  // scalar: 9 sin² x + x
  const Var<double> v = triple(w);  // fused: 27 sin² x + 3x
  tape.zero_adjoints();
  tape.adjoint(v.index()) = 1.0;
  tape.reverse();
  const double exact = 54.0 * std::sin(0.7) * std::cos(0.7) + 3.0;
  NGVI_CHECK_REPORT(vf::compare(tape.adjoint(x.index()), exact, tol::closed_form,
                                "dv/dx through two fused nodes"));
  BOOST_TEST(v.value() == 3.0 * (9.0 * std::sin(0.7) * std::sin(0.7) + 0.7),
             boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(zero_adjoints_covers_every_variable) {
  Tape<double> tape;
  TapeScope<double> scope(tape);
  const Var<double> x = Var<double>::independent(1.0);
  Var<double> y = x;
  for (int i = 0; i < 3000; ++i) y = y * 1.0001;  // grows the adjoint buffer
  tape.zero_adjoints();
  BOOST_TEST(tape.num_vars() == 3001u);
  bool all_zero = true;
  for (std::size_t i = 0; i < tape.num_vars(); ++i)
    all_zero = all_zero && tape.adjoint(static_cast<index_t>(i)) == 0.0;
  BOOST_TEST(all_zero);
  tape.adjoint(y.index()) = 1.0;
  tape.reverse();
  NGVI_CHECK_REPORT(vf::compare(tape.adjoint(x.index()), std::pow(1.0001, 3000), tol::closed_form,
                                "chain of 3000"));
}

BOOST_AUTO_TEST_CASE(too_many_variables_is_a_usage_error) {
  Tape<double> tape;
  BOOST_CHECK_THROW(tape.new_indices(ngvi::ad::no_index), ngvi::ad::usage_error);
  BOOST_TEST(tape.num_vars() == 0u);  // nothing was half-done
}

BOOST_AUTO_TEST_CASE(re_recording_after_warm_up_allocates_nothing) {
  const std::array<double, 8> x0 = {0.3, -0.2, 1.1, 0.7, -1.4, 0.05, 2.0, -0.6};
  constexpr int n = 3000;  // 3000 statements, 6000 operands: past every initial capacity
  Tape<double> tape;
  TapeScope<double> scope(tape);
  const double first = record_and_sweep(scope, x0, n);
  const std::size_t tape_allocs = tape.allocation_count();
  const std::size_t reserved = tape.bytes_reserved();
  BOOST_TEST(tape_allocs > 0u);  // the warm-up did have to grow the buffers
  for (int rep = 0; rep < 4; ++rep) {
    news_counted = 0;
    count_news = true;
    const double again = record_and_sweep(scope, x0, n);
    count_news = false;
    BOOST_TEST_CONTEXT("repetition " << rep) {
      BOOST_TEST(news_counted == 0u);
      BOOST_TEST(tape.allocation_count() == tape_allocs);
      BOOST_TEST(tape.bytes_reserved() == reserved);
      BOOST_TEST(again == first);  // and the same computation gives the same bits
    }
  }
  // The counter does count: a std::vector's buffer is seen.
  news_counted = 0;
  count_news = true;
  {
    std::vector<double> v(100, 0.0);
    BOOST_TEST(v.size() == 100u);
  }
  count_news = false;
  BOOST_TEST(news_counted == 1u);
  // df/dx0 by hand: the sum's terms with i = 0 give cos(x0)·x1 each (n/7 rounded up of them),
  // the terms with i + 1 = 0 do not exist, and (3x0)² gives 18x0.
  const int uses = (n + 6) / 7;
  const double exact = uses * std::cos(x0[0]) * x0[1] + 18.0 * x0[0];
  NGVI_CHECK_REPORT(vf::compare(first, exact, tol::closed_form, "df/dx0"));
}

BOOST_AUTO_TEST_SUITE_END()
