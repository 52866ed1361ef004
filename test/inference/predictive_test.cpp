// The predictive: on a conjugate linear-Gaussian model with its exact posterior, the Monte-Carlo
// predictive mean, variance and log-likelihood against the closed forms within Monte-Carlo
// error, the GLM predictive equal to the closed forms (exact for a linear model), original-unit
// reporting against the standardised run; the classification predictive against averages of
// σ(φᵀθₛ) computed here from the same draws; and bad input.
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include <inference/posterior/full_gaussian.hpp>
#include <inference/predictive.hpp>
#include <nn/dense.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

#include <support/conjugate_linear.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(predictive_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::check_error_mentions;
using ngvi::test::ConjugateLinear;

namespace {

struct LinearCase {
  ConjugateLinear c = ngvi::test::make_conjugate_linear(30, 2, 4.0, 1.0, 7);
  MatrixXd Xs, Ys;  // 5 test inputs and targets
  LinearCase() {
    vi::Rng rng(11);
    Xs = 1.5 * vi::standard_normal(rng, 5, 2);
    Ys = vi::standard_normal(rng, 5, 1);
  }
  vi::FullGaussian posterior() const { return vi::FullGaussian(c.mean(), c.precision()); }
  // φ*ᵀμ and 1/τ + φ*ᵀΣφ* per test input.
  VectorXd exact_mean() const { return ngvi::test::design_of(Xs) * c.mean(); }
  VectorXd exact_variance() const {
    const MatrixXd P = ngvi::test::design_of(Xs);
    return (P * c.covariance()).cwiseProduct(P).rowwise().sum().array() + 1.0 / c.tau;
  }
  VectorXd exact_log_density() const {
    const VectorXd m = exact_mean(), v = exact_variance();
    return -0.5 * ((Ys.col(0) - m).array().square() / v.array() + v.array().log() +
                   std::log(2.0 * std::numbers::pi));
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(mc_regression_matches_the_exact_predictive) {
  const LinearCase lc;
  const auto test = lc.c.model_over(lc.Xs, lc.Ys);
  const vi::FullGaussian q = lc.posterior();
  vi::PredictiveOptions o;
  o.samples = 4000;
  vi::Rng rng(5);
  const vi::Rng start = rng;
  const vi::RegressionPredictive r =
      vi::mc_regression_predictive(test, q, nn::Standardizer::identity(1), rng, o);

  // The same draws, replayed: each example's likelihood values give the standard error of the
  // log-mean-exp (delta method: se(log p̂) = sd(pₛ)/(√S p̂)).
  vi::Rng replay = start;
  const MatrixXd P = ngvi::test::design_of(lc.Xs);
  MatrixXd lik(lc.Xs.rows(), o.samples), fs(lc.Xs.rows(), o.samples);
  for (int s = 0; s < o.samples; ++s) {
    const VectorXd f = P * q.sample(replay);
    fs.col(s) = f;
    lik.col(s) = (-0.5 * lc.c.tau * (lc.Ys.col(0) - f).array().square()).exp() *
                 std::sqrt(lc.c.tau / (2.0 * std::numbers::pi));
  }
  const VectorXd m = lc.exact_mean(), v = lc.exact_variance(), ld = lc.exact_log_density();
  const double S = o.samples;
  for (Eigen::Index i = 0; i < lc.Xs.rows(); ++i) {
    const double fvar = v(i) - 1.0 / lc.c.tau;  // Var[f], whose MC estimate carries the error
    NGVI_CHECK_MC(r.mean(i, 0), m(i), std::sqrt(fvar / S));
    NGVI_CHECK_MC(r.variance(i, 0), v(i), fvar * std::sqrt(2.0 / S));
    const double pbar = lik.row(i).mean();
    const double sd = std::sqrt((lik.row(i).array() - pbar).square().sum() / (S - 1.0));
    NGVI_CHECK_MC(r.log_likelihood(i), ld(i), sd / (std::sqrt(S) * pbar));
    NGVI_CHECK_REPORT(compare(r.log_likelihood(i), std::log(pbar), tol::closed_form,
                              "log-mean-exp vs log of the mean likelihood of the same draws"));
    // The moments, accumulated one draw at a time, against the two-pass moments of the same
    // draws (mean, then the variance about it with divisor S) plus the noise variance 1/τ.
    const double fbar = fs.row(i).mean();
    const double fvar_draws = (fs.row(i).array() - fbar).square().sum() / S;
    NGVI_CHECK_REPORT(compare(r.mean(i, 0), fbar, tol::closed_form,
                              "predictive mean vs the two-pass mean of the same draws"));
    NGVI_CHECK_REPORT(compare(r.variance(i, 0), fvar_draws + 1.0 / lc.c.tau, tol::closed_form,
                              "predictive variance vs the two-pass variance of the same draws"));
  }
  NGVI_CHECK_REPORT(compare(r.test_log_likelihood, r.log_likelihood.mean(), tol::closed_form,
                            "test log-likelihood = mean per-example value"));
  NGVI_CHECK_REPORT(compare(r.rmse, std::sqrt((lc.Ys.col(0) - r.mean.col(0)).squaredNorm() / 5.0),
                            tol::closed_form, "RMSE of the predictive mean"));
}

BOOST_AUTO_TEST_CASE(blocks_of_rows_give_each_row_its_own_predictive) {
  // More rows than one forward pass holds: every row's predictive (mean, variance,
  // log-likelihood) is the one of a test set of that row alone, from the same draws.
  const LinearCase lc;
  const Eigen::Index n = nn::rows_per_forward_pass + 37;
  vi::Rng data(3);
  const MatrixXd X = vi::standard_normal(data, n, 2), Y = vi::standard_normal(data, n, 1);
  const vi::FullGaussian q = lc.posterior();
  vi::PredictiveOptions o;
  o.samples = 7;
  vi::Rng rng(5);
  const vi::RegressionPredictive all =
      vi::mc_regression_predictive(lc.c.model_over(X, Y), q, nn::Standardizer::identity(1), rng, o);
  for (const Eigen::Index i :
       {Eigen::Index{0}, nn::rows_per_forward_pass - 1, nn::rows_per_forward_pass, n - 1}) {
    vi::Rng same(5);
    const vi::RegressionPredictive one = vi::mc_regression_predictive(
        lc.c.model_over(X.row(i), Y.row(i)), q, nn::Standardizer::identity(1), same, o);
    NGVI_CHECK_REPORT(compare(all.mean(i, 0), one.mean(0, 0), tol::closed_form, "mean"));
    NGVI_CHECK_REPORT(
        compare(all.variance(i, 0), one.variance(0, 0), tol::closed_form, "variance"));
    NGVI_CHECK_REPORT(
        compare(all.log_likelihood(i), one.log_likelihood(0), tol::closed_form, "log-likelihood"));
  }
}

BOOST_AUTO_TEST_CASE(glm_regression_is_exact_for_a_linear_model) {
  const LinearCase lc;
  const auto test = lc.c.model_over(lc.Xs, lc.Ys);
  const vi::RegressionPredictive r =
      vi::glm_regression_predictive(test, lc.posterior(), nn::Standardizer::identity(1));
  NGVI_CHECK_REPORT(compare(r.mean.col(0), lc.exact_mean(), tol::closed_form, "GLM mean"));
  NGVI_CHECK_REPORT(
      compare(r.variance.col(0), lc.exact_variance(), tol::closed_form, "GLM variance"));
  NGVI_CHECK_REPORT(
      compare(r.log_likelihood, lc.exact_log_density(), tol::closed_form, "GLM log density"));
}

BOOST_AUTO_TEST_CASE(original_units_undo_the_standardisation) {
  const LinearCase lc;
  const auto test = lc.c.model_over(lc.Xs, lc.Ys);
  const vi::FullGaussian q = lc.posterior();
  nn::Standardizer st;
  st.mean = Eigen::RowVectorXd::Constant(1, 22.5);
  st.scale = Eigen::RowVectorXd::Constant(1, 9.2);
  vi::PredictiveOptions o;
  o.samples = 50;
  vi::Rng a(3), b(3);
  const auto plain = vi::mc_regression_predictive(test, q, nn::Standardizer::identity(1), a, o);
  const auto orig = vi::mc_regression_predictive(test, q, st, b, o);
  NGVI_CHECK_REPORT(compare(orig.mean, (plain.mean.array() * 9.2 + 22.5).matrix(), tol::closed_form,
                            "mean in original units"));
  NGVI_CHECK_REPORT(compare(orig.variance, (plain.variance * 9.2 * 9.2).eval(), tol::closed_form,
                            "variance in original units"));
  NGVI_CHECK_REPORT(compare(orig.log_likelihood,
                            (plain.log_likelihood.array() - std::log(9.2)).matrix(),
                            tol::closed_form, "log density in original units"));
  NGVI_CHECK_REPORT(
      compare(orig.rmse, 9.2 * plain.rmse, tol::closed_form, "RMSE in original units"));
  const auto glm = vi::glm_regression_predictive(test, q, st);
  NGVI_CHECK_REPORT(compare(glm.mean.col(0), (lc.exact_mean().array() * 9.2 + 22.5).matrix(),
                            tol::closed_form, "GLM mean in original units"));
}

BOOST_AUTO_TEST_CASE(classification_averages_the_sampled_probabilities) {
  // Logistic regression on 2 inputs; q an arbitrary correlated Gaussian over (w1, w2, b).
  vi::Rng data_rng(21);
  const MatrixXd X = vi::standard_normal(data_rng, 8, 2);
  MatrixXd Y(8, 1);
  Y << 1, 0, 0, 1, 1, 0, 1, 1;
  const nn::Supervised test(nn::Sequential{nn::Dense(2, 1)}, nn::BernoulliLogit(),
                            nn::Dataset{X, Y});
  MatrixXd L(3, 3);
  L << 2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 3.0;
  const vi::FullGaussian q(VectorXd::LinSpaced(3, -0.5, 1.0), L);
  vi::PredictiveOptions o;
  o.samples = 64;
  vi::Rng rng(9), replay(9);
  const vi::ClassificationPredictive c = vi::mc_classification_predictive(test, q, rng, o);
  const MatrixXd P = ngvi::test::design_of(X);
  VectorXd p1 = VectorXd::Zero(8);
  for (int s = 0; s < o.samples; ++s)
    p1 += (P * q.sample(replay)).unaryExpr([](double f) { return 1.0 / (1.0 + std::exp(-f)); });
  p1 /= o.samples;
  NGVI_CHECK_REPORT(compare(c.probabilities.col(1), p1, tol::closed_form, "P(y = 1 | D)"));
  NGVI_CHECK_REPORT(compare(c.probabilities.col(0), (1.0 - p1.array()).matrix(), tol::closed_form,
                            "P(y = 0 | D)"));
  VectorXd ll(8);
  for (Eigen::Index i = 0; i < 8; ++i) ll(i) = std::log(Y(i, 0) == 1.0 ? p1(i) : 1.0 - p1(i));
  NGVI_CHECK_REPORT(
      compare(c.log_likelihood, ll, tol::closed_form, "log-mean-exp = log of the mean"));
  NGVI_CHECK_REPORT(compare(c.metrics.nll, -ll.mean(), tol::closed_form, "NLL"));

  // The GLM predictive of a linear model samples f ~ N(φᵀμ, φᵀΣφ): the same law as φᵀθ.
  vi::PredictiveOptions big;
  big.samples = 4000;
  vi::Rng g(4);
  const vi::ClassificationPredictive glm = vi::glm_classification_predictive(test, q, g, big);
  vi::Rng h(4);
  const vi::ClassificationPredictive mc = vi::mc_classification_predictive(test, q, h, big);
  for (Eigen::Index i = 0; i < 8; ++i) {
    // Each is a mean of S values of σ(·) ∈ (0, 1): se ≤ 0.5/√S, two independent estimates.
    NGVI_CHECK_MC(glm.probabilities(i, 1), mc.probabilities(i, 1),
                  std::sqrt(2.0) * 0.5 / std::sqrt(4000.0));
  }
}

BOOST_AUTO_TEST_CASE(log_mean_exp_is_stable) {
  VectorXd a(3);
  a << -1000.0, -1001.0, -1002.0;
  NGVI_CHECK_REPORT(compare(vi::log_mean_exp(a),
                            -1000.0 + std::log((1.0 + std::exp(-1.0) + std::exp(-2.0)) / 3.0),
                            tol::closed_form, "log-mean-exp far below exp's range"));
  BOOST_CHECK_THROW(vi::log_mean_exp(VectorXd()), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(running_log_mean_exp_matches_the_whole_row) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Rows whose maximum arrives first, last and in the middle, 700 apart (exp alone would
  // overflow or underflow), and the non-finite cases.
  MatrixXd a(7, 4);
  a << 700.0, -3.0, 2.0, 0.5,            //
      -1000.0, -1001.0, -999.0, -998.5,  //
      1.0, 2.0, 3.0, 4.0,                //
      -inf, -inf, -inf, -inf,            //
      -inf, 0.25, -inf, -2.0,            //
      1.0, inf, 3.0, -inf,               //
      1.0, 2.0, nan, 3.0;
  vi::RunningLogMeanExp running(a.rows());
  for (Eigen::Index s = 0; s < a.cols(); ++s)
    for (Eigen::Index i = 0; i < a.rows(); ++i) running.add(i, a(i, s));
  const VectorXd r = running.result(static_cast<int>(a.cols()));
  for (const Eigen::Index i : {0, 1, 2, 4})
    NGVI_CHECK_REPORT(compare(r(i), vi::log_mean_exp(a.row(i).transpose()), tol::closed_form,
                              "running vs whole-row log-mean-exp"));
  BOOST_TEST(r(3) == -inf);
  BOOST_TEST(r(5) == inf);
  BOOST_TEST(std::isnan(r(6)));
  NGVI_CHECK_REPORT(
      compare(r(2), std::log((std::exp(1.0) + std::exp(2.0) + std::exp(3.0) + std::exp(4.0)) / 4.0),
              tol::closed_form, "log of the mean of exp, directly"));
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
  const LinearCase lc;
  const auto test = lc.c.model_over(lc.Xs, lc.Ys);
  const vi::FullGaussian q = lc.posterior();
  vi::Rng rng(1);
  const nn::Standardizer id = nn::Standardizer::identity(1);
  vi::PredictiveOptions zero;
  zero.samples = 0;
  check_error_mentions([&] { (void)vi::mc_regression_predictive(test, q, id, rng, zero); },
                       "samples must be >= 1");
  const vi::FullGaussian wrong(VectorXd::Zero(2), MatrixXd::Identity(2, 2));
  check_error_mentions([&] { (void)vi::mc_regression_predictive(test, wrong, id, rng); },
                       "over 2 parameters");
  check_error_mentions(
      [&] { (void)vi::glm_regression_predictive(test, q, nn::Standardizer::identity(2)); },
      "standardizer has 2 columns");
  const auto empty = lc.c.model_over(MatrixXd(0, 2), MatrixXd(0, 1));
  check_error_mentions([&] { (void)vi::mc_regression_predictive(empty, q, id, rng); },
                       "no examples");
  MatrixXd bad = lc.Xs;
  bad(2, 1) = std::nan("");
  check_error_mentions([&] { (void)lc.c.model_over(bad, lc.Ys); }, "X(2, 1) is not finite");
}

BOOST_AUTO_TEST_SUITE_END()
