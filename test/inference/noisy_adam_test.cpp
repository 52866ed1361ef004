// Noisy Adam (Zhang et al. 2018, Alg. 1) on Bayesian linear regression, against fixed points
// computed independently in the test:
//  - sampled (true) Fisher: f̂ has expectation τ diag(ΦᵀΦ)/N whatever w is, so f → that and the
//    precision (N/λ)(f + γ) → τ diag(ΦᵀΦ) + δ = diag Λ, the mean-field optimum; μ → the exact mean;
//  - empirical Fisher: E_q[(1/N)Σᵢ gᵢⱼ²] = (τ²/N) Σᵢ φᵢⱼ² ((φᵢᵀμ − yᵢ)² + Σₖ φᵢₖ² sₖ) with
//    sₖ = (λ/N)/(fₖ + γ): f solves this fixed-point equation (iterated to convergence below),
//    which is NOT diag Λ — the residuals enter — while μ is still the exact mean.
// Threads, resume and bad options: method_contract_test.cpp.
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

// Two iterations of Algorithm 1 (empirical Fisher, one sample, the full batch as the minibatch)
// against a transcription of the algorithm's lines, with the same draws: w ~ N(μ, (λ/N)/(f + γ)),
// v = −ĝ(w) − γw, m ← β₁m + (1−β₁)v, f ← β₂f + (1−β₂)·mean gᵢ², μ ← μ + α·m/(1−β₁ᵏ)/√(f + γ) with
// f NOT bias-corrected, and q's precision (N/λ)(f + γ); once from Algorithm 1's f₀ = 0 and once
// from the tool's f₀ = 1 (app/methods/method_table.hpp). λ = 0.5 so that γ = λδ/N is told apart
// from δ/N. The transcription's gradient is the linear model's closed form −τ(yᵢ − φᵢᵀw)φᵢ.
BOOST_AUTO_TEST_CASE(two_steps_match_algorithm_1_line_by_line) {
  const auto f = ngvi::test::make_conjugate_linear(12, 2, 4.0, 2.0, 3);
  const auto model = f.model();
  const MatrixXd Phi = f.Phi();
  const VectorXd y = f.Y.col(0);
  const double n = 12.0;
  const std::vector<Eigen::Index> batch = nn::all_examples(model.num_examples());
  for (const double f0 : {0.0, 1.0}) {
    BOOST_TEST_CONTEXT("f0 = " << f0) {
      vi::NoisyAdamOptions o;
      o.prior_precision = f.delta;
      o.kl_weight = 0.5;
      o.fisher = vi::NoisyAdamFisher::empirical_fisher;
      o.fisher_init = f0;
      o.learning_rate = {0.03};
      o.beta1 = 0.8;
      o.beta2 = 0.9;
      vi::Rng rng(31);
      vi::NoisyAdam<decltype(model)> method(model, o, rng);
      // The transcription, drawing from a copy of the generator in the method's order.
      vi::Rng r(31);
      VectorXd mu = vi::initial_mean(model, r);
      BOOST_TEST(mu.cwiseAbs().maxCoeff() > 0.0);  // a drawn start, not zeros
      const double gamma = o.kl_weight * f.delta / n;
      VectorXd m = VectorXd::Zero(mu.size()), fisher = VectorXd::Constant(mu.size(), f0);
      vi::Counters c;
      for (int k = 1; k <= 2; ++k) {
        const ArrayXd sd = (o.kl_weight / n / (fisher.array() + gamma)).sqrt();
        const VectorXd w = mu + (sd * vi::standard_normal(r, mu.size()).array()).matrix();
        const VectorXd residual = y - Phi * w;
        const MatrixXd G = (-f.tau * residual).asDiagonal() * Phi;  // row i = ∇ℓᵢ(w)
        const VectorXd v = -G.colwise().mean().transpose() - gamma * w;
        m = o.beta1 * m + (1.0 - o.beta1) * v;
        fisher = o.beta2 * fisher + (1.0 - o.beta2) * G.colwise().squaredNorm().transpose() / n;
        const VectorXd m_tilde = m / (1.0 - std::pow(o.beta1, k));
        mu = mu + 0.03 * (m_tilde.array() / (fisher.array() + gamma).sqrt()).matrix();
        method.step(ngvi::test::step_on(batch, k), rng, c);
        NGVI_CHECK_REPORT(compare(method.posterior().mean(), mu, tol::exact_update,
                                  "noisy-Adam mean after step " + std::to_string(k)));
        NGVI_CHECK_REPORT(compare(method.fisher_estimate(), fisher, tol::exact_update,
                                  "noisy-Adam f after step " + std::to_string(k)));
        NGVI_CHECK_REPORT(compare(method.posterior().precision(),
                                  VectorXd((n / o.kl_weight) * (fisher.array() + gamma)),
                                  tol::exact_update, "noisy-Adam precision (N/λ)(f + γ)"));
      }
    }
  }
}

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

BOOST_AUTO_TEST_SUITE_END()
