// Shared plumbing of the AD workload benchmarks (bench_ad_workloads): the peers' data and
// analytic reference results built once per process, the correctness gate every ngvi benchmark
// passes before it is timed, and the registration defaults.
//
// Benchmark names are "<workload id>/<implementation>", e.g. "W2_mlp_grad/ngvi_fused"; the
// workload ids are the peers' (reference/bench_common.hpp), so bench_table can line rows up
// with peers/ad/results.md.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <autodiff/core/active_tape.hpp>

#include "reference/analytic.hpp"
#include "reference/bench_common.hpp"
#include "reference/reference.hpp"

namespace ngvi_bench {

// Results whose relative error against the analytic reference exceeds this are not timed.
inline constexpr double max_rel_err = 1e-10;

// The peers' workload data (same sizes and seeds as peers/ad), built on first use.
inline const adb::AllData& data() {
  static const adb::AllData d = adb::make_all();
  return d;
}

// Analytic reference derivatives (adb::make_refs) plus the reference values of each loss.
struct Reference {
  adb::Refs r;
  double w2_f = 0, w4_f = 0, w6_f = 0;
};

inline const Reference& ref() {
  static const Reference R = [] {
    Reference x;
    const adb::AllData& a = data();
    x.r = adb::make_refs(a);
    std::vector<double> g(a.mlp.P()), g4(a.hes.P()), g6(a.lr.P());
    adb::analytic::Mlp m2(a.mlp), m4(a.hes);
    x.w2_f = m2.value_grad(a.mlp.theta.data(), g.data());
    x.w4_f = m4.value_grad(a.hes.theta.data(), g4.data());
    adb::analytic::LogReg l(a.lr);
    x.w6_f = l.value_grad(a.lr.theta.data(), g6.data());
    return x;
  }();
  return R;
}

inline Eigen::VectorXd to_eigen(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// ||a - ref|| / ||ref|| (Frobenius for matrices), as in the peers' harness.
template <class A>
double rel_err(const A& a, const std::vector<double>& ref) {
  if (static_cast<std::size_t>(a.size()) != ref.size()) return INFINITY;
  return adb::rel_err(a.data(), ref.data(), ref.size());
}
inline double rel_err_value(double a, double ref) {
  return std::abs(a - ref) / std::max(std::abs(ref), 1e-300);
}

// The correctness gate: records rel_err (of the derivative; the value is checked too) as a
// counter, and aborts the whole run when either is above max_rel_err or not a number. Call it
// once, before the timing loop, on the result of one untimed call.
// Name of the benchmark running on this thread (set by NGVI_BENCH's wrapper).
inline const char*& current_benchmark() {
  static thread_local const char* name = "";
  return name;
}

inline void check_or_abort(benchmark::State& st, double deriv_err, double value_err) {
  if (!(deriv_err <= max_rel_err) || !(value_err <= max_rel_err)) {
    std::fprintf(stderr,
                 "\nbench_ad_workloads: %s gives a wrong result: rel_err(derivative) = %.3e, "
                 "rel_err(value) = %.3e against the analytic reference (limit %.0e); aborting\n",
                 current_benchmark(), deriv_err, value_err, max_rel_err);
    std::fflush(stderr);
    std::abort();
  }
  st.counters["rel_err"] = deriv_err;
}

// Tape statistics of the last recording as counters (from the untimed check call).
struct TapeStats {
  double statements = 0, operands = 0, fused = 0, vars = 0;
  void set(benchmark::State& st) const {
    st.counters["tape_stmts"] = statements;
    st.counters["tape_operands"] = operands;
    st.counters["tape_fused"] = fused;
    st.counters["tape_vars"] = vars;
  }
};
template <class TapeT>
TapeStats stats_of(const TapeT& t) {
  return TapeStats{double(t.num_statements()), double(t.num_operands()), double(t.num_fused()),
                   double(t.num_vars())};
}

// Wraps a model function so that each call also stores the statistics of the tape it recorded
// on (for the untimed check call; the timed loop calls the model directly).
template <class F>
auto with_stats(F& f, TapeStats& stats) {
  // Callable with what f is callable with, so that the drivers hand it f's input form.
  return [&f, &stats ]<class X>(const X& x) requires std::invocable<F&, const X&> {
    auto y = f(x);
    using T = typename std::decay_t<decltype(x)>::Scalar;
    stats = stats_of(ngvi::ad::active_tape<typename T::value_type>());
    return y;
  };
}

// Registration defaults: microseconds, process CPU time (all threads, like the peers'
// cpu_seconds_per_call), iteration count chosen from CPU time.
inline benchmark::internal::Benchmark* defaults(benchmark::internal::Benchmark* b) {
  return b->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime();
}

}  // namespace ngvi_bench

// Registers fn as "<workload>/<impl>" with the defaults above (fn may be a template-id).
#define NGVI_BENCH_CAT2(a, b) a##b
#define NGVI_BENCH_CAT(a, b) NGVI_BENCH_CAT2(a, b)
#define NGVI_BENCH(fn, workload, impl)                                                      \
  static benchmark::internal::Benchmark* NGVI_BENCH_CAT(ngvi_bench_registration_, __LINE__) \
      [[maybe_unused]] = ::ngvi_bench::defaults(                                            \
          ::benchmark::RegisterBenchmark(workload "/" impl, [](::benchmark::State& st) {    \
            ::ngvi_bench::current_benchmark() = workload "/" impl;                          \
            fn(st);                                                                         \
          }))
