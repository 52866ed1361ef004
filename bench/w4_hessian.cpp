// W4: value + gradient + exact 151×151 Hessian of the 13-10-1 tanh MLP loss over N = 100
// examples — analytic (JᵀJ + block-structured second-order term) and ngvi::ad::hessian
// (forward-over-reverse on Tape<Dual<double, K>>, ⌈P/K⌉ sweeps) on the fused model. The
// scalar-loop model's row is in w4_hessian_scalar.cpp: GCC 12 at -O3 crashes (internal compiler
// error in VRP) on this file when both models' Hessians are instantiated in it.
#include "drivers.hpp"
#include "ngvi_models.hpp"

namespace {

using namespace ngvi_bench;

void w4_analytic(benchmark::State& st) {
  const adb::MlpData& d = data().hes;
  adb::analytic::Mlp m(d);
  Eigen::MatrixXd H;
  Eigen::VectorXd g;
  for (auto _ : st) {
    m.hessian(d.theta.data(), H, g);
    benchmark::DoNotOptimize(H.data());
    benchmark::ClobberMemory();
  }
}
NGVI_BENCH(w4_analytic, ADB_W4, "analytic");

template <int K>
void w4_ngvi_fused(benchmark::State& st) {
  const adb::MlpData& d = data().hes;
  const MlpBatch b(d);
  run_hessian<K>(
      st, [&b](const auto& th) { return mlp_loss_fused(th, b); }, to_eigen(d.theta),
      ref().r.w4_hess, ref().w4_f);
}
NGVI_BENCH(w4_ngvi_fused<8>, ADB_W4, "ngvi_fused");
// Other tangent widths K (Hessian columns per sweep): ⌈151/K⌉ sweeps of Dual<double, K>.
NGVI_BENCH(w4_ngvi_fused<4>, ADB_W4, "ngvi_fused_K4");
NGVI_BENCH(w4_ngvi_fused<16>, ADB_W4, "ngvi_fused_K16");

}  // namespace
