// Downstream-user check of the compiled library ngvi::instances: a program that links it fits the
// 1-D gap problem with IVON through the installed libngvi_instances.a (its fit is declared extern
// by <inference/inference.hpp>, so it is not compiled here) and checks that the fit finished with
// a finite ELBO and a posterior over all P = 3H + 1 parameters. Exits non-zero otherwise; a
// program compiled with another Eigen alignment or checked mode than the library fails to link
// (inference/instances.hpp).
#include <cmath>
#include <cstdio>

#include <inference/inference.hpp>
#include <inference/problems/regression_1d_gap.hpp>

int main() {
  using namespace ngvi;
  const vi::problems::Regression1dGap p = vi::problems::make_regression_1d_gap();
  vi::IvonOptions ivon;
  ivon.loop.epochs = 20;
  ivon.learning_rate = vi::Schedule{0.05};
  vi::Rng rng(1);
  const auto fit = vi::fit(p.model, ivon, rng);
  const double elbo = fit.history.back().elbo;
  const bool ok = fit.ok() && std::isfinite(elbo) && fit.posterior.mean().size() == 3 * 16 + 1;
  std::printf("ngvi::instances: IVON on the gap problem, ELBO %.2f after %lld steps: %s\n", elbo,
              static_cast<long long>(fit.counters.steps), ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
