// IVON: the reparameterisation Hessian estimate ĥ = ĝ⊙ε/σ is unbiased for diag ∇²ℓ̄ (a quadratic,
// by averaging many draws against the known Hessian); on Bayesian linear regression IVON's
// iterates settle at the mean-field optimum (exact means, precisions diag Λ of the closed-form
// posterior). Threads, resume and bad options: method_contract_test.cpp.
#include <cmath>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <inference/ivon.hpp>
#include <nn/example_indices.hpp>
#include <nn/model_concept.hpp>

#include <support/conjugate_linear.hpp>
#include <support/method_checks.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(ivon_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

namespace {

// ℓᵢ(θ) = ½(θ − cᵢ)ᵀA(θ − cᵢ) with a non-diagonal SPD A: ∇²ℓ̄ = A everywhere.
MatrixXd quadratic_hessian() {
  MatrixXd A(3, 3);
  A << 2.0, 0.6, -0.4, 0.6, 1.5, 0.3, -0.4, 0.3, 0.8;
  return A;
}

auto quadratic_model() {
  return nn::make_model(
      [A = quadratic_hessian()](const auto& theta, Eigen::Index i) {
        using T = typename std::decay_t<decltype(theta)>::Scalar;
        T total(0.0);
        for (Eigen::Index j = 0; j < 3; ++j)
          for (Eigen::Index k = 0; k < 3; ++k)
            total +=
                0.5 * A(j, k) * (theta(j) - 0.1 * double(i + j)) * (theta(k) - 0.1 * double(i + k));
        return total;
      },
      5, 3);
}

}  // namespace

BOOST_AUTO_TEST_CASE(hessian_estimate_is_unbiased_for_a_quadratic) {
  const auto model = quadratic_model();
  vi::IvonOptions o;
  o.hess_init =
      0.3;  // σ = 1/√(λ(h₀ + δ)) far from A's scale, so unbiasedness is not an accident of σ
  o.mc_samples = 1;
  vi::Rng rng(11);
  const vi::Ivon<decltype(model)> ivon(model, o, rng);
  const std::vector<Eigen::Index> batch{0, 2, 3};
  vi::Counters c;
  constexpr int draws = 20000;
  VectorXd sum = VectorXd::Zero(3), sum_sq = VectorXd::Zero(3);
  for (int k = 0; k < draws; ++k) {
    const VectorXd h = ivon.estimate(batch, rng, c).hessian;
    sum += h;
    sum_sq += h.cwiseAbs2();
  }
  const VectorXd mean = sum / draws;
  const VectorXd se = ((sum_sq / draws - mean.cwiseAbs2()) / (draws - 1)).cwiseSqrt();
  const VectorXd exact = quadratic_hessian().diagonal();
  for (Eigen::Index j = 0; j < 3; ++j) NGVI_CHECK_MC(mean(j), exact(j), se(j));
  // The estimator has real spread (so the check above is not vacuous).
  BOOST_TEST((se.array() > 1e-3).all());
}

BOOST_AUTO_TEST_CASE(settles_at_the_mean_field_optimum_of_linear_regression) {
  const auto f = ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 5);
  const auto model = f.model();
  vi::IvonOptions o;
  o.prior_precision = f.delta;
  o.loop.minibatch = 0;  // full batch: the only noise is θ ~ q
  o.loop.epochs = 1;     // iterations are driven step by step below
  o.beta2 = 0.99;
  o.mc_samples = 16;
  o.hess_init = 1.0;
  o.learning_rate.initial = 0.2;
  vi::Rng rng(3);
  vi::Ivon<decltype(model)> ivon(model, o, rng);
  const std::vector<Eigen::Index> all = nn::all_examples(40);
  vi::Counters c;
  constexpr int steps = 1200, averaged = 600;
  VectorXd mean_sum = VectorXd::Zero(4), precision_sum = VectorXd::Zero(4);
  for (int t = 1; t <= steps; ++t) {
    ivon.step(ngvi::test::step_on(all, t), rng, c);
    if (t > steps - averaged) {
      const vi::DiagonalGaussian q = ivon.posterior();
      mean_sum += q.mean();
      precision_sum += q.precision();
    }
  }
  // Fixed point: λ(h + δ₀/λ) = τ diag(ΦᵀΦ) + δ₀ = diag Λ, and m = μ.
  const VectorXd diag_precision = f.precision().diagonal();
  NGVI_CHECK_REPORT(compare(VectorXd(precision_sum / averaged), diag_precision,
                            tol::stochastic_fixed_point, "averaged IVON precision vs diag Λ"));
  const VectorXd standardised =
      (mean_sum / averaged - f.mean()).cwiseProduct(diag_precision.cwiseSqrt());
  NGVI_CHECK_REPORT(compare(standardised, VectorXd::Zero(4), tol::stochastic_fixed_point,
                            "averaged IVON mean − μ, in posterior standard deviations"));
}

BOOST_AUTO_TEST_SUITE_END()
