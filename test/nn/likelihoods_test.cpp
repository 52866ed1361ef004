// Tests of nn/likelihoods/: NLLs against Boost.Math's distributions (full constants),
// batch NLL = Σ per-example NLL, closed-form output Hessians against forward-over-reverse
// Hessians of the NLL, gradients against finite differences, the Fisher as the expected
// Hessian and the samplers' moments, and target validation.
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <Eigen/Core>
#include <Eigen/LU>
#include <boost/math/distributions/bernoulli.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <nn/likelihoods/likelihoods.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(likelihoods_test)

using namespace ngvi;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

namespace {

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index k = 0;
  for (double d : v) x(k++) = d;
  return x;
}

// −log of Boost.Math's density / mass function.
double normal_nll(double y, double mean, double sd) {
  return -std::log(boost::math::pdf(boost::math::normal_distribution<double>(mean, sd), y));
}

// Checks, for one likelihood at (f, y): closed-form output Hessian vs forward-over-reverse
// Hessian of nll in f, the nll gradient vs finite differences, and that the Var value equals
// the double value.
template <class Lik>
void check_derivatives(const Lik& lik, const Eigen::VectorXd& f, const Eigen::VectorXd& y) {
  auto nll = [&](const auto& ff) {
    using V = std::decay_t<decltype(ff)>;
    return lik.nll(Eigen::Matrix<typename V::Scalar, Eigen::Dynamic, 1>(ff), y);
  };
  NGVI_CHECK_REPORT(compare(lik.output_hessian(f, y), ad::hessian(nll, f), tol::closed_form,
                            std::string(Lik::name) + ": output_hessian vs AD Hessian of nll"));
  NGVI_CHECK_REPORT(ad::verify::check_gradient(nll, f));
}

// Averages output_hessian over S targets drawn by sample_target and compares with
// output_fisher, entry by entry, within 6 Monte-Carlo standard errors (+1e-12 for entries
// that are exactly constant). Also checks the sample mean of y against predictive_mean.
template <class Lik>
void check_fisher_and_sampler(const Lik& lik, const Eigen::VectorXd& f, std::uint64_t seed) {
  const int S = 40000;
  std::mt19937_64 rng(seed);
  const Eigen::Index K = lik.output_dim();
  const Eigen::VectorXd y0 = lik.sample_target(f, rng);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(K, K), sum2 = sum;
  Eigen::VectorXd ysum = Eigen::VectorXd::Zero(y0.size()), ysum2 = ysum;
  for (int s = 0; s < S; ++s) {
    const Eigen::VectorXd y = lik.sample_target(f, rng);
    const Eigen::MatrixXd H = lik.output_hessian(f, y);
    sum += H;
    sum2 += H.cwiseProduct(H);
    ysum += y;
    ysum2 += y.cwiseProduct(y);
  }
  const Eigen::MatrixXd mean = sum / S;
  const Eigen::MatrixXd se = ((sum2 / S - mean.cwiseProduct(mean)).cwiseMax(0.0) / S).cwiseSqrt();
  const Eigen::MatrixXd F = lik.output_fisher(f);
  for (Eigen::Index i = 0; i < K; ++i)
    for (Eigen::Index j = 0; j < K; ++j)
      BOOST_TEST(std::abs(mean(i, j) - F(i, j)) <= 6.0 * se(i, j) + 1e-12,
                 Lik::name << ": E[output_hessian](" << i << "," << j << ") = " << mean(i, j)
                           << " vs fisher " << F(i, j) << " (se " << se(i, j) << ")");
  const Eigen::VectorXd ymean = ysum / S;
  const Eigen::VectorXd yse =
      ((ysum2 / S - ymean.cwiseProduct(ymean)).cwiseMax(0.0) / S).cwiseSqrt();
  const Eigen::VectorXd mu = lik.predictive_mean(f);
  if (Lik::name == std::string_view("softmax_categorical")) {
    // y is a class index; its mean is Σ c p_c.
    const double m = Eigen::VectorXd::LinSpaced(mu.size(), 0, mu.size() - 1).dot(mu);
    BOOST_TEST(std::abs(ymean(0) - m) <= 6.0 * yse(0),
               "class-index mean " << ymean(0) << " vs " << m);
  } else {
    for (Eigen::Index k = 0; k < mu.size(); ++k)
      BOOST_TEST(std::abs(ymean(k) - mu(k)) <= 6.0 * yse(k),
                 Lik::name << ": sample mean " << ymean(k) << " vs " << mu(k));
  }
  if constexpr (requires { lik.predictive_variance(f); }) {
    // E[(y − μ)²] over fresh draws against Var[y | f]; the standard error from the fourth moment.
    const Eigen::VectorXd var = lik.predictive_variance(f);
    Eigen::VectorXd d2 = Eigen::VectorXd::Zero(mu.size()), d4 = d2;
    for (int s = 0; s < S; ++s) {
      const Eigen::VectorXd r = (lik.sample_target(f, rng) - mu).cwiseAbs2();
      d2 += r;
      d4 += r.cwiseAbs2();
    }
    for (Eigen::Index k = 0; k < mu.size(); ++k) {
      const double m2 = d2(k) / S, se2 = std::sqrt(std::max(d4(k) / S - m2 * m2, 0.0) / S);
      BOOST_TEST(std::abs(m2 - var(k)) <= 6.0 * se2, Lik::name << ": sample variance " << m2
                                                               << " vs predictive_variance "
                                                               << var(k) << " (se " << se2 << ")");
    }
  }
}

// batch_nll over rows = Σ nll, on double and on Var (value and gradient).
template <class Lik>
void check_batch(const Lik& lik, const Eigen::MatrixXd& F, const Eigen::MatrixXd& Y) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < F.rows(); ++i)
    sum += lik.nll(Eigen::VectorXd(F.row(i).transpose()), Eigen::VectorXd(Y.row(i).transpose()));
  NGVI_CHECK_REPORT(compare(lik.batch_nll(F, Y), sum, tol::ad_vs_ad,
                            std::string(Lik::name) + ": batch_nll vs Σ nll"));
  const Eigen::VectorXd x = F.reshaped();
  auto batched = [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> M = v.reshaped(F.rows(), F.cols());
    return lik.batch_nll(M, Y);
  };
  auto rows = [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> M = v.reshaped(F.rows(), F.cols());
    T s(0.0);
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      s += lik.nll(Eigen::Matrix<T, Eigen::Dynamic, 1>(M.row(i).transpose()),
                   Eigen::VectorXd(Y.row(i).transpose()));
    return s;
  };
  // The same batch as one matrix variable (what Sequential::trace and the batched route pass).
  auto handle = [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> M = v.reshaped(F.rows(), F.cols());
    return lik.batch_nll(ad::as_matrix(M), Y);
  };
  const Eigen::VectorXd g_rows = ad::gradient(rows, x);
  const Eigen::MatrixXd h_rows = ad::hessian(rows, x);
  NGVI_CHECK_REPORT(compare(ad::gradient(batched, x), g_rows, tol::ad_vs_ad,
                            std::string(Lik::name) + ": gradient of batch_nll vs of Σ nll"));
  NGVI_CHECK_REPORT(compare(ad::hessian(batched, x), h_rows, tol::ad_vs_ad,
                            std::string(Lik::name) + ": Hessian of batch_nll vs of Σ nll"));
  Eigen::VectorXd g_handle;
  const double value = ad::value_and_gradient(handle, x, g_handle);
  NGVI_CHECK_REPORT(compare(g_handle, g_rows, tol::ad_vs_ad,
                            std::string(Lik::name) + ": gradient of batch_nll(MatrixVar)"));
  NGVI_CHECK_REPORT(compare(value, sum, tol::ad_vs_ad,
                            std::string(Lik::name) + ": batch_nll(MatrixVar) vs Σ nll"));
  NGVI_CHECK_REPORT(compare(ad::hessian(handle, x), h_rows, tol::ad_vs_ad,
                            std::string(Lik::name) + ": Hessian of batch_nll(MatrixVar)"));
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(gaussian_fixed_noise) {
  const nn::GaussianFixedNoise lik(4.0, 2);
  const Eigen::VectorXd f = vec({0.3, -1.2}), y = vec({1.1, -0.4});
  const double ref = normal_nll(1.1, 0.3, 0.5) + normal_nll(-0.4, -1.2, 0.5);
  NGVI_CHECK_REPORT(compare(lik.nll(f, y), ref, tol::closed_form, "nll vs Boost normal"));
  check_derivatives(lik, f, y);
  check_fisher_and_sampler(lik, f, 1);
  Eigen::MatrixXd F(3, 2), Y(3, 2);
  F << 0.1, 0.2, -0.3, 0.4, 1.5, -2.0;
  Y << 0.0, 1.0, 2.0, -1.0, 0.5, 0.5;
  check_batch(lik, F, Y);
  BOOST_CHECK_THROW(nn::GaussianFixedNoise(0.0), std::invalid_argument);
  BOOST_CHECK_THROW(lik.nll(vec({1.0}), vec({1.0})), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(gaussian_learned_noise) {
  const nn::GaussianLearnedNoise lik(2.0);
  BOOST_TEST(lik.output_dim() == 2);
  BOOST_TEST(lik.net_output_dim() == 1);
  const double s = std::log(3.0);  // τ = 3
  const Eigen::VectorXd f = vec({0.7, s}), y = vec({-0.2});
  NGVI_CHECK_REPORT(compare(lik.nll(f, y), normal_nll(-0.2, 0.7, 1.0 / std::sqrt(3.0)),
                            tol::closed_form, "nll vs Boost normal"));
  check_derivatives(lik, f, y);
  check_fisher_and_sampler(lik, f, 2);
  Eigen::MatrixXd F(4, 2), Y(4, 1);
  F << 0.1, s, -0.3, s, 1.5, s, 0.2, s;
  Y << 0.0, 2.0, 0.5, -1.0;
  check_batch(lik, F, Y);
  // The parameter block and its initial value.
  nn::ParameterLayout layout;
  layout.add("net", 3, 1);
  lik.add_parameter_blocks(layout);
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(layout.size());
  lik.init_parameters(theta, layout);
  BOOST_TEST(theta(layout.block("log_precision").offset) == std::log(2.0));
  // Indefinite exact H_L away from y = μ, PSD Fisher.
  const Eigen::MatrixXd H = lik.output_hessian(f, y);
  BOOST_TEST(H.determinant() < 0.0);
  BOOST_TEST(lik.output_fisher(f).determinant() > 0.0);
}

BOOST_AUTO_TEST_CASE(heteroscedastic_gaussian) {
  const nn::HeteroscedasticGaussian lik(2);
  const Eigen::VectorXd f = vec({0.7, -1.0, std::log(0.25), 0.5}), y = vec({0.2, -2.0});
  const double ref = normal_nll(0.2, 0.7, 0.5) + normal_nll(-2.0, -1.0, std::exp(0.25));
  NGVI_CHECK_REPORT(compare(lik.nll(f, y), ref, tol::closed_form, "nll vs Boost normal"));
  check_derivatives(lik, f, y);
  check_fisher_and_sampler(lik, f, 3);
  Eigen::MatrixXd F(3, 4), Y(3, 2);
  F << 0.1, 0.2, -0.3, 0.4, 1.5, -2.0, 0.0, 0.1, -0.5, 0.5, 1.0, -1.0;
  Y << 0.0, 1.0, 2.0, -1.0, 0.5, 0.5;
  check_batch(lik, F, Y);
}

BOOST_AUTO_TEST_CASE(student_t) {
  // −log of Boost.Math's standard Student-t density, located at f and scaled by σ = 1/√τ.
  const auto t_nll = [](double y, double f, double tau, double nu) {
    const double sigma = 1.0 / std::sqrt(tau);
    return -std::log(boost::math::pdf(boost::math::students_t_distribution<double>(nu),
                                      (y - f) / sigma)) +
           std::log(sigma);
  };
  const nn::StudentT lik(4.0, 3.5, 2);
  const Eigen::VectorXd f = vec({0.3, -1.2}), y = vec({1.1, 2.6});
  NGVI_CHECK_REPORT(compare(lik.nll(f, y), t_nll(1.1, 0.3, 4.0, 3.5) + t_nll(2.6, -1.2, 4.0, 3.5),
                            tol::closed_form, "nll vs Boost students_t"));
  // y − f = 3.8: a·r² = (4/3.5)·3.8² > 1, where ∂²ℓ/∂f² is negative (the loss is not convex).
  check_derivatives(lik, f, y);
  BOOST_TEST(lik.output_hessian(f, y)(1, 1) < 0.0);
  BOOST_TEST(lik.output_hessian(f, y)(0, 0) > 0.0);
  check_derivatives(nn::StudentT(0.7, 30.0), vec({0.2}), vec({-0.1}));
  // ν = 10: the sampler's fourth moment (the standard error of its variance check) is finite.
  check_fisher_and_sampler(nn::StudentT(2.0, 10.0), vec({-0.4}), 7);
  Eigen::MatrixXd F(3, 2), Y(3, 2);
  F << 0.1, 0.2, -0.3, 0.4, 1.5, -2.0;
  Y << 0.0, 1.0, 2.0, -1.0, 0.5, 0.5;
  check_batch(lik, F, Y);
  // As ν → ∞ the density tends to N(f, 1/τ): at ν = 10⁸ the NLLs agree to ~1e-8.
  const nn::StudentT wide(4.0, 1e8);
  NGVI_CHECK_REPORT(compare(wide.nll(vec({0.3}), vec({1.1})), normal_nll(1.1, 0.3, 0.5),
                            {1e-7, 1e-7}, "nll at nu = 1e8 vs Boost normal"));
  NGVI_CHECK_REPORT(compare(wide.output_fisher(vec({0.3}))(0, 0), 4.0, {1e-7, 1e-7},
                            "Fisher at nu = 1e8 vs the Gaussian's tau"));
  NGVI_CHECK_REPORT(compare(nn::StudentT(2.0, 6.0).predictive_variance(vec({0.0}))(0),
                            6.0 / (4.0 * 2.0), tol::closed_form, "variance nu / ((nu - 2) tau)"));
  BOOST_TEST(std::isinf(nn::StudentT(2.0, 2.0).predictive_variance(vec({0.0}))(0)));
  BOOST_CHECK_THROW(nn::StudentT(0.0, 4.0), std::invalid_argument);
  BOOST_CHECK_THROW(nn::StudentT(1.0, -1.0), std::invalid_argument);
  BOOST_CHECK_THROW(nn::StudentT(1.0, std::numeric_limits<double>::infinity()),
                    std::invalid_argument);
  BOOST_CHECK_THROW(lik.nll(vec({1.0}), vec({1.0})), std::invalid_argument);
  try {
    nn::StudentT(1.0, 0.0);
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(contains(e.what(), "ngvi::nn::StudentT: degrees_of_freedom must be positive"),
               e.what());
  }
}

BOOST_AUTO_TEST_CASE(bernoulli_logit) {
  const nn::BernoulliLogit lik;
  for (double fv : {-3.0, 0.4, 25.0}) {
    for (double yv : {0.0, 1.0}) {
      const double p = 1.0 / (1.0 + std::exp(-fv));
      const double ref =
          -std::log(boost::math::pdf(boost::math::bernoulli_distribution<double>(p), yv));
      // For f = 25, 1 − p rounds: compare there with the stable closed form instead.
      const double stable = std::log1p(std::exp(-std::abs(fv))) + std::max(fv, 0.0) - yv * fv;
      NGVI_CHECK_REPORT(compare(lik.nll(vec({fv}), vec({yv})), fv < 20 ? ref : stable,
                                tol::closed_form, "nll vs Boost bernoulli"));
    }
  }
  const Eigen::VectorXd f = vec({0.4}), y = vec({1.0});
  check_derivatives(lik, f, y);
  check_fisher_and_sampler(lik, f, 4);
  Eigen::MatrixXd F(3, 1), Y(3, 1);
  F << 0.1, -2.0, 3.0;
  Y << 0.0, 1.0, 1.0;
  check_batch(lik, F, Y);
  // Large logits neither overflow nor lose the answer.
  BOOST_TEST(std::isfinite(lik.nll(vec({800.0}), vec({0.0}))));
  NGVI_CHECK_REPORT(
      compare(lik.nll(vec({800.0}), vec({0.0})), 800.0, tol::closed_form, "nll at f = 800"));
  Eigen::MatrixXd bad(2, 1);
  bad << 1.0, 0.5;
  try {
    lik.check_targets(bad);
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(contains(e.what(), "row 1"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(softmax_categorical) {
  const nn::SoftmaxCategorical lik(3);
  const Eigen::VectorXd f = vec({0.2, -1.0, 1.3});
  // Reference in long double: −log(e^{f_c} / Σ e^{f_j}).
  long double z = 0;
  for (int j = 0; j < 3; ++j) z += std::exp(static_cast<long double>(f(j)));
  for (int c = 0; c < 3; ++c) {
    const double ref = static_cast<double>(-(static_cast<long double>(f(c)) - std::log(z)));
    NGVI_CHECK_REPORT(
        compare(lik.nll(f, vec({double(c)})), ref, tol::closed_form, "nll vs long double"));
  }
  check_derivatives(lik, f, vec({2.0}));
  check_fisher_and_sampler(lik, f, 5);
  Eigen::MatrixXd F(3, 3), Y(3, 1);
  F << 0.1, 0.2, -0.3, 0.4, 1.5, -2.0, 0.0, 0.1, -0.5;
  Y << 0.0, 2.0, 1.0;
  check_batch(lik, F, Y);
  NGVI_CHECK_REPORT(
      compare(lik.predictive_mean(f).sum(), 1.0, tol::closed_form, "probabilities sum to 1"));
  BOOST_CHECK_THROW(lik.nll(f, vec({3.0})), std::invalid_argument);
  BOOST_CHECK_THROW(lik.nll(f, vec({0.5})), std::invalid_argument);
  Eigen::MatrixXd bad(2, 1);
  bad << 1.0, 3.0;
  BOOST_CHECK_THROW(lik.check_targets(bad), std::invalid_argument);
  // The batch form names the row of a bad target.
  try {
    (void)lik.batch_nll(Eigen::MatrixXd(F.topRows(2)), bad);
    BOOST_ERROR("batch_nll accepted class 3 of 3");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(contains(e.what(), "row 1"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(poisson_log) {
  const nn::PoissonLog lik;
  for (double fv : {-1.0, 0.5, 3.0})
    for (double yv : {0.0, 1.0, 7.0}) {
      const double ref =
          -std::log(boost::math::pdf(boost::math::poisson_distribution<double>(std::exp(fv)), yv));
      NGVI_CHECK_REPORT(
          compare(lik.nll(vec({fv}), vec({yv})), ref, tol::closed_form, "nll vs Boost poisson"));
    }
  const Eigen::VectorXd f = vec({0.5}), y = vec({3.0});
  check_derivatives(lik, f, y);
  check_fisher_and_sampler(lik, f, 6);
  Eigen::MatrixXd F(3, 1), Y(3, 1);
  F << 0.1, -2.0, 1.0;
  Y << 0.0, 1.0, 4.0;
  check_batch(lik, F, Y);
  Eigen::MatrixXd bad(1, 1);
  bad << -1.0;
  BOOST_CHECK_THROW(lik.check_targets(bad), std::invalid_argument);
}

// A LikelihoodVariant gives the held likelihood's numbers bitwise (the concrete likelihood is the
// reference), its derivatives agree with AD and finite differences as every likelihood's must,
// and a network model over it has the concrete model's losses and gradients bit for bit.
BOOST_AUTO_TEST_CASE(likelihood_variant_is_the_likelihood_it_holds) {
  using Variant = nn::LikelihoodVariant<nn::GaussianFixedNoise, nn::StudentT, nn::BernoulliLogit,
                                        nn::SoftmaxCategorical, nn::GaussianLearnedNoise>;
  static_assert(nn::Likelihood<Variant>);
  const auto same_numbers = [](const auto& concrete, const Eigen::VectorXd& f,
                               const Eigen::VectorXd& y, const Eigen::MatrixXd& F,
                               const Eigen::MatrixXd& Y) {
    const Variant v = concrete;
    const std::string name(concrete.name);
    BOOST_TEST(v.held_name() == concrete.name);
    BOOST_TEST(v.output_dim() == concrete.output_dim(), name);
    BOOST_TEST(v.net_output_dim() == concrete.net_output_dim(), name);
    BOOST_TEST(v.num_params() == concrete.num_params(), name);
    BOOST_TEST(v.target_dim() == concrete.target_dim(), name);
    BOOST_TEST(v.nll(f, y) == concrete.nll(f, y), name);
    BOOST_TEST(v.batch_nll(F, Y) == concrete.batch_nll(F, Y), name);
    BOOST_TEST((v.output_hessian(f, y) == concrete.output_hessian(f, y)), name);
    BOOST_TEST((v.output_fisher(f) == concrete.output_fisher(f)), name);
    BOOST_TEST((v.predictive_mean(f) == concrete.predictive_mean(f)), name);
    std::mt19937_64 a(3), b(3);
    BOOST_TEST((v.sample_target(f, a) == concrete.sample_target(f, b)), name);
    // Gradients through the held likelihood's Var code, per row and batched.
    const Eigen::VectorXd x = F.reshaped();
    const auto batched = [&](const auto& lik) {
      return [&](const auto& u) {
        using T = typename std::decay_t<decltype(u)>::Scalar;
        const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> M = u.reshaped(F.rows(), F.cols());
        return lik.batch_nll(ad::as_matrix(M), Y);
      };
    };
    BOOST_TEST((ad::gradient(batched(v), x) == ad::gradient(batched(concrete), x)), name);
    check_derivatives(v, f, y);
    check_batch(v, F, Y);
    // The same blocks of θ, initialised the same.
    nn::ParameterLayout lv, lc;
    lv.add("net", 2, 1);
    lc.add("net", 2, 1);
    v.add_parameter_blocks(lv);
    concrete.add_parameter_blocks(lc);
    BOOST_TEST(lv.size() == lc.size(), name);
    Eigen::VectorXd tv = Eigen::VectorXd::Zero(lv.size()), tc = tv;
    v.init_parameters(tv, lv);
    concrete.init_parameters(tc, lc);
    BOOST_TEST((tv == tc), name);
  };
  Eigen::MatrixXd F2(3, 2), Y2(3, 2);
  F2 << 0.1, 0.2, -0.3, 0.4, 1.5, -2.0;
  Y2 << 0.0, 1.0, 2.0, -1.0, 0.5, 0.5;
  same_numbers(nn::GaussianFixedNoise(4.0, 2), vec({0.3, -1.2}), vec({1.1, -0.4}), F2, Y2);
  same_numbers(nn::StudentT(2.0, 3.0, 2), vec({0.3, -1.2}), vec({1.1, -0.4}), F2, Y2);
  Eigen::MatrixXd F1(3, 1), Y1(3, 1);
  F1 << 0.1, -2.0, 3.0;
  Y1 << 0.0, 1.0, 1.0;
  same_numbers(nn::BernoulliLogit(), vec({0.4}), vec({1.0}), F1, Y1);
  Eigen::MatrixXd F3(3, 3), Yc(3, 1);
  F3 << 0.1, 0.2, -0.3, 0.4, 1.5, -2.0, 0.0, 0.1, -0.5;
  Yc << 0.0, 2.0, 1.0;
  same_numbers(nn::SoftmaxCategorical(3), vec({0.2, -1.0, 1.3}), vec({2.0}), F3, Yc);
  // With a parameter of its own (the log-precision, the last entry of f).
  Eigen::MatrixXd Fl(3, 2), Yl(3, 1);
  Fl << 0.1, 0.3, -2.0, -0.2, 3.0, 0.0;
  Yl << 0.5, -1.0, 2.0;
  same_numbers(nn::GaussianLearnedNoise(), vec({0.4, 0.7}), vec({1.0}), Fl, Yl);

  // A network over the variant is the network over the held likelihood.
  nn::Dataset data{Eigen::MatrixXd::Random(7, 2), Eigen::MatrixXd::Random(7, 1)};
  const nn::Sequential net{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 1)};
  const nn::Supervised concrete(net, nn::StudentT(2.0, 3.0), data);
  const nn::Supervised<nn::Sequential, Variant> held(net, nn::StudentT(2.0, 3.0), data);
  std::mt19937_64 rng(11);
  Eigen::VectorXd theta;
  concrete.init(theta, rng);
  BOOST_TEST(held.total_loss(theta) == concrete.total_loss(theta));
  const auto total = [](const auto& model) {
    return [&](const auto& t) { return model.total_loss(t); };
  };
  BOOST_TEST((ad::gradient(total(held), theta) == ad::gradient(total(concrete), theta)));
  BOOST_TEST((ad::hessian(total(held), theta) == ad::hessian(total(concrete), theta)));
  // What the held likelihood rejects, the variant rejects.
  Eigen::MatrixXd bad(2, 1);
  bad << 1.0, 0.5;
  BOOST_CHECK_THROW(Variant(nn::BernoulliLogit()).check_targets(bad), std::invalid_argument);
  BOOST_TEST(Variant(nn::SoftmaxCategorical(4)).get_if<nn::SoftmaxCategorical>()->num_classes() ==
             4);
  BOOST_TEST(Variant(nn::StudentT()).get_if<nn::SoftmaxCategorical>() == nullptr);
}

BOOST_AUTO_TEST_CASE(all_kinds_model_the_likelihood_concept) {
  static_assert(nn::Likelihood<nn::GaussianFixedNoise>);
  static_assert(nn::Likelihood<nn::GaussianLearnedNoise>);
  static_assert(nn::Likelihood<nn::HeteroscedasticGaussian>);
  static_assert(nn::Likelihood<nn::BernoulliLogit>);
  static_assert(nn::Likelihood<nn::SoftmaxCategorical>);
  static_assert(nn::Likelihood<nn::PoissonLog>);
  static_assert(nn::Likelihood<nn::StudentT>);
  static_assert(!nn::Likelihood<int>);
  BOOST_TEST(true);
}

BOOST_AUTO_TEST_SUITE_END()
