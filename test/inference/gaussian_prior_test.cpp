// GaussianPrior (inference/gaussian_prior.hpp) and the methods under a general prior, against
// independent references:
//   * each family's Λ₀v, diag Λ₀, log det Λ₀ and log p₀(θ) against its dense precision, and
//     KL(q ‖ p₀) for every pair of families against the dense closed form
//     ½[tr(Λ₀Λ_q⁻¹) + dᵀΛ₀d − P − log det Λ₀ + log det Λ_q] from Cholesky factorisations;
//   * continual learning on the conjugate Bayesian linear regression: the data in two halves,
//     the first half's posterior the second fit's prior, gives the one-shot posterior —
//     exactly for VON, full VOGN and Laplace (one α = β = 1 step at the mean), the one-shot
//     mean-field optimum for diagonal VON and VOGN (the Jacobi iteration, von_test), the
//     one-shot ridge solution for MAP, and for Laplace the evidence log p(D₁) + log p(D₂|D₁) =
//     log p(D) of the problem's closed form;
//   * an isotropic GaussianPrior runs the prior_precision code: the same bits; IVON, noisy Adam
//     and Bayes-by-backprop under the diagonal prior N(0, δ⁻¹I) (their general route) run as
//     under prior_precision = δ to rounding; Bayes-by-backprop's KL gradient under a full prior
//     against finite differences of GaussianPrior::kl; noisy Adam at the mean (S = 0) takes the
//     two halves to the one-shot posterior mean; SLANG of rank P (exact eigenpairs) under the
//     first half's low-rank posterior gives the one-shot posterior; noisy K-FAC at the mean takes
//     the two halves to the one-shot posterior mean.
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/tolerances.hpp>
#include <inference/bayes_by_backprop.hpp>
#include <inference/fit.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/ivon.hpp>
#include <inference/laplace.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>
#include <inference/problems.hpp>
#include <inference/slang.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(gaussian_prior_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

namespace {

constexpr Eigen::Index kP = 6;

// One posterior of each family on P = 6, drawn from `seed`.
struct Families {
  vi::DiagonalGaussian diagonal;
  vi::FullGaussian full;
  vi::LowRankGaussian low_rank;
  vi::KroneckerGaussian kronecker;
  vi::KroneckerGaussian kronecker_same_blocks;  // the same blocks, other factors
};

MatrixXd spd(vi::Rng& rng, Eigen::Index n) {
  const MatrixXd a = vi::standard_normal(rng, n, n);
  return a * a.transpose() / static_cast<double>(n) + 0.5 * MatrixXd::Identity(n, n);
}

vi::KroneckerGaussian kronecker(vi::Rng& rng, const VectorXd& mean) {
  // Block 0 is 2×2 over θ {5, 0, 3, 1}, block 1 is 1×2 over θ {2, 4}: not in θ's order.
  std::vector<vi::KroneckerBlock> blocks{{{5, 0, 3, 1}, spd(rng, 2), spd(rng, 2), 1.7},
                                         {{2, 4}, spd(rng, 2), spd(rng, 1), 0.6}};
  return vi::KroneckerGaussian(mean, blocks);
}

Families families(std::uint64_t seed) {
  vi::Rng rng(seed);
  auto mean = [&] { return VectorXd(vi::standard_normal(rng, kP)); };
  auto positive = [&] { return VectorXd(vi::standard_normal(rng, kP).array().exp()); };
  vi::DiagonalGaussian d(mean(), positive());
  vi::FullGaussian f(mean(), spd(rng, kP));
  vi::LowRankGaussian l(mean(), vi::standard_normal(rng, kP, 2), positive());
  vi::KroneckerGaussian k = kronecker(rng, mean());
  vi::KroneckerGaussian k2 = kronecker(rng, mean());
  return {d, f, l, k, k2};
}

MatrixXd dense_precision(const vi::DiagonalGaussian& q) { return q.precision().asDiagonal(); }
template <class Q>
MatrixXd dense_precision(const Q& q) {
  return q.precision();
}

double log_det(const MatrixXd& a) {
  return 2.0 * Eigen::LLT<MatrixXd>(a).matrixLLT().diagonal().array().log().sum();
}

// ½[tr(Λ₀Λ_q⁻¹) + dᵀΛ₀d − P − log det Λ₀ + log det Λ_q], d = μ_q − μ₀, from Choleskys.
double dense_kl(const VectorXd& mu, const MatrixXd& lambda, const VectorXd& mu0,
                const MatrixXd& lambda0) {
  const VectorXd d = mu - mu0;
  const double trace = Eigen::LLT<MatrixXd>(lambda).solve(lambda0).trace();
  return 0.5 * (trace + d.dot(lambda0 * d) - static_cast<double>(mu.size()) - log_det(lambda0) +
                log_det(lambda));
}

// The operations of prior_from(q0) against q0's dense precision, and its KL from each family.
template <class Q0>
void check_prior_of(const Q0& q0, const Families& qs, const std::string& name) {
  const vi::GaussianPrior prior = vi::prior_from(q0);
  const MatrixXd lambda0 = dense_precision(q0);
  vi::Rng rng(7);
  const VectorXd v = vi::standard_normal(rng, kP);
  NGVI_CHECK_REPORT(
      compare(prior.precision_times(v), lambda0 * v, tol::closed_form, name + ": Λ₀v"));
  NGVI_CHECK_REPORT(compare(prior.gradient(v), lambda0 * (v - q0.mean()), tol::closed_form,
                            name + ": Λ₀(θ − μ₀)"));
  NGVI_CHECK_REPORT(
      compare(prior.diagonal(kP), lambda0.diagonal(), tol::closed_form, name + ": diag Λ₀"));
  NGVI_CHECK_REPORT(compare(prior.dense(kP), lambda0, tol::closed_form, name + ": dense Λ₀"));
  NGVI_CHECK_REPORT(compare(prior.log_det_precision(kP), log_det(lambda0), tol::closed_form,
                            name + ": log det Λ₀"));
  NGVI_CHECK_REPORT(compare(prior.log_density(v), q0.log_density(v), tol::closed_form,
                            name + ": log p₀(θ) vs q's own log density"));
  auto kl = [&](const auto& q, const std::string& family) {
    NGVI_CHECK_REPORT(compare(prior.kl(q),
                              dense_kl(q.mean(), dense_precision(q), q0.mean(), lambda0),
                              tol::closed_form, "KL(" + family + " ‖ " + name + ")"));
  };
  kl(qs.diagonal, "diagonal");
  kl(qs.full, "full");
  kl(qs.low_rank, "low rank");
  kl(qs.kronecker, "Kronecker");
  kl(qs.kronecker_same_blocks, "Kronecker (same blocks)");
  BOOST_TEST(prior.kl(vi::PointEstimate(v)) == std::numeric_limits<double>::infinity());
}

// The halves of the Bayesian linear regression: rows [0, N/2) and [N/2, N) as models, and the
// exact posterior of the first half under the problem's prior N(0, δ⁻¹I), by its closed form.
struct Halves {
  vi::problems::BayesianLinearRegression whole;
  vi::problems::BayesianLinearRegression::model_type first, second;
  MatrixXd first_precision;
  VectorXd first_mean;
};

Halves halves() {
  auto p = vi::problems::make_bayesian_linear_regression();
  const Eigen::Index n = p.design.rows() / 2, d = p.design.cols() - 1;
  auto model = [&](Eigen::Index start, Eigen::Index rows) {
    return vi::problems::BayesianLinearRegression::model_type(
        nn::Sequential{nn::Dense(d, 1)}, nn::GaussianFixedNoise(p.noise_precision),
        nn::Dataset{p.design.middleRows(start, rows).leftCols(d), p.targets.segment(start, rows)});
  };
  const MatrixXd phi = p.design.topRows(n);
  MatrixXd lambda = p.noise_precision * phi.transpose() * phi;
  lambda.diagonal().array() += p.prior_precision;
  const VectorXd mu = lambda.llt().solve(p.noise_precision * phi.transpose() * p.targets.head(n));
  auto first = model(0, n), second = model(n, p.design.rows() - n);
  return {std::move(p), std::move(first), std::move(second), lambda, mu};
}

// Full batch, α = β = 1, at the mean, `epochs` steps.
template <class Options>
Options exact_steps(Eigen::Index epochs) {
  Options o;
  o.loop = {.epochs = epochs, .minibatch = 0, .elbo_samples = 0};
  o.mean_rate = {1.0};
  o.precision_rate = {1.0};
  o.mc_samples = 0;
  return o;
}

// Steps of the Jacobi iteration μ ← μ − D⁻¹(Λμ − b), D = diag Λ, that shrink its error below
// 1e-14 (von_test's bound from the iteration's spectral radius).
Eigen::Index jacobi_steps(const MatrixXd& lambda) {
  const VectorXd d = lambda.diagonal();
  const MatrixXd jacobi =
      MatrixXd::Identity(d.size(), d.size()) - d.cwiseInverse().asDiagonal() * lambda;
  const double rho = jacobi.eigenvalues().cwiseAbs().maxCoeff();
  BOOST_TEST_REQUIRE(rho < 0.5);
  return static_cast<Eigen::Index>(std::ceil(std::log(1e-14) / std::log(rho)));
}

}  // namespace

BOOST_AUTO_TEST_CASE(operations_and_kl_match_the_dense_closed_form) {
  const Families qs = families(11), q0s = families(12);
  check_prior_of(q0s.diagonal, qs, "diagonal prior");
  check_prior_of(q0s.full, qs, "full prior");
  check_prior_of(q0s.low_rank, qs, "low-rank prior");
  check_prior_of(q0s.kronecker, qs, "Kronecker prior");
  // The isotropic prior: q's own KL to N(0, δ⁻¹I), and the dense formula.
  const vi::GaussianPrior iso = vi::GaussianPrior::isotropic(2.5);
  const MatrixXd lambda0 = 2.5 * MatrixXd::Identity(kP, kP);
  NGVI_CHECK_REPORT(compare(
      iso.kl(qs.full), dense_kl(qs.full.mean(), qs.full.precision(), VectorXd::Zero(kP), lambda0),
      tol::closed_form, "KL(full ‖ N(0, δ⁻¹I))"));
  BOOST_TEST(iso.kl(qs.low_rank) == qs.low_rank.kl_to_prior(2.5));
  BOOST_TEST(iso.dim() == 0);
  ngvi::test::check_error_mentions(
      [&] {
        (void)vi::prior_from(qs.full).kl(
            vi::DiagonalGaussian(VectorXd::Zero(3), VectorXd::Ones(3)));
      },
      "the prior has 6 parameters, the model 3");
}

BOOST_AUTO_TEST_CASE(an_isotropic_prior_gives_the_bits_of_prior_precision) {
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double delta = 2.5;
  auto check = [&]<class Options>(Options o, const std::string& name) {
    o.loop = {.epochs = 3, .minibatch = 10, .history_every = 1, .elbo_samples = 2};
    Options with_prior = o;
    o.prior_precision = delta;
    with_prior.prior = vi::GaussianPrior::isotropic(delta);
    vi::Rng a(5), b(5);
    const auto r = vi::fit(p.model, o, a), s = vi::fit(p.model, with_prior, b);
    NGVI_CHECK_BITWISE(r.posterior.mean(), s.posterior.mean(), name + " mean");
    NGVI_CHECK_BITWISE(r.posterior.marginal_variances(), s.posterior.marginal_variances(),
                       name + " variances");
    BOOST_TEST_REQUIRE(r.history.size() == s.history.size());
    for (std::size_t i = 0; i < r.history.size(); ++i)
      NGVI_CHECK_BITWISE(r.history[i].elbo, s.history[i].elbo, name + " history ELBO");
  };
  check(vi::VonOptions{}, "VON");
  check(vi::VognOptions{}, "diagonal VOGN");
  check(vi::MapOptions{}, "MAP");
}

BOOST_AUTO_TEST_CASE(von_and_full_vogn_learn_the_halves_into_the_one_shot_posterior) {
  const Halves h = halves();
  auto two_halves = [&]<class Options>(Options o, const std::string& name) {
    o.prior_precision = h.whole.prior_precision;
    vi::Rng rng(3);
    const auto first = vi::fit(h.first, o, rng);
    BOOST_TEST_REQUIRE(first.ok(), first.message);
    NGVI_CHECK_REPORT(compare(first.posterior.precision(), h.first_precision, tol::exact_update,
                              name + ": first half's precision"));
    o.prior = vi::prior_from(first.posterior);
    o.prior_precision = 1e6;  // unused when a prior is set
    const auto second = vi::fit(h.second, o, rng);
    BOOST_TEST_REQUIRE(second.ok(), second.message);
    NGVI_CHECK_REPORT(compare(second.posterior.precision(), h.whole.posterior_precision,
                              tol::exact_update, name + ": precision after both halves"));
    NGVI_CHECK_REPORT(compare(second.posterior.mean(), h.whole.posterior_mean, tol::exact_update,
                              name + ": mean after both halves"));
    // The history's KL is to the first posterior.
    NGVI_CHECK_REPORT(compare(second.history.back().kl,
                              vi::prior_from(first.posterior).kl(second.posterior),
                              tol::closed_form, name + ": the history's KL"));
  };
  two_halves(exact_steps<vi::VonOptions>(1), "VON");
  auto vogn = exact_steps<vi::FullVognOptions>(1);
  vogn.curvature = vi::VognCurvature::ggn;
  two_halves(vogn, "full VOGN");

  // A diagonal first posterior as the prior of full VON: the exact posterior under that prior,
  // Λ = τΦ₂ᵀΦ₂ + diag(d₁), μ = Λ⁻¹(τΦ₂ᵀy₂ + d₁ ⊙ μ₁).
  const vi::DiagonalGaussian q1(h.first_mean, h.first_precision.diagonal());
  auto o = exact_steps<vi::VonOptions>(1);
  o.prior = vi::prior_from(q1);
  vi::Rng rng(4);
  const auto r = vi::fit(h.second, o, rng);
  const Eigen::Index n = h.whole.design.rows() / 2;
  const MatrixXd phi = h.whole.design.bottomRows(n);
  const double tau = h.whole.noise_precision;
  MatrixXd lambda = tau * phi.transpose() * phi;
  lambda.diagonal() += q1.precision();
  const VectorXd mu = lambda.llt().solve(tau * phi.transpose() * h.whole.targets.tail(n) +
                                         q1.precision().cwiseProduct(q1.mean()));
  NGVI_CHECK_REPORT(compare(r.posterior.precision(), lambda, tol::exact_update,
                            "VON under a diagonal prior: precision"));
  NGVI_CHECK_REPORT(
      compare(r.posterior.mean(), mu, tol::exact_update, "VON under a diagonal prior: mean"));
}

BOOST_AUTO_TEST_CASE(diagonal_methods_reach_the_one_shot_mean_field_optimum) {
  // Under the full first-half posterior as prior, the mean-field ELBO of the second half is
  // −KL(q ‖ the one-shot posterior) + const: its optimum keeps the one-shot mean and takes the
  // diagonal of the one-shot precision, reached by the Jacobi iteration as in von_test.
  const Halves h = halves();
  const Eigen::Index steps = jacobi_steps(h.whole.posterior_precision);
  const vi::GaussianPrior prior = vi::prior_from(vi::FullGaussian(h.first_mean, h.first_precision));
  const vi::DiagonalGaussian opt = h.whole.mean_field_optimum();
  auto check = [&]<class Options>(Options o, const std::string& name) {
    o.prior = prior;
    vi::Rng rng(6);
    const auto r = vi::fit(h.second, o, rng);
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    NGVI_CHECK_REPORT(
        compare(r.posterior.precision(), opt.precision(), tol::exact_update, name + " precision"));
    NGVI_CHECK_REPORT(compare(r.posterior.mean(), opt.mean(), tol::exact_update, name + " mean"));
  };
  check(exact_steps<vi::DiagonalVonOptions>(steps), "diagonal VON");
  auto vogn = exact_steps<vi::VognOptions>(steps);
  vogn.curvature = vi::VognCurvature::ggn;
  check(vogn, "diagonal VOGN");
}

BOOST_AUTO_TEST_CASE(laplace_and_map_learn_the_halves_into_the_one_shot_posterior) {
  const Halves h = halves();
  vi::LaplaceOptions o{.prior_precision = h.whole.prior_precision};
  const auto first = vi::laplace(h.first, h.first_mean, o);
  o.prior = vi::prior_from(first.posterior);
  const auto second = vi::laplace(h.second, h.whole.posterior_mean, o);
  NGVI_CHECK_REPORT(compare(second.posterior.precision(), h.whole.posterior_precision,
                            tol::exact_update, "Laplace precision after both halves"));
  // θ* is the one-shot posterior mean: the stationary point of the second half's MAP objective.
  BOOST_TEST(second.gradient_norm < 1e-10 * h.whole.posterior_precision.norm());
  // log p(D₁) + log p(D₂ | D₁) = log p(D), the problem's own closed form.
  NGVI_CHECK_REPORT(compare(first.log_marginal_likelihood + second.log_marginal_likelihood,
                            h.whole.log_evidence, tol::closed_form,
                            "Laplace evidences of the halves vs the one-shot evidence"));
  BOOST_TEST(std::isnan(second.prior_precision));
  // Diagonal Laplace under the full prior: diag(H₂) + diag Λ₁ = diag Λ.
  const auto diagonal = vi::diagonal_laplace(h.second, h.whole.posterior_mean, o);
  NGVI_CHECK_REPORT(compare(diagonal.posterior.precision(),
                            VectorXd(h.whole.posterior_precision.diagonal()), tol::exact_update,
                            "diagonal Laplace precision under the full prior"));
  o.prior_precisions = VectorXd::Ones(4);
  ngvi::test::check_error_mentions([&] { (void)vi::laplace(h.second, h.whole.posterior_mean, o); },
                                   "both prior and prior_precisions");

  // MAP of the second half under the first posterior: the one-shot ridge solution (map_test's
  // schedule, which reaches it within `iterative` in 3000 full-batch steps).
  vi::MapOptions m;
  m.loop.epochs = 3000;
  m.loop.minibatch = 0;
  m.learning_rate = {.initial = 0.05, .decay = 0.01, .power = 1.0};
  m.initial = VectorXd::Zero(4);
  m.prior = o.prior;
  vi::Rng rng(8);
  const auto map = vi::fit(h.second, m, rng);
  BOOST_TEST(map.ok(), map.message);
  NGVI_CHECK_REPORT(compare(map.posterior.mean(), h.whole.posterior_mean, tol::iterative,
                            "MAP of the second half under the first posterior"));
  NGVI_CHECK_REPORT(
      compare(vi::map_objective(h.second, h.whole.posterior_mean, *m.prior),
              vi::total_nll(h.second, h.whole.posterior_mean) +
                  0.5 * (h.whole.posterior_mean - h.first_mean)
                            .dot(h.first_precision * (h.whole.posterior_mean - h.first_mean)),
              tol::closed_form, "MAP objective under the prior"));
}

BOOST_AUTO_TEST_CASE(slang_of_full_rank_learns_the_halves_into_the_one_shot_posterior) {
  // Rank L = P = 4 (rank + oversampling ≥ P: the eigenpairs are exact, slang_test): the first
  // half's q₁ = N(μ₁, (U₁U₁ᵀ + diag d₁)⁻¹) is exact, and as the prior its U₁ enters the target and
  // d₁ the diagonal, so one α = β = 1 step on the second half gives the one-shot posterior.
  const Halves h = halves();
  vi::SlangOptions o{.loop = {.epochs = 1, .minibatch = 0, .elbo_samples = 0},
                     .prior_precision = h.whole.prior_precision,
                     .mean_rate = {1.0},
                     .precision_rate = {1.0},
                     .rank = 4,
                     .mc_samples = 0,
                     .curvature = vi::VognCurvature::ggn};
  vi::Rng rng(12);
  const auto first = vi::fit(h.first, o, rng);
  BOOST_TEST_REQUIRE(first.ok(), first.message);
  NGVI_CHECK_REPORT(compare(first.posterior.precision(), h.first_precision, tol::exact_update,
                            "SLANG: first half's precision"));
  o.prior = vi::prior_from(first.posterior);
  const auto second = vi::fit(h.second, o, rng);
  BOOST_TEST_REQUIRE(second.ok(), second.message);
  NGVI_CHECK_REPORT(compare(second.posterior.precision(), h.whole.posterior_precision,
                            tol::exact_update, "SLANG: precision after both halves"));
  NGVI_CHECK_REPORT(compare(second.posterior.mean(), h.whole.posterior_mean, tol::exact_update,
                            "SLANG: mean after both halves"));
}

BOOST_AUTO_TEST_CASE(diagonal_methods_take_a_diagonal_prior_where_they_took_delta) {
  // N(0, δ⁻¹I) given as a DiagonalGaussian runs each method's general route (diag Λ₀ where δ was,
  // Λ₀(μ − μ₀) where δμ was): the iterates of prior_precision = δ, to rounding.
  const auto p = vi::problems::make_bayesian_linear_regression();
  const double delta = 2.5;
  const vi::GaussianPrior prior =
      vi::prior_from(vi::DiagonalGaussian(VectorXd::Zero(4), VectorXd::Constant(4, delta)));
  auto check = [&]<class Options>(Options o, const std::string& name) {
    o.loop = {.epochs = 5, .minibatch = 10, .elbo_samples = 0};
    Options general = o;
    o.prior_precision = delta;
    general.prior = prior;
    vi::Rng a(9), b(9);
    const auto r = vi::fit(p.model, o, a), s = vi::fit(p.model, general, b);
    BOOST_TEST_REQUIRE(r.ok(), r.message);
    NGVI_CHECK_REPORT(compare(s.posterior.mean(), r.posterior.mean(), tol::closed_form,
                              name + " mean, general vs δ route"));
    NGVI_CHECK_REPORT(compare(s.posterior.precision(), r.posterior.precision(), tol::closed_form,
                              name + " precision, general vs δ route"));
  };
  check(vi::IvonOptions{}, "IVON");
  vi::NoisyAdamOptions noisy_adam;
  noisy_adam.fisher_init = 1.0;
  check(noisy_adam, "noisy Adam");
  check(vi::BayesByBackpropOptions{}, "Bayes-by-backprop");
  check(vi::NoisyKfacOptions{}, "noisy K-FAC");
}

BOOST_AUTO_TEST_CASE(bayes_by_backprop_kl_gradient_under_a_full_prior) {
  // The same draws under the full first-half posterior and under N(0, δ⁻¹I): the gradients differ
  // by λ∇(KL(q ‖ p₀) − KL(q ‖ N(0, δ⁻¹I))) in (μ, ρ), here by 4th-order finite differences of
  // GaussianPrior::kl and DiagonalGaussian::kl_to_prior.
  const Halves h = halves();
  vi::BayesByBackpropOptions o;
  o.kl_weight = 0.7;
  o.initial_stddev = 0.3;
  vi::BayesByBackpropOptions general = o;
  general.prior = vi::prior_from(vi::FullGaussian(h.first_mean, h.first_precision));
  vi::Rng init_a(5), init_b(5);
  const vi::BayesByBackprop<decltype(h.second)> plain(h.second, o, init_a),
      with_prior(h.second, general, init_b);
  const std::vector<Eigen::Index> batch = nn::all_examples(h.second.num_examples());
  vi::Counters c;
  vi::Rng a(6), b(6);
  const VectorXd difference = with_prior.gradient(batch, h.second.num_examples(), b, c) -
                              plain.gradient(batch, h.second.num_examples(), a, c);
  VectorXd x(8);
  x << plain.posterior().mean(), plain.rho();
  auto kl_difference = [&](const VectorXd& y) {
    const VectorXd sigma = y.tail(4).unaryExpr([](double r) { return vi::softplus(r); });
    const vi::DiagonalGaussian q(y.head(4), sigma.cwiseAbs2().cwiseInverse());
    return o.kl_weight * (general.prior->kl(q) - q.kl_to_prior(o.prior_precision));
  };
  VectorXd fd(8);
  const double step = 1e-3;
  for (Eigen::Index j = 0; j < 8; ++j) {
    auto at = [&](double k) {
      VectorXd y = x;
      y(j) += k * step;
      return kl_difference(y);
    };
    fd(j) = (-at(2) + 8 * at(1) - 8 * at(-1) + at(-2)) / (12 * step);
  }
  NGVI_CHECK_REPORT(compare(difference, fd, ngvi::ad::verify::tolerances::gradient_vs_fd,
                            "Bayes-by-backprop: λ∇KL to the full prior, minus to N(0, δ⁻¹I)"));
}

BOOST_AUTO_TEST_CASE(noisy_adam_at_the_mean_learns_the_halves_into_the_one_shot_mean) {
  // S = 0: no noise, the mean's fixed point is ∇ℓ̄ + (λ/N)Λ₀(μ − μ₀) = 0, the MAP under the first
  // posterior = the one-shot posterior mean (map_test's schedule, 3000 full-batch steps).
  const Halves h = halves();
  vi::NoisyAdamOptions o;
  o.loop = {.epochs = 3000, .minibatch = 0, .elbo_samples = 0};
  o.learning_rate = {.initial = 0.05, .decay = 0.01, .power = 1.0};
  o.fisher = vi::NoisyAdamFisher::empirical_fisher;
  o.fisher_init = 1.0;
  o.mc_samples = 0;
  o.prior = vi::prior_from(vi::FullGaussian(h.first_mean, h.first_precision));
  vi::Rng rng(10);
  const auto r = vi::fit(h.second, o, rng);
  BOOST_TEST_REQUIRE(r.ok(), r.message);
  NGVI_CHECK_REPORT(compare(r.posterior.mean(), h.whole.posterior_mean, tol::iterative,
                            "noisy Adam (S = 0) mean after both halves"));
}

BOOST_AUTO_TEST_CASE(noisy_kfac_at_the_mean_learns_the_halves_into_the_one_shot_mean) {
  // S = 0 and the expected-Fisher factor: the means' fixed point V = 0 is the MAP under the first
  // posterior, the one-shot posterior mean, whatever the (approximate) damping; α = 1/2 keeps the
  // preconditioned iteration contracting.
  const Halves h = halves();
  vi::NoisyKfacOptions o;
  o.loop = {.epochs = 400, .minibatch = 0, .elbo_samples = 0};
  o.learning_rate = {0.5};
  o.beta = 1.0;
  o.s_factor = nn::KfacS::expected_fisher;
  o.mc_samples = 0;
  o.prior = vi::prior_from(vi::FullGaussian(h.first_mean, h.first_precision));
  vi::Rng rng(13);
  const auto r = vi::fit(h.second, o, rng);
  BOOST_TEST_REQUIRE(r.ok(), r.message);
  NGVI_CHECK_REPORT(compare(r.posterior.mean(), h.whole.posterior_mean, tol::iterative,
                            "noisy K-FAC (S = 0) mean after both halves"));
}

BOOST_AUTO_TEST_SUITE_END()
