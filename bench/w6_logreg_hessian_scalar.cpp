// W6, scalar-loop Hessian row: the exact 31×31 Hessian of the logistic regression NLL written as
// the peers' scalar loop, against the analytic reference of w6_logreg.cpp. A file of its own: see
// w4_hessian.cpp.
#include "drivers.hpp"
#include "ngvi_models.hpp"

namespace {

using namespace ngvi_bench;

void w6h_ngvi_scalar(benchmark::State& st) {
  const adb::LrData& d = data().lr;
  run_hessian<8>(
      st, [&d](const auto& th) { return logreg_loss_loop(th, d); }, to_eigen(d.theta),
      ref().r.w6_hess, ref().w6_f);
}
NGVI_BENCH(w6h_ngvi_scalar, ADB_W6H, "ngvi_scalar");

}  // namespace
