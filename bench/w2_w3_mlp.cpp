// W2: value + gradient and W3: value + gradient + Hessian-vector product of the 13-50-1 tanh
// MLP loss ½Σ(y − f(x))² over N = 455 examples (P = 751) — analytic Eigen reference (batched
// GEMMs, hand-written R-op) and ngvi (fused matrix nodes; the peers' scalar loop).
#include "drivers.hpp"
#include "ngvi_models.hpp"

namespace {

using namespace ngvi_bench;

void w2_analytic(benchmark::State& st) {
  const adb::MlpData& d = data().mlp;
  adb::analytic::Mlp m(d);
  std::vector<double> g(d.P());
  for (auto _ : st) {
    double f = m.value_grad(d.theta.data(), g.data());
    benchmark::DoNotOptimize(f);
    benchmark::ClobberMemory();
  }
}
NGVI_BENCH(w2_analytic, ADB_W2, "analytic");

void w2_ngvi_scalar(benchmark::State& st) {
  const adb::MlpData& d = data().mlp;
  run_gradient(
      st, [&d](const auto& th) { return mlp_loss_loop(th, d); }, to_eigen(d.theta), ref().r.w2_grad,
      ref().w2_f);
}
NGVI_BENCH(w2_ngvi_scalar, ADB_W2, "ngvi_scalar");

void w2_ngvi_fused(benchmark::State& st) {
  const adb::MlpData& d = data().mlp;
  const MlpBatch b(d);
  run_gradient(
      st, [&b](const auto& th) { return mlp_loss_fused(th, b); }, to_eigen(d.theta),
      ref().r.w2_grad, ref().w2_f);
}
NGVI_BENCH(w2_ngvi_fused, ADB_W2, "ngvi_fused");

void w3_analytic(benchmark::State& st) {
  const adb::MlpData& d = data().mlp;
  adb::analytic::Mlp m(d);
  std::vector<double> hv(d.P());
  for (auto _ : st) {
    m.hvp(d.theta.data(), d.v.data(), hv.data());
    benchmark::DoNotOptimize(hv.data());
    benchmark::ClobberMemory();
  }
}
NGVI_BENCH(w3_analytic, ADB_W3, "analytic");

void w3_ngvi_scalar(benchmark::State& st) {
  const adb::MlpData& d = data().mlp;
  run_hvp(
      st, [&d](const auto& th) { return mlp_loss_loop(th, d); }, to_eigen(d.theta), to_eigen(d.v),
      ref().r.w3_hvp, ref().w2_f);
}
NGVI_BENCH(w3_ngvi_scalar, ADB_W3, "ngvi_scalar");

void w3_ngvi_fused(benchmark::State& st) {
  const adb::MlpData& d = data().mlp;
  const MlpBatch b(d);
  run_hvp(
      st, [&b](const auto& th) { return mlp_loss_fused(th, b); }, to_eigen(d.theta), to_eigen(d.v),
      ref().r.w3_hvp, ref().w2_f);
}
NGVI_BENCH(w3_ngvi_fused, ADB_W3, "ngvi_fused");

}  // namespace
