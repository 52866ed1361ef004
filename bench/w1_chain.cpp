// W1: value + gradient of the scalar chain f(x) = Σ log(1 + exp(x_i x_{i+1})) + sin(x_i)²,
// n = 100000 — the analytic Eigen reference, ngvi on the scalar loop, ngvi with fused
// coefficient-wise nodes (on x as one matrix variable; on the vector of Var through as_matrix;
// with a square node).
#include "drivers.hpp"
#include "ngvi_models.hpp"

namespace {

using namespace ngvi_bench;

void w1_analytic(benchmark::State& st) {
  const adb::AllData& a = data();
  adb::analytic::Chain c;
  std::vector<double> g(adb::W1_N);
  for (auto _ : st) {
    double f = c.value_grad(a.w1.x.data(), adb::W1_N, g.data());
    benchmark::DoNotOptimize(f);
    benchmark::ClobberMemory();
  }
}
NGVI_BENCH(w1_analytic, ADB_W1, "analytic");

void w1_ngvi_scalar(benchmark::State& st) {
  const Eigen::VectorXd x = to_eigen(data().w1.x);
  run_gradient(
      st, [](const auto& xv) { return chain_loop(xv); }, x, ref().r.w1_grad, ref().r.w1_f);
}
NGVI_BENCH(w1_ngvi_scalar, ADB_W1, "ngvi_scalar");

void w1_ngvi_fused(benchmark::State& st) {
  const Eigen::VectorXd x = to_eigen(data().w1.x);
  run_gradient(
      st, [](const ngvi::ad::MatrixVar<double>& xv) { return chain_fused(xv); }, x, ref().r.w1_grad,
      ref().r.w1_f);
}
NGVI_BENCH(w1_ngvi_fused, ADB_W1, "ngvi_fused");

void w1_ngvi_fused_vector(benchmark::State& st) {
  const Eigen::VectorXd x = to_eigen(data().w1.x);
  run_gradient(
      st, [](const auto& xv) { return chain_fused_vector(xv); }, x, ref().r.w1_grad, ref().r.w1_f);
}
NGVI_BENCH(w1_ngvi_fused_vector, ADB_W1, "ngvi_fused_vector");

void w1_ngvi_fused_square(benchmark::State& st) {
  const Eigen::VectorXd x = to_eigen(data().w1.x);
  run_gradient(
      st, [](const auto& xv) { return chain_fused_square(xv); }, x, ref().r.w1_grad, ref().r.w1_f);
}
NGVI_BENCH(w1_ngvi_fused_square, ADB_W1, "ngvi_fused_square");

}  // namespace
