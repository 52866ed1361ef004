// Noisy K-FAC (Zhang et al. 2018, Alg. 2). With one dense layer, one output and no hidden units
// (Bayesian linear regression) the Kronecker structure is exact: Ā = ΦᵀΦ/N (inputs do not depend on
// the weights), S̄ = τ (expected_fisher, or sampled_fisher on average), and (N/λ)(S̄ ⊗ Ā) = τΦᵀΦ is
// the exact Gauss-Newton matrix. The algorithm's fixed point is then, independently of its path,
//   Λ = (N/λ)(τ + √γ/π)(ΦᵀΦ/N + π√γ I),  π = √(tr(ΦᵀΦ/N)/(D+1) / τ),
//     = τΦᵀΦ + δI + (N/λ)√γ(πτ I + ΦᵀΦ/(Nπ))        (λ = 1: the exact precision + π-damping's cross
//     terms)
//   μ = (τΦᵀΦ + δI)⁻¹τΦᵀy                            (the exact posterior mean)
// With β = 1, expected_fisher and S = 0 the factors reach it in one step (checked to exact_update)
// and the mean converges geometrically with α = 1. With sampled targets and S = 1, S̄ averages to τ
// and μ to the exact mean (Monte Carlo). Also: an unsupported model is a clear error (threads,
// resume and bad options: method_contract_test.cpp).
#include <cmath>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/noisy_kfac.hpp>
#include <nn/dense.hpp>
#include <nn/example_indices.hpp>
#include <nn/likelihoods/gaussian_learned_noise.hpp>

#include <support/conjugate_linear.hpp>
#include <support/method_checks.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(noisy_kfac_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

BOOST_AUTO_TEST_CASE(linear_model_reaches_the_exact_kronecker_fixed_point) {
  const auto f = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 5);
  const auto model = f.model();
  const double n = 40.0, gamma = f.delta / n;
  vi::NoisyKfacOptions o;
  o.prior_precision = f.delta;
  o.s_factor = nn::KfacS::expected_fisher;
  o.beta = 1.0;
  o.mc_samples = 0;
  o.learning_rate.initial = 1.0;
  vi::Rng rng(2);
  vi::NoisyKfac<decltype(model)> method(model, o, rng);
  const std::vector<Eigen::Index> batch = nn::all_examples(40);
  vi::Counters c;
  method.step(ngvi::test::step_on(batch, 1), rng, c);

  const MatrixXd gram = f.Phi().transpose() * f.Phi();
  const double pi = std::sqrt((gram / n).trace() / 4.0 / f.tau);
  MatrixXd expected = n * (f.tau + std::sqrt(gamma) / pi) *
                      (gram / n + pi * std::sqrt(gamma) * MatrixXd::Identity(4, 4));
  const MatrixXd precision = method.posterior().precision();
  NGVI_CHECK_REPORT(compare(precision, expected, tol::exact_update,
                            "precision after one step vs the fixed point"));
  MatrixXd cross = std::sqrt(gamma) * (pi * f.tau * n * MatrixXd::Identity(4, 4) + gram / pi);
  NGVI_CHECK_REPORT(compare(MatrixXd(precision - cross), f.precision(), tol::closed_form,
                            "precision − π-damping cross terms vs τΦᵀΦ + δI"));
  NGVI_CHECK_REPORT(
      compare(method.activation_factor(0), MatrixXd(gram / n), tol::exact_update, "Ā = ΦᵀΦ/N"));
  NGVI_CHECK_REPORT(compare(method.gradient_factor(0)(0, 0), f.tau, tol::exact_update, "S̄ = τ"));

  for (int t = 2; t <= 80; ++t) method.step(ngvi::test::step_on(batch, t), rng, c);
  NGVI_CHECK_REPORT(
      compare(method.posterior().mean(), f.mean(), tol::iterative, "μ after 80 steps"));
}

BOOST_AUTO_TEST_CASE(sampled_targets_average_to_the_fixed_point) {
  const auto f = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 6);
  const auto model = f.model();
  vi::NoisyKfacOptions o;
  o.prior_precision = f.delta;
  o.beta = 0.05;
  o.learning_rate = {0.2, 0.002, 1.0, 0.0};
  vi::Rng rng(7);
  vi::NoisyKfac<decltype(model)> method(model, o, rng);
  const std::vector<Eigen::Index> batch = nn::all_examples(40);
  vi::Counters c;
  constexpr int steps = 2000, averaged = 1000;
  double s_sum = 0.0;
  VectorXd mean_sum = VectorXd::Zero(4);
  for (int t = 1; t <= steps; ++t) {
    method.step(ngvi::test::step_on(batch, t), rng, c);
    if (t > steps - averaged) {
      s_sum += method.gradient_factor(0)(0, 0);
      mean_sum += method.posterior().mean();
    }
  }
  NGVI_CHECK_REPORT(
      compare(s_sum / averaged, f.tau, tol::stochastic_fixed_point, "averaged S̄ vs τ"));
  const VectorXd standardised =
      (mean_sum / averaged - f.mean()).cwiseProduct(f.precision().diagonal().cwiseSqrt());
  NGVI_CHECK_REPORT(compare(standardised, VectorXd::Zero(4), tol::stochastic_fixed_point,
                            "averaged noisy-K-FAC mean − μ, in posterior standard deviations"));
}

BOOST_AUTO_TEST_CASE(a_model_other_than_biased_dense_layers_is_a_clear_error) {
  vi::NoisyKfacOptions o;
  o.loop.minibatch = 4;
  vi::Rng rng(1);
  nn::Dataset data{vi::standard_normal(rng, 10, 2), vi::standard_normal(rng, 10, 1)};
  const nn::Supervised learned_noise(nn::Sequential{nn::Dense(2, 1)}, nn::GaussianLearnedNoise(),
                                     std::move(data));
  ngvi::test::check_rejects(learned_noise, o, "dense layers");
  nn::Dataset same{vi::standard_normal(rng, 10, 2), vi::standard_normal(rng, 10, 1)};
  const nn::Supervised no_bias(nn::Sequential{nn::Dense(2, 1, nn::Bias::none)},
                               nn::GaussianFixedNoise(1.0), std::move(same));
  ngvi::test::check_rejects(no_bias, o, "has no bias");
}

BOOST_AUTO_TEST_SUITE_END()
