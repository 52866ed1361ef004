// vi_tour: VON, VOGN and IVON on the 1-D regression with a gap in its inputs — the program that
// docs/user-guide.md's "Natural-gradient VI in a few lines" shows. Each method fits the same
// network from the same seed through the one fit loop; the Monte-Carlo predictive reports each
// posterior's test log-likelihood and RMSE. Runs in about a second.
#include <cstdio>

#include <inference/instances.hpp>
#include <inference/problems/regression_1d_gap.hpp>

int main() {
  using namespace ngvi;
  const vi::problems::Regression1dGap p = vi::problems::make_regression_1d_gap();

  // Report the predictive of a finished fit on the test inputs (inside and across the gap).
  const auto report = [&](const char* name, const auto& fit) {
    vi::Rng rng(7);
    const vi::RegressionPredictive pred =
        vi::mc_regression_predictive(p.test_model, fit.posterior, p.targets, rng);
    long long remedies = 0;  // steps on which a remedy for a non-PD precision fired
    for (const auto& [what, times] : fit.counters.remedies) remedies += times;
    std::printf("%-5s ELBO %9.2f   test LL %6.3f   RMSE %5.3f   remedies %lld\n", name,
                fit.history.back().elbo, pred.test_log_likelihood, pred.rmse, remedies);
  };

  vi::VonOptions von;  // full covariance, exact minibatch Hessians, eigenvalue clipping
  von.loop.epochs = 60;
  von.mean_rate = vi::Schedule{0.1};
  von.precision_rate = vi::Schedule{0.05};
  vi::Rng rng_von(1);
  report("VON", vi::fit(p.model, von, rng_von));

  vi::VognOptions vogn;  // diagonal, with the generalized Gauss-Newton
  vogn.loop.epochs = 400;
  vogn.curvature = vi::VognCurvature::ggn;
  vogn.mean_rate = vi::Schedule{0.02};
  vi::Rng rng_vogn(1);
  report("VOGN", vi::fit(p.model, vogn, rng_vogn));

  vi::IvonOptions ivon;  // reparameterisation Hessian estimate, no per-example gradients
  ivon.loop.epochs = 400;
  ivon.learning_rate = vi::Schedule{0.05};
  ivon.beta2 = 0.99;  // few steps: let h forget hess_init
  vi::Rng rng_ivon(1);
  report("IVON", vi::fit(p.model, ivon, rng_ivon));
  return 0;
}
