// The three kinds of ngvi benchmark body — gradient, Hessian-vector product, full Hessian.
// Each first makes one untimed call, checks value and derivative against the analytic
// reference (aborting the run if wrong) and records rel_err and the tape statistics as
// counters; then it times exactly the call a user makes: one driver call that returns the
// value and the requested derivatives.
#pragma once

#include <vector>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>

#include "support.hpp"

namespace ngvi_bench {

// ngvi::ad::value_and_gradient(f, x, g).
template <class F>
void run_gradient(benchmark::State& st, F f, const Eigen::VectorXd& x,
                  const std::vector<double>& gref, double fref) {
  Eigen::VectorXd g(x.size());
  TapeStats stats;
  const double fx = ngvi::ad::value_and_gradient(with_stats(f, stats), x, g);
  check_or_abort(st, rel_err(g, gref), rel_err_value(fx, fref));
  stats.set(st);
  for (auto _ : st) {
    double v = ngvi::ad::value_and_gradient(f, x, g);
    benchmark::DoNotOptimize(v);
    benchmark::ClobberMemory();
  }
}

// ngvi::ad::gradient_and_hvp(f, x, v, g, hv): value, gradient and H·v from one recording.
template <class F>
void run_hvp(benchmark::State& st, F f, const Eigen::VectorXd& x, const Eigen::VectorXd& v,
             const std::vector<double>& hvref, double fref) {
  Eigen::VectorXd g(x.size()), hv(x.size());
  TapeStats stats;
  const double fx = ngvi::ad::gradient_and_hvp(with_stats(f, stats), x, v, g, hv);
  check_or_abort(st, rel_err(hv, hvref), rel_err_value(fx, fref));
  stats.set(st);
  for (auto _ : st) {
    double y = ngvi::ad::gradient_and_hvp(f, x, v, g, hv);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
}

// ngvi::ad::hessian<K>(f, x, &value, &grad): value, gradient and the exact Hessian.
template <int K, class F>
void run_hessian(benchmark::State& st, F f, const Eigen::VectorXd& x,
                 const std::vector<double>& href, double fref) {
  Eigen::VectorXd g(x.size());
  double fx = 0;
  TapeStats stats;
  const Eigen::MatrixXd H = ngvi::ad::hessian<K>(with_stats(f, stats), x, &fx, &g);
  check_or_abort(st, rel_err(H, href), rel_err_value(fx, fref));
  stats.set(st);
  st.counters["K"] = K;
  for (auto _ : st) {
    Eigen::MatrixXd h = ngvi::ad::hessian<K>(f, x, &fx, &g);
    benchmark::DoNotOptimize(h.data());
    benchmark::ClobberMemory();
  }
}

}  // namespace ngvi_bench
