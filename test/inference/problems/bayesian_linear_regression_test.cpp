// The Bayesian-linear-regression problem: its model's parameters are the regression weights (loss
// and gradient against the closed forms in Φ), its posterior solves the normal equations of the
// model's own loss (AD gradient and exact Hessian), its log evidence equals the N-dimensional
// Gaussian marginal density of y computed directly, and its mean-field optimum minimises the KL
// to the exact posterior.
#include <cmath>
#include <numbers>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/problems.hpp>
#include <nn/curvature/hessian.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(bayesian_linear_regression_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

namespace {

// KL(N(m, diag(1/s)) ‖ N(μ, Λ⁻¹)) in closed form.
double mean_field_kl(const VectorXd& m, const VectorXd& s, const VectorXd& mu,
                     const MatrixXd& lambda) {
  const Eigen::LLT<MatrixXd> llt(lambda);
  const double log_det_lambda = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  const VectorXd d = m - mu;
  return 0.5 * ((lambda.diagonal().array() / s.array()).sum() + d.dot(lambda * d) -
                static_cast<double>(m.size()) - log_det_lambda + s.array().log().sum());
}

}  // namespace

BOOST_AUTO_TEST_CASE(model_parameters_are_the_regression_weights) {
  const auto p =
      vi::problems::make_bayesian_linear_regression({.examples = 25, .inputs = 2, .seed = 3});
  BOOST_TEST(p.model.num_params() == 3);
  BOOST_TEST(p.model.layout().describe(0).find("dense0.weight") != std::string::npos);
  BOOST_TEST(p.model.layout().describe(2).find("dense0.bias") != std::string::npos);
  const double tau = p.noise_precision;
  vi::Rng rng(11);
  const VectorXd theta = vi::standard_normal(rng, 3);
  const VectorXd r = p.targets - p.design * theta;
  const double n = static_cast<double>(p.design.rows());
  const double loss =
      0.5 * tau * r.squaredNorm() + 0.5 * n * std::log(2.0 * std::numbers::pi / tau);
  VectorXd grad;
  const double value = ngvi::ad::value_and_gradient(
      [&](const auto& th) { return p.model.total_loss(th); }, theta, grad);
  NGVI_CHECK_REPORT(
      compare(value, loss, tol::closed_form, "Σᵢℓᵢ(θ) vs τ/2‖y − Φθ‖² + N/2 log(2π/τ)"));
  NGVI_CHECK_REPORT(compare(grad, VectorXd(-tau * p.design.transpose() * r), tol::closed_form,
                            "∇Σᵢℓᵢ vs τΦᵀ(Φθ − y)"));
}

BOOST_AUTO_TEST_CASE(posterior_solves_the_models_normal_equations) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double delta = p.prior_precision;
  VectorXd grad;
  const MatrixXd h = nn::exact_hessian(p.model, p.posterior_mean, {}, nullptr, &grad);
  // ∇(Σℓᵢ + δ/2‖θ‖²) = 0 at μ; the scale of the terms that cancel is ‖τΦᵀy‖.
  const double scale = (p.noise_precision * p.design.transpose() * p.targets).norm();
  NGVI_CHECK_REPORT(compare(VectorXd((grad + delta * p.posterior_mean) / scale),
                            VectorXd::Zero(grad.size()), tol::closed_form,
                            "posterior stationarity ∇Σℓᵢ(μ) + δμ (relative to ‖τΦᵀy‖)"));
  MatrixXd lambda = h;
  lambda.diagonal().array() += delta;
  NGVI_CHECK_REPORT(
      compare(lambda, p.posterior_precision, tol::closed_form, "exact Hessian + δI vs Λ"));
  NGVI_CHECK_REPORT(compare(MatrixXd(p.posterior_precision * p.posterior_covariance),
                            MatrixXd::Identity(lambda.rows(), lambda.cols()), tol::closed_form,
                            "Λ Λ⁻¹ = I"));
  const vi::FullGaussian q = p.posterior();
  NGVI_CHECK_REPORT(
      compare(q.covariance(), p.posterior_covariance, tol::closed_form, "posterior() covariance"));
}

BOOST_AUTO_TEST_CASE(log_evidence_is_the_marginal_density_of_y) {
  const auto p =
      vi::problems::make_bayesian_linear_regression({.examples = 30, .inputs = 4, .seed = 5});
  const Eigen::Index n = p.design.rows();
  // y ~ N(0, τ⁻¹I + δ⁻¹ΦΦᵀ), evaluated as an n-dimensional Gaussian density.
  MatrixXd k = p.design * p.design.transpose() / p.prior_precision;
  k.diagonal().array() += 1.0 / p.noise_precision;
  const Eigen::LLT<MatrixXd> llt(k);
  const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  const double direct = -0.5 * (p.targets.dot(llt.solve(p.targets)) + log_det +
                                static_cast<double>(n) * std::log(2.0 * std::numbers::pi));
  NGVI_CHECK_REPORT(compare(p.log_evidence, direct, tol::closed_form,
                            "log evidence vs log N(y; 0, τ⁻¹I + δ⁻¹ΦΦᵀ)"));
}

BOOST_AUTO_TEST_CASE(mean_field_optimum_minimises_the_kl_to_the_posterior) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  const vi::DiagonalGaussian q = p.mean_field_optimum();
  NGVI_CHECK_REPORT(
      compare(q.mean(), p.posterior_mean, tol::closed_form, "mean-field means = exact means"));
  NGVI_CHECK_REPORT(compare(q.precision(), VectorXd(p.posterior_precision.diagonal()),
                            tol::closed_form, "mean-field precisions = diag Λ"));
  const double best =
      mean_field_kl(q.mean(), q.precision(), p.posterior_mean, p.posterior_precision);
  for (Eigen::Index j = 0; j < q.dim(); ++j)
    for (const double h : {-1e-3, 1e-3}) {
      VectorXd m = q.mean(), s = q.precision();
      m(j) += h;
      BOOST_TEST(mean_field_kl(m, s, p.posterior_mean, p.posterior_precision) > best);
      m = q.mean();
      s(j) *= 1.0 + h;
      BOOST_TEST(mean_field_kl(m, s, p.posterior_mean, p.posterior_precision) > best);
    }
}

BOOST_AUTO_TEST_CASE(same_seed_same_problem_and_bad_options_throw) {
  const auto a = vi::problems::make_bayesian_linear_regression({.seed = 9});
  const auto b = vi::problems::make_bayesian_linear_regression({.seed = 9});
  const auto c = vi::problems::make_bayesian_linear_regression({.seed = 10});
  BOOST_TEST((a.design == b.design && a.targets == b.targets));
  BOOST_TEST(!(a.targets == c.targets));
  BOOST_CHECK_THROW(vi::problems::make_bayesian_linear_regression({.examples = 0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vi::problems::make_bayesian_linear_regression({.noise_precision = -1.0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vi::problems::make_bayesian_linear_regression({.prior_precision = 0.0}),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
