// Noisy Adam (seed 004, Alg. 1) on Bayesian linear regression, against fixed points computed
// independently in the test:
//  - sampled (true) Fisher: f̂ has expectation τ diag(ΦᵀΦ)/N whatever w is, so f → that and the
//    precision (N/λ)(f + γ) → τ diag(ΦᵀΦ) + δ = diag Λ, the mean-field optimum; μ → the exact mean;
//  - empirical Fisher: E_q[(1/N)Σᵢ gᵢⱼ²] = (τ²/N) Σᵢ φᵢⱼ² ((φᵢᵀμ − yᵢ)² + Σₖ φᵢₖ² sₖ) with
//    sₖ = (λ/N)/(fₖ + γ): f solves this fixed-point equation (iterated to convergence below),
//    which is NOT diag Λ — the residuals enter — while μ is still the exact mean.
// Same seed → same bits for 1 and 2 threads; checkpoint + resume = the uninterrupted run; bad
// options name the field.
#include <cmath>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/noisy_adam.hpp>
#include <nn/example_indices.hpp>

#include <support/conjugate_linear.hpp>
#include <support/method_checks.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(noisy_adam_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::ArrayXd;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

namespace {

struct Averages {
  VectorXd mean, precision;
};

// Runs `steps` full-batch steps and averages μ and the precision over the last `averaged`.
template <class Model>
Averages run_and_average(const Model& model, const vi::NoisyAdamOptions& o, int steps,
                         int averaged) {
  vi::Rng rng(12);
  vi::NoisyAdam<Model> method(model, o, rng);
  const std::vector<Eigen::Index> batch = nn::all_examples(model.num_examples());
  vi::Counters c;
  const Eigen::Index p = model.num_params();
  Averages a{VectorXd::Zero(p), VectorXd::Zero(p)};
  for (int t = 1; t <= steps; ++t) {
    method.step(ngvi::test::step_on(batch, t), rng, c);
    if (t > steps - averaged) {
      a.mean += method.posterior().mean() / averaged;
      a.precision += method.posterior().precision() / averaged;
    }
  }
  return a;
}

vi::NoisyAdamOptions converging_options(double delta, vi::NoisyAdamFisher fisher) {
  vi::NoisyAdamOptions o;
  o.prior_precision = delta;
  o.fisher = fisher;
  o.fisher_samples = 4;
  o.mc_samples = 4;
  o.beta2 = 0.99;
  o.fisher_init = 1.0;
  o.learning_rate = {0.05, 0.002, 1.0, 0.0};
  return o;
}

void check_means(const VectorXd& mean, const ngvi::test::ConjugateLinear& f) {
  const VectorXd standardised =
      (mean - f.mean()).cwiseProduct(f.precision().diagonal().cwiseSqrt());
  NGVI_CHECK_REPORT(compare(standardised, VectorXd::Zero(mean.size()), tol::stochastic_fixed_point,
                            "averaged noisy-Adam mean − μ, in posterior standard deviations"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(sampled_fisher_settles_at_the_mean_field_optimum) {
  const auto f = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 5);
  const auto model = f.model();
  const Averages a = run_and_average(
      model, converging_options(f.delta, vi::NoisyAdamFisher::sampled_fisher), 3000, 1500);
  NGVI_CHECK_REPORT(compare(a.precision, VectorXd(f.precision().diagonal()),
                            tol::stochastic_fixed_point,
                            "averaged noisy-Adam precision vs diag Λ"));
  check_means(a.mean, f);
}

BOOST_AUTO_TEST_CASE(empirical_fisher_settles_at_its_own_fixed_point) {
  const auto f = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 6);
  const auto model = f.model();
  const vi::NoisyAdamOptions o = converging_options(f.delta, vi::NoisyAdamFisher::empirical_fisher);
  const Averages a = run_and_average(model, o, 3000, 1500);
  // The fixed point of f ↦ E_q[(1/N)Σᵢ gᵢ²] at μ = the exact mean, by plain iteration.
  const double n = 40.0, lambda = o.kl_weight, gamma = lambda * f.delta / n;
  const MatrixXd Phi = f.Phi();
  const ArrayXd r2 = (Phi * f.mean() - f.Y.col(0)).array().square();
  const MatrixXd Phi2 = Phi.array().square().matrix();
  VectorXd fisher = VectorXd::Ones(4);
  for (int it = 0; it < 500; ++it) {
    const VectorXd s = ((lambda / n) / (fisher.array() + gamma)).matrix();
    const ArrayXd per_example = r2 + (Phi2 * s).array();  // E_q[(φᵢᵀw − yᵢ)²]
    fisher = (f.tau * f.tau / n) * Phi2.transpose() * per_example.matrix();
  }
  const VectorXd expected_precision = ((n / lambda) * (fisher.array() + gamma)).matrix();
  NGVI_CHECK_REPORT(compare(a.precision, expected_precision, tol::stochastic_fixed_point,
                            "averaged noisy-Adam precision vs the empirical-Fisher fixed point"));
  check_means(a.mean, f);
  // And that fixed point is not the mean-field optimum (the test tells the two apart).
  BOOST_TEST(!compare(expected_precision, VectorXd(f.precision().diagonal()),
                      tol::stochastic_fixed_point, "empirical-Fisher fixed point vs diag Λ")
                  .passed);
}

BOOST_AUTO_TEST_CASE(same_seed_same_bits_for_one_and_two_threads) {
  const auto f = ngvi::test::make_conjugate_linear(40, 2, 4.0, 1.0, 8);
  const auto model = f.model();
  vi::NoisyAdamOptions o;
  o.prior_precision = f.delta;
  o.loop.minibatch = 20;
  o.loop.epochs = 3;
  o.loop.parallel.grain = 4;  // several tasks per minibatch, so two threads really share the work
  ngvi::test::check_thread_count_invariance(model, o, 77);
  o.fisher = vi::NoisyAdamFisher::empirical_fisher;
  ngvi::test::check_thread_count_invariance(model, o, 78);
}

BOOST_AUTO_TEST_CASE(resume_from_a_checkpoint_is_bitwise_the_uninterrupted_run) {
  const auto f = ngvi::test::make_conjugate_linear(30, 2, 4.0, 1.0, 9);
  const auto model = f.model();
  vi::NoisyAdamOptions o;
  o.prior_precision = f.delta;
  o.loop.minibatch = 7;
  o.loop.epochs = 6;
  o.loop.history_every = 3;
  ngvi::test::check_resume_is_bitwise(model, o, 21, 10);
}

BOOST_AUTO_TEST_CASE(bad_options_name_the_field) {
  const auto f = ngvi::test::make_conjugate_linear(10, 1, 4.0, 1.0, 1);
  const auto model = f.model();
  using ngvi::test::check_rejects;
  vi::NoisyAdamOptions good;
  good.loop.minibatch = 2;
  auto with = [&](auto change) {
    vi::NoisyAdamOptions o = good;
    change(o);
    return o;
  };
  check_rejects(model, with([](auto& o) { o.kl_weight = 0.0; }), "kl_weight");
  check_rejects(model, with([](auto& o) { o.beta1 = -0.5; }), "beta1");
  check_rejects(model, with([](auto& o) { o.beta2 = 1.0; }), "beta2");
  check_rejects(model, with([](auto& o) { o.fisher_samples = 0; }), "fisher_samples");
  check_rejects(model, with([](auto& o) { o.extrinsic_damping = -1.0; }), "extrinsic_damping");
  check_rejects(model, with([](auto& o) { o.fisher_init = -1.0; }), "fisher_init");
  check_rejects(model, with([](auto& o) { o.mc_samples = -1; }), "mc_samples");
  check_rejects(model, with([](auto& o) { o.learning_rate.initial = 0.0; }), "learning_rate");
}

BOOST_AUTO_TEST_SUITE_END()
