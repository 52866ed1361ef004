// W4, scalar-loop row: the exact 151×151 Hessian of the 13-10-1 tanh MLP loss over N = 100
// examples written as the peers' scalar loop (one tape statement per scalar expression),
// against the analytic reference of w4_hessian.cpp. A file of its own: see w4_hessian.cpp.
#include "drivers.hpp"
#include "ngvi_models.hpp"

namespace {

using namespace ngvi_bench;

void w4_ngvi_scalar(benchmark::State& st) {
  const adb::MlpData& d = data().hes;
  run_hessian<8>(
      st, [&d](const auto& th) { return mlp_loss_loop(th, d); }, to_eigen(d.theta), ref().r.w4_hess,
      ref().w4_f);
}
NGVI_BENCH(w4_ngvi_scalar, ADB_W4, "ngvi_scalar");

}  // namespace
