// The Gaussian VI optimum of a logistic GLM (app/study/logistic_vi_optimum.hpp) against another
// route: the ELBO itself, its expected loss by the exact-ELBO quadrature of the softplus
// (app/study/exact_elbo.hpp) and its KL in closed form, must be stationary there — its central
// finite differences in μ and in the covariance's Cholesky factor (mean field: its log sds)
// vanish. The one-dimensional moments are checked against a fine trapezoid rule.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <app/study/exact_elbo.hpp>
#include <app/study/logistic_vi_optimum.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <inference/problems/logistic_regression_2d.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(logistic_vi_optimum_test)

namespace study = ngvi::app::study;
namespace verify = ngvi::ad::verify;

namespace {
// Central differences with step 1e-4 of an ELBO of size ~20 computed to ~1e-11: the round-off
// (1e-11 / 1e-4) and the truncation (h² times third derivatives of order N) stay below 1e-5,
// while a μ off by 1e-6 gives a gradient of order N · 1e-6 · E[σ'] ≈ 1e-5 too.
constexpr verify::Tolerance stationary{0.0, 2e-5};
// A 24001-point trapezoid rule over z ∈ [−12, 12] against adaptive Gauss–Kronrod to 1e-12.
constexpr verify::Tolerance quadrature{1e-9, 1e-11};

struct Data {
  Eigen::MatrixXd phi;
  Eigen::VectorXd y;
  double delta;
};

Data problem_data(std::uint64_t seed) {
  ngvi::vi::problems::LogisticRegression2dOptions o;
  o.seed = seed;
  const auto p = ngvi::vi::problems::make_logistic_regression_2d(o);
  Data d{Eigen::MatrixXd(p.inputs.size(), 2), p.labels, p.prior_precision};
  d.phi << p.inputs, Eigen::VectorXd::Ones(p.inputs.size());
  return d;
}

// ELBO(μ, Σ) = −Σᵢ E_q[ℓᵢ] − KL(N(μ, Σ) ‖ N(0, δ⁻¹I)).
double elbo(const Data& d, const Eigen::VectorXd& mu, const Eigen::MatrixXd& sigma) {
  const double p = static_cast<double>(mu.size());
  const double log_det =
      2.0 * Eigen::MatrixXd(sigma.llt().matrixL()).diagonal().array().log().sum();
  const double kl = 0.5 * (d.delta * sigma.trace() + d.delta * mu.squaredNorm() - p -
                           p * std::log(d.delta) - log_det);
  return -study::logistic_glm_expected_nll(d.phi, d.y, mu, sigma) - kl;
}

// Central differences of f over the entries of x.
template <class F>
Eigen::VectorXd central_differences(F&& f, Eigen::VectorXd x, double h = 1e-4) {
  Eigen::VectorXd g(x.size());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    const double x0 = x(j);
    x(j) = x0 + h;
    const double up = f(x);
    x(j) = x0 - h;
    const double down = f(x);
    x(j) = x0;
    g(j) = (up - down) / (2.0 * h);
  }
  return g;
}

double trapezoid_expectation(double m, double s, bool slope) {
  const int n = 24000;
  const double a = -12.0, h = 24.0 / n;
  double sum = 0.0;
  for (int k = 0; k <= n; ++k) {
    const double z = a + h * k;
    const double g = 1.0 / (1.0 + std::exp(-(m + s * z)));
    const double w = (k == 0 || k == n ? 0.5 : 1.0) * std::exp(-0.5 * z * z);
    sum += w * (slope ? g * (1.0 - g) : g);
  }
  return sum * h / std::sqrt(2.0 * std::numbers::pi);
}
}  // namespace

BOOST_AUTO_TEST_CASE(moments_against_a_trapezoid_rule) {
  for (const auto& [m, s] :
       std::vector<std::pair<double, double>>{{0.3, 0.5}, {-2.0, 1.7}, {4.0, 0.2}}) {
    const study::LogisticMoments e = study::expected_logistic(m, s);
    NGVI_CHECK_REPORT(
        verify::compare(e.mean, trapezoid_expectation(m, s, false), quadrature, "E[σ(m + s z)]"));
    NGVI_CHECK_REPORT(
        verify::compare(e.slope, trapezoid_expectation(m, s, true), quadrature, "E[σ'(m + s z)]"));
  }
}

BOOST_AUTO_TEST_CASE(the_full_optimum_is_a_stationary_point_of_the_elbo) {
  for (const std::uint64_t seed : {1u, 2u}) {
    const Data d = problem_data(seed);
    const study::LogisticOptimum q = study::logistic_vi_optimum(d.phi, d.y, d.delta, false);
    const Eigen::MatrixXd l = q.precision.inverse().llt().matrixL();
    // x = (μ₁, μ₂, L₁₁, L₂₁, L₂₂), Σ = LLᵀ.
    Eigen::VectorXd x(5);
    x << q.mean, l(0, 0), l(1, 0), l(1, 1);
    auto f = [&](const Eigen::VectorXd& v) {
      Eigen::Matrix2d lv;
      lv << v(2), 0.0, v(3), v(4);
      return elbo(d, v.head(2), lv * lv.transpose());
    };
    NGVI_CHECK_REPORT(verify::compare(central_differences(f, x), Eigen::VectorXd::Zero(5),
                                      stationary, "ELBO gradient at the full optimum"));
    // Away from it the gradient is not zero (the check can fail).
    x(0) += 0.05;
    BOOST_TEST(central_differences(f, x).norm() > 1e-2);
  }
}

BOOST_AUTO_TEST_CASE(the_mean_field_optimum_is_a_stationary_point_of_its_elbo) {
  const Data d = problem_data(3);
  const study::GaussianOptimum g = study::logistic_gaussian_optimum(d.phi, d.y, d.delta);
  // x = (μ₁, μ₂, log sd₁, log sd₂), Σ = diag(sd²).
  Eigen::VectorXd x(4);
  x << g.mean_field_mean, g.mean_field_sd.array().log().matrix();
  auto f = [&](const Eigen::VectorXd& v) {
    const Eigen::MatrixXd sigma = (2.0 * v.tail(2).array()).exp().matrix().asDiagonal();
    return elbo(d, v.head(2), sigma);
  };
  NGVI_CHECK_REPORT(verify::compare(central_differences(f, x), Eigen::VectorXd::Zero(4), stationary,
                                    "ELBO gradient at the mean-field optimum"));
  // The full optimum's ELBO is the larger (a wider family) and its covariance is correlated.
  BOOST_TEST(elbo(d, g.mean, g.covariance) >
             elbo(d, g.mean_field_mean, Eigen::MatrixXd(g.mean_field_sd.cwiseAbs2().asDiagonal())));
  BOOST_TEST(std::abs(g.covariance(0, 1)) > 0.0);
}

BOOST_AUTO_TEST_CASE(bad_input_is_named) {
  const Data d = problem_data(1);
  BOOST_CHECK_THROW(study::logistic_vi_optimum(d.phi, d.y.head(3), d.delta, false),
                    std::invalid_argument);
  BOOST_CHECK_THROW(study::logistic_vi_optimum(d.phi, d.y, 0.0, false), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
