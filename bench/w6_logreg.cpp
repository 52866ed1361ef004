// W6: logistic regression NLL Σ log(1 + exp(z)) − y z, z = X w + b, d = 30, N = 569 (P = 31):
// value + gradient, and value + gradient + exact 31×31 Hessian. The scalar-loop model's Hessian
// row is in w6_logreg_hessian_scalar.cpp (the GCC 12 crash described in w4_hessian.cpp).
#include "drivers.hpp"
#include "ngvi_models.hpp"

namespace {

using namespace ngvi_bench;

void w6g_analytic(benchmark::State& st) {
  const adb::LrData& d = data().lr;
  adb::analytic::LogReg l(d);
  std::vector<double> g(d.P());
  for (auto _ : st) {
    double f = l.value_grad(d.theta.data(), g.data());
    benchmark::DoNotOptimize(f);
    benchmark::ClobberMemory();
  }
}
NGVI_BENCH(w6g_analytic, ADB_W6G, "analytic");

void w6g_ngvi_scalar(benchmark::State& st) {
  const adb::LrData& d = data().lr;
  run_gradient(
      st, [&d](const auto& th) { return logreg_loss_loop(th, d); }, to_eigen(d.theta),
      ref().r.w6_grad, ref().w6_f);
}
NGVI_BENCH(w6g_ngvi_scalar, ADB_W6G, "ngvi_scalar");

void w6g_ngvi_fused(benchmark::State& st) {
  const adb::LrData& d = data().lr;
  const LrBatch b(d);
  run_gradient(
      st, [&b](const auto& th) { return logreg_loss_fused(th, b); }, to_eigen(d.theta),
      ref().r.w6_grad, ref().w6_f);
}
NGVI_BENCH(w6g_ngvi_fused, ADB_W6G, "ngvi_fused");

void w6h_analytic(benchmark::State& st) {
  const adb::LrData& d = data().lr;
  adb::analytic::LogReg l(d);
  Eigen::MatrixXd H;
  Eigen::VectorXd g;
  for (auto _ : st) {
    l.hessian(d.theta.data(), H, g);
    benchmark::DoNotOptimize(H.data());
    benchmark::ClobberMemory();
  }
}
NGVI_BENCH(w6h_analytic, ADB_W6H, "analytic");

template <int K>
void w6h_ngvi_fused(benchmark::State& st) {
  const adb::LrData& d = data().lr;
  const LrBatch b(d);
  run_hessian<K>(
      st, [&b](const auto& th) { return logreg_loss_fused(th, b); }, to_eigen(d.theta),
      ref().r.w6_hess, ref().w6_f);
}
NGVI_BENCH(w6h_ngvi_fused<8>, ADB_W6H, "ngvi_fused");
// Other tangent widths: K = 16 needs 2 sweeps for P = 31, K = 32 one.
NGVI_BENCH(w6h_ngvi_fused<16>, ADB_W6H, "ngvi_fused_K16");
NGVI_BENCH(w6h_ngvi_fused<32>, ADB_W6H, "ngvi_fused_K32");

}  // namespace
