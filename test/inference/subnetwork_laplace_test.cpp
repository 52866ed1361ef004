// The subnetwork Laplace approximation against Bayesian linear regression on the last hidden
// layer's features: with the earlier layers fixed, a Gaussian network is linear in its last
// layer, so its last-layer posterior is exact — the precision against τΦᵀΦ + δI, the GLM
// predictive against φᵀΛ⁻¹φ + 1/τ, the evidence against log N(y; 0, τ⁻¹I + δ⁻¹ΦΦᵀ) (the
// data-space form of support/conjugate_linear.hpp, Φ computed here from θ's blocks), also at
// another (δ, τ) by rescaling; the approximation as a distribution over all of θ
// (SubnetworkGaussian) against the BLR covariance and glm_regression_predictive; MacKay's
// optimum of (δ, τ) against finite differences of the evidence; S = every parameter against
// laplace()'s full GGN Laplace and glm_regression_predictive; chosen blocks against the S block of
// the full GGN and exact Hessian; bad input.
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <autodiff/verify/finite_diff.hpp>
#include <inference/subnetwork_laplace.hpp>

#include <support/check_bitwise.hpp>
#include <support/conjugate_linear.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(subnetwork_laplace_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::test::check_error_mentions;
using ngvi::test::ConjugateLinear;
using ngvi::test::LinearModel;

namespace {

constexpr double tau = 4.0, delta = 0.5;
constexpr Eigen::Index hidden = 4;

MatrixXd draws(std::uint64_t seed, Eigen::Index rows, Eigen::Index cols) {
  vi::Rng rng(seed);
  return vi::standard_normal(rng, rows, cols);
}

// max |a − b| / max |b|.
double relative_difference(const MatrixXd& a, const MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

void check_close(const MatrixXd& a, const MatrixXd& b, const std::string& what) {
  const double r = relative_difference(a, b);
  BOOST_TEST_MESSAGE(what << ": max relative difference " << r);
  BOOST_TEST(r <= 1e-10, what << ": max relative difference " << r);
}
void check_close(double a, double b, const std::string& what) {
  check_close(MatrixXd::Constant(1, 1, a), MatrixXd::Constant(1, 1, b), what);
}

nn::Sequential network() {
  return nn::Sequential{nn::Dense(2, hidden), nn::Tanh{}, nn::Dense(hidden, 1)};
}

struct Fixture {
  MatrixXd X = draws(3, 30, 2);
  MatrixXd Y;
  VectorXd theta;
  Fixture() {
    std::mt19937_64 rng(5);
    network().init(theta, rng);
    Y = (X.col(0).array().sin() + 0.3 * X.col(1).array()).matrix();
  }
  // φ(x) = tanh(W₀x + b₀) for each row of Xs, from θ's blocks "dense0.weight" (hidden×2, row
  // major) and "dense0.bias".
  MatrixXd features(const MatrixXd& Xs) const {
    const MatrixXd W0 = theta.head(2 * hidden).reshaped(2, hidden);  // W₀ᵀ
    const VectorXd b0 = theta.segment(2 * hidden, hidden);
    return ((Xs * W0).rowwise() + b0.transpose()).array().tanh().matrix();
  }
  ConjugateLinear blr(double t, double d) const {
    ConjugateLinear c;
    c.X = features(X);
    c.Y = Y;
    c.tau = t;
    c.delta = d;
    return c;
  }
  LinearModel model(const MatrixXd& Xs, const MatrixXd& Ys) const {
    return LinearModel(network(), nn::GaussianFixedNoise(tau), nn::Dataset{Xs, Ys});
  }
  // θ with the last layer [w | b] set to theta_s.
  VectorXd with_last_layer(const VectorXd& theta_s) const {
    VectorXd t = theta;
    t.tail(hidden + 1) = theta_s;
    return t;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(last_layer_is_bayesian_linear_regression_on_the_features) {
  const Fixture fx;
  const ConjugateLinear c = fx.blr(tau, delta);
  const LinearModel model = fx.model(fx.X, fx.Y);
  const VectorXd theta = fx.with_last_layer(c.mean());
  const MatrixXd Xt = draws(7, 8, 2) * 2.0;
  const LinearModel test = fx.model(Xt, MatrixXd::Zero(8, 1));
  const MatrixXd phi_t = ngvi::test::design_of(fx.features(Xt));
  const MatrixXd Sigma = c.covariance();
  for (const auto curvature : {vi::LaplaceCurvature::ggn, vi::LaplaceCurvature::exact_hessian}) {
    const std::string name = vi::to_string(curvature);
    const vi::SubnetworkLaplace la =
        vi::last_layer_laplace(model, theta, {.curvature = curvature, .prior_precision = delta});
    std::vector<Eigen::Index> last(hidden + 1);
    std::iota(last.begin(), last.end(), Eigen::Index{3 * hidden});
    BOOST_TEST(la.indices == last);
    check_close(la.posterior.precision(), c.precision(), name + ": Λ_S vs τΦᵀΦ + δI");
    check_close(la.log_marginal_likelihood, c.log_evidence(), name + ": evidence vs BLR evidence");
    BOOST_TEST(la.gradient_norm <= 1e-10 * c.precision().norm());
    const vi::RegressionPredictive p =
        vi::subnetwork_glm_predictive(test, la, nn::Standardizer::identity(1));
    const VectorXd var = (phi_t * Sigma * phi_t.transpose()).diagonal().array() + 1.0 / tau;
    check_close(p.variance, var, name + ": GLM variance vs φᵀΛ⁻¹φ + 1/τ");
    check_close(p.mean, phi_t * c.mean(), name + ": GLM mean vs φᵀμ");
  }
}

BOOST_AUTO_TEST_CASE(evidence_at_another_prior_and_noise_precision) {
  // θ*_S = the BLR mean at (δ₁, τ₁); the approximation is formed at (δ, τ) and rescaled.
  const Fixture fx;
  const double delta1 = 2.0, tau1 = 9.0;
  const ConjugateLinear c1 = fx.blr(tau1, delta1);
  const vi::SubnetworkLaplace la =
      vi::last_layer_laplace(fx.model(fx.X, fx.Y), fx.with_last_layer(c1.mean()),
                             {.curvature = vi::LaplaceCurvature::ggn, .prior_precision = delta});
  check_close(vi::log_marginal_likelihood(la, delta1, tau1), c1.log_evidence(),
              "evidence at (δ₁, τ₁) vs BLR evidence");
  check_close(vi::log_marginal_likelihood(la, delta), la.log_marginal_likelihood,
              "evidence at the fitted δ");
  const vi::SubnetworkLaplace at = vi::at_hyperparameters(la, delta1, tau1);
  check_close(at.posterior.precision(), c1.precision(), "Λ_S at (δ₁, τ₁) vs τ₁ΦᵀΦ + δ₁I");
  check_close(at.log_marginal_likelihood, c1.log_evidence(), "at_hyperparameters' evidence");
}

BOOST_AUTO_TEST_CASE(posterior_over_every_parameter) {
  // θ_S ~ N(μ, Σ) of the BLR on the features, the first layer at θ*: its marginal variances and
  // the generic GLM predictive (through its P×P covariance) against the closed form and
  // subnetwork_glm_predictive; a draw moves θ_S only.
  const Fixture fx;
  const ConjugateLinear c = fx.blr(tau, delta);
  const VectorXd theta = fx.with_last_layer(c.mean());
  const vi::SubnetworkLaplace la =
      vi::last_layer_laplace(fx.model(fx.X, fx.Y), theta,
                             {.curvature = vi::LaplaceCurvature::ggn, .prior_precision = delta});
  const vi::SubnetworkGaussian q = vi::subnetwork_gaussian(la);
  BOOST_TEST(q.dim() == theta.size());
  check_close(q.mean(), theta, "mean vs θ*");
  VectorXd variances = VectorXd::Zero(theta.size());
  variances.tail(hidden + 1) = c.covariance().diagonal();
  check_close(q.marginal_variances(), variances, "marginal variances vs BLR's, 0 off S");
  const LinearModel test = fx.model(draws(13, 6, 2), MatrixXd::Zero(6, 1));
  const nn::Standardizer identity = nn::Standardizer::identity(1);
  check_close(vi::glm_regression_predictive(test, q, identity).variance,
              vi::subnetwork_glm_predictive(test, la, identity).variance,
              "generic GLM variance vs subnetwork_glm_predictive's");
  vi::Rng rng(17);
  const VectorXd draw = q.sample(rng);
  BOOST_TEST((draw.head(3 * hidden) - theta.head(3 * hidden)).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST((draw.tail(hidden + 1) - theta.tail(hidden + 1)).cwiseAbs().minCoeff() > 0.0);
  BOOST_TEST(q.entropy() == -std::numeric_limits<double>::infinity());
}

BOOST_AUTO_TEST_CASE(mackay_optimum_is_stationary) {
  // At θ* fitted at (δ, τ) = (0.5, 4), MacKay's fixed point of the evidence over θ_S: the
  // evidence's gradient in (log δ, log τ) by finite differences vanishes there (to the FD
  // error), and the optimum beats the fitted hyperparameters.
  const Fixture fx;
  const ConjugateLinear c = fx.blr(tau, delta);
  const vi::SubnetworkLaplace la =
      vi::last_layer_laplace(fx.model(fx.X, fx.Y), fx.with_last_layer(c.mean()),
                             {.curvature = vi::LaplaceCurvature::ggn, .prior_precision = delta});
  const vi::SubnetworkEvidenceOptimum opt = vi::optimize_subnetwork_evidence(la);
  BOOST_TEST_MESSAGE("δ* " << opt.prior_precision << ", τ* " << opt.noise_precision << " in "
                           << opt.iterations << " iterations");
  const auto evidence = [&](const VectorXd& log_h) {
    return vi::log_marginal_likelihood(la, std::exp(log_h(0)), std::exp(log_h(1)));
  };
  const VectorXd at =
      (Eigen::Vector2d() << std::log(opt.prior_precision), std::log(opt.noise_precision))
          .finished();
  VectorXd error;
  const VectorXd g = ngvi::ad::verify::finite_diff_gradient(evidence, at, {}, &error);
  BOOST_TEST_MESSAGE("FD gradient " << g.transpose() << ", FD error " << error.transpose());
  BOOST_TEST(g.cwiseAbs().maxCoeff() <= 1e-8);
  check_close(opt.log_marginal_likelihood, evidence(at), "the optimum's evidence");
  BOOST_TEST(opt.log_marginal_likelihood > la.log_marginal_likelihood);
}

BOOST_AUTO_TEST_CASE(same_bits_for_any_thread_count) {
  // A check, not a reference: the sum over examples is blocked in a fixed order, so 1 and 2
  // threads (one example per task) give the same bits.
  const Fixture fx;
  const LinearModel model = fx.model(fx.X, fx.Y);
  const auto fit = [&](int threads) {
    return vi::last_layer_laplace(model, fx.theta,
                                  {.prior_precision = delta, .threads = threads, .grain = 1});
  };
  const vi::SubnetworkLaplace one = fit(1), two = fit(2);
  NGVI_CHECK_BITWISE(one.curvature, two.curvature, "H_SS");
  NGVI_CHECK_BITWISE(one.log_marginal_likelihood, two.log_marginal_likelihood, "evidence");
}

BOOST_AUTO_TEST_CASE(every_parameter_is_the_full_laplace) {
  const Fixture fx;
  const LinearModel model = fx.model(fx.X, fx.Y);
  std::vector<Eigen::Index> all(static_cast<std::size_t>(model.num_params()));
  std::iota(all.begin(), all.end(), Eigen::Index{0});
  const vi::SubnetworkLaplace la = vi::subnetwork_laplace(
      model, fx.theta, all, {.curvature = vi::LaplaceCurvature::ggn, .prior_precision = delta});
  vi::LaplaceOptions o;
  o.prior_precision = delta;
  const auto full = vi::laplace(model, fx.theta, o);
  check_close(la.posterior.precision(), full.posterior.precision(), "Λ vs laplace()'s GGN Λ");
  check_close(la.log_marginal_likelihood, full.log_marginal_likelihood, "evidence vs laplace()'s");
  check_close(la.gradient_norm, full.gradient_norm, "gradient norm vs laplace()'s");
  const LinearModel test = fx.model(draws(11, 6, 2), MatrixXd::Zero(6, 1));
  const nn::Standardizer identity = nn::Standardizer::identity(1);
  check_close(vi::subnetwork_glm_predictive(test, la, identity).variance,
              vi::glm_regression_predictive(test, full.posterior, identity).variance,
              "GLM variance vs glm_regression_predictive's");
  // Named blocks select the same indices as the last layer.
  BOOST_TEST(vi::subnetwork_indices(model, {"dense1.weight", "dense1.bias"}) ==
             vi::last_layer_indices(model));
}

BOOST_AUTO_TEST_CASE(chosen_blocks_are_the_full_curvature_restricted) {
  // H_SS from the S columns of the Jacobians against the S rows and columns of the full GGN and
  // exact Hessian, on blocks from both layers of the nonlinear network at a θ that is no MAP (a
  // large δ keeps the exact Hessian's Λ_S positive definite there; H_SS does not depend on δ).
  const Fixture fx;
  const LinearModel model = fx.model(fx.X, fx.Y);
  const std::vector<Eigen::Index> s =
      vi::subnetwork_indices(model, {"dense1.weight", "dense0.bias"});
  BOOST_TEST(s.size() == std::size_t{2 * hidden});
  const MatrixXd ggn = nn::ggn(model, fx.theta);
  const MatrixXd hessian = nn::exact_hessian(model, fx.theta);
  check_close(
      vi::subnetwork_laplace(model, fx.theta, s,
                             {.curvature = vi::LaplaceCurvature::ggn, .prior_precision = delta})
          .curvature,
      ggn(s, s), "H_SS vs the full GGN's S block");
  check_close(vi::subnetwork_laplace(
                  model, fx.theta, s,
                  {.curvature = vi::LaplaceCurvature::exact_hessian, .prior_precision = 1e3})
                  .curvature,
              hessian(s, s), "H_SS vs the full exact Hessian's S block");
}

BOOST_AUTO_TEST_CASE(bad_input) {
  const Fixture fx;
  const LinearModel model = fx.model(fx.X, fx.Y);
  check_error_mentions([&] { vi::subnetwork_laplace(model, fx.theta, {}); }, "S is empty");
  check_error_mentions(
      [&] {
        vi::subnetwork_laplace(model, fx.theta, {0, model.num_params()});
      },
      "index 17 of the subnetwork S is outside 0..16");
  check_error_mentions([&] { vi::subnetwork_laplace(model, fx.theta, {2, 2}); }, "appears twice");
  check_error_mentions([&] { vi::subnetwork_indices(model, {"dense2.weight"}); },
                       "no parameter block \"dense2.weight\"");
  const LinearModel squashed(
      nn::Sequential{nn::Dense(2, hidden), nn::Tanh{}, nn::Dense(hidden, 1), nn::Tanh{}},
      nn::GaussianFixedNoise(tau), nn::Dataset{fx.X, fx.Y});
  check_error_mentions([&] { vi::last_layer_laplace(squashed, fx.theta); },
                       "does not end with a dense layer");
  check_error_mentions(
      [&] {
        vi::last_layer_laplace(model, fx.theta,
                               {.curvature = vi::LaplaceCurvature::kfac, .prior_precision = delta});
      },
      "kfac");
}

BOOST_AUTO_TEST_SUITE_END()
