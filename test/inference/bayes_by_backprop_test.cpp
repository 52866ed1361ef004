// Bayes-by-backprop: the reparameterisation gradient is unbiased for the gradient of the
// closed-form objective of Bayesian linear regression (Monte-Carlo check), BBB settles at the
// mean-field optimum there (exact means, variances 1/diag Λ); softplus and its inverse. Threads,
// resume and bad options: method_contract_test.cpp.
#include <cmath>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/bayes_by_backprop.hpp>
#include <inference/fit.hpp>
#include <nn/example_indices.hpp>

#include <support/conjugate_linear.hpp>
#include <support/method_checks.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(bayes_by_backprop_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::ArrayXd;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

BOOST_AUTO_TEST_CASE(softplus_and_its_inverse) {
  for (double s : {1e-6, 0.05, 1.0, 30.0})
    NGVI_CHECK_REPORT(compare(vi::softplus(vi::inverse_softplus(s)), s, tol::closed_form,
                              "softplus(softplus⁻¹(s))"));
  for (double r : {-40.0, -3.0, 0.0, 2.0, 50.0}) {
    NGVI_CHECK_REPORT(
        compare(vi::softplus(r), std::log1p(std::exp(r)), tol::closed_form, "softplus"));
    NGVI_CHECK_REPORT(
        compare(vi::sigmoid(r), 1.0 / (1.0 + std::exp(-r)), tol::closed_form, "sigmoid"));
  }
}

BOOST_AUTO_TEST_CASE(reparameterisation_gradient_is_unbiased_for_the_closed_form_objective) {
  // Linear regression: E_q[Σᵢℓᵢ(θ)] = Σᵢℓᵢ(μ) + ½τ Σⱼ σⱼ²(ΦᵀΦ)ⱼⱼ, so with λ KL(q‖p₀) added
  //   ∂F/∂μ = τΦᵀ(Φμ − y) + λδμ,   ∂F/∂ρ = (τ(ΦᵀΦ)ⱼⱼσⱼ + λ(δσⱼ − 1/σⱼ)) sigmoid(ρⱼ).
  const auto f = ngvi::test::make_conjugate_linear(20, 2, 4.0, 2.0, 4);
  const auto model = f.model();
  vi::BayesByBackpropOptions o;
  o.prior_precision = f.delta;
  o.kl_weight = 0.7;
  o.initial_stddev = 0.3;
  vi::Rng rng(5);
  const vi::BayesByBackprop<decltype(model)> bbb(model, o, rng);
  const VectorXd mu = bbb.posterior().mean();
  const ArrayXd rho = bbb.rho().array();
  const ArrayXd sigma = rho.unaryExpr([](double r) { return vi::softplus(r); });
  VectorXd exact(6);
  exact.head(3) =
      f.tau * f.Phi().transpose() * (f.Phi() * mu - f.Y.col(0)) + o.kl_weight * f.delta * mu;
  const ArrayXd gram_diag = (f.Phi().transpose() * f.Phi()).diagonal().array();
  exact.tail(3) = ((f.tau * gram_diag * sigma + o.kl_weight * (f.delta * sigma - sigma.inverse())) *
                   rho.unaryExpr([](double r) {
                     return vi::sigmoid(r);
                   })).matrix();

  const std::vector<Eigen::Index> batch = nn::all_examples(20);
  vi::Counters c;
  constexpr int draws = 20000;
  VectorXd sum = VectorXd::Zero(6), sum_sq = VectorXd::Zero(6);
  for (int k = 0; k < draws; ++k) {
    const VectorXd g = bbb.gradient(batch, 20, rng, c);
    sum += g;
    sum_sq += g.cwiseAbs2();
  }
  const VectorXd mean = sum / draws;
  const VectorXd se = ((sum_sq / draws - mean.cwiseAbs2()) / (draws - 1)).cwiseSqrt();
  for (Eigen::Index j = 0; j < 6; ++j) NGVI_CHECK_MC(mean(j), exact(j), se(j));
  BOOST_TEST((se.array() > 0.0).all());
}

BOOST_AUTO_TEST_CASE(settles_at_the_mean_field_optimum_of_linear_regression) {
  const auto f = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 5);
  const auto model = f.model();
  vi::BayesByBackpropOptions o;
  o.prior_precision = f.delta;
  o.mc_samples = 8;
  o.initial_stddev = 0.1;
  o.learning_rate = {0.02, 0.002, 1.0, 0.0};
  vi::Rng rng(3);
  vi::BayesByBackprop<decltype(model)> bbb(model, o, rng);
  const std::vector<Eigen::Index> batch = nn::all_examples(40);
  vi::Counters c;
  constexpr int steps = 6000, averaged = 2000;
  VectorXd mean_sum = VectorXd::Zero(4), variance_sum = VectorXd::Zero(4);
  for (int t = 1; t <= steps; ++t) {
    bbb.step(ngvi::test::step_on(batch, t), rng, c);
    if (t > steps - averaged) {
      const vi::DiagonalGaussian q = bbb.posterior();
      mean_sum += q.mean();
      variance_sum += q.marginal_variances();
    }
  }
  // The mean-field optimum of a Gaussian posterior: means μ, variances 1/Λⱼⱼ.
  const VectorXd diag_precision = f.precision().diagonal();
  NGVI_CHECK_REPORT(compare(VectorXd(variance_sum / averaged),
                            VectorXd(diag_precision.cwiseInverse()), tol::stochastic_fixed_point,
                            "averaged BBB variances vs 1/diag Λ"));
  const VectorXd standardised =
      (mean_sum / averaged - f.mean()).cwiseProduct(diag_precision.cwiseSqrt());
  NGVI_CHECK_REPORT(compare(standardised, VectorXd::Zero(4), tol::stochastic_fixed_point,
                            "averaged BBB mean − μ, in posterior standard deviations"));
}

BOOST_AUTO_TEST_SUITE_END()
