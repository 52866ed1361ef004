// Predictive distributions of a fitted posterior on held-out data, and the metrics reported
// from them: test log-likelihood, RMSE, accuracy, NLL, calibration.
//
// The held-out data come as a TEST MODEL: the trained model's network and likelihood over the
// test examples (for nn::Supervised, `nn::Supervised(model.net(), model.likelihood(), test)`;
// the problems in inference/problems/ hand one out). θ means the same thing in both, so any
// posterior over θ predicts through it, and its data().Y are the test targets.
//
// Monte-Carlo predictive: θₛ ~ q, s = 1..S, and per example
//   p(yᵢ | D) ≈ (1/S) Σₛ p(yᵢ | fᵢ(θₛ)),  log p(yᵢ | D) by log-mean-exp (stable in log space),
// averaged over the test examples to the test log-likelihood. For regression (a Gaussian
// likelihood: mean μ(f), variance σ²(f)) the predictive is the mixture Σₛ N(μₛ, σ²ₛ)/S with
//   mean E[μ] = (1/S) Σₛ μₛ,  variance E[σ²] + Var[μ] (the law of total variance, Var over the
//   S draws with divisor S),
// and the RMSE is that of the predictive mean. Both are accumulated one draw at a time — the
// log-mean-exp with a running maximum, Var[μ] by Welford's update (Welford 1962) — so the
// memory is O(N*) whatever S (a 10⁶-row table at S = 100 would need 1.6 GB as N*×S matrices).
// Regression targets are standardised with the TRAINING statistics (nn/dataset.hpp): the caller
// passes that nn::Standardizer and every reported number is in ORIGINAL units — mean·scale + shift,
// variance·scale², and log p(y_orig) = log p(y_std) − Σ log scale. For classification
// (Bernoulli-logit, softmax) the class probabilities are the sample average of the likelihood's
// predictive_mean, scored by classification_metrics.hpp.
//
// Linearised (GLM) predictive for a posterior with a covariance, e.g. the Laplace approximation
// (Immer et al. 2021, "Improving predictions of Bayesian neural nets via local linearization"):
// f(θ) ≈ f(θ*) + Jᵢ(θ − θ*) at θ* = E_q[θ], so fᵢ ~ N(fᵢ(θ*), Jᵢ Σ Jᵢᵀ) exactly under q, with
// Jᵢ the output Jacobian (nn::per_example_jacobians). Regression: y ~ N(μ(fᵢ*), diag(JᵢΣJᵢᵀ)_μ +
// σ²(fᵢ*)) — exact for a fixed-noise Gaussian (the noise does not depend on θ); for a learned or
// heteroscedastic noise the noise is taken at θ* (its own uncertainty under q is ignored: an
// approximation). Classification: fᵢ drawn from that Gaussian in output space (S draws per
// example), then as the Monte-Carlo predictive.
//
// All draws happen on the calling thread in a fixed order (samples outer, nothing else), so a
// seed gives the same numbers for any thread count.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include <inference/classification_metrics.hpp>
#include <inference/option_checks.hpp>
#include <inference/predictive_declaration.hpp>
#include <inference/random.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/output_jacobians.hpp>
#include <nn/dataset.hpp>
#include <nn/example_indices.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/per_example.hpp>
#include <nn/supervised.hpp>

namespace ngvi::vi {

// log((1/n) Σ exp(aₖ)), shifted by the maximum so that it neither overflows nor underflows.
// −∞ if every aₖ is −∞. Throws std::invalid_argument for an empty a. Cost: O(n).
template <int = 0>
double log_mean_exp(const Eigen::Ref<const Eigen::VectorXd>& a) {
  if (a.size() == 0) throw std::invalid_argument("ngvi::vi::log_mean_exp: no terms");
  const double m = a.maxCoeff();
  if (!std::isfinite(m)) return m;
  return m + std::log((a.array() - m).exp().sum() / static_cast<double>(a.size()));
}

// log((1/S) Σₛ exp(ℓᵢₛ)) for every row i of an N×S array that is never stored, accumulated one
// term at a time: the running maximum mᵢ and Σₛ exp(ℓᵢₛ − mᵢ), rescaled when the maximum moves.
// Agrees with log_mean_exp on each whole row to round-off (−∞ if every term is −∞, +∞ if one
// is, NaN if one is NaN). Cost: O(N) memory, O(1) per term.
class RunningLogMeanExp {
 public:
  template <int = 0>
  explicit RunningLogMeanExp(Eigen::Index n)
      : max_(Eigen::VectorXd::Constant(n, -std::numeric_limits<double>::infinity())),
        sum_(Eigen::VectorXd::Zero(n)) {}

  // Adds the term ℓ to row i.
  template <int = 0>
  void add(Eigen::Index i, double l) {
    double& m = max_(i);
    if (std::isnan(m) || l == -std::numeric_limits<double>::infinity()) return;
    if (std::isnan(l) || l > m) {
      sum_(i) = sum_(i) * std::exp(m - l) + 1.0;  // exp(−∞) = 0 on the first finite term
      m = l;
    } else if (std::isfinite(m)) {
      sum_(i) += std::exp(l - m);
    }
  }

  // The log-mean-exp of each row, `terms` (≥ 1) being the number of terms S of every row.
  template <int = 0>
  Eigen::VectorXd result(int terms) const {
    Eigen::VectorXd r(max_.size());
    for (Eigen::Index i = 0; i < r.size(); ++i)
      r(i) = std::isfinite(max_(i)) ? max_(i) + std::log(sum_(i) / static_cast<double>(terms))
                                    : max_(i);
    return r;
  }

 private:
  Eigen::VectorXd max_, sum_;
};

namespace detail {

template <class TestModel>
using likelihood_of = std::remove_cvref_t<decltype(std::declval<const TestModel&>().likelihood())>;

template <class TestModel>
constexpr bool require_test_model() {
  static_assert(nn::OutputLikelihoodModel<TestModel>,
                "ngvi::vi predictive: the test model needs example_output(theta, i), output_dim(), "
                "likelihood() and data().Y (an nn::Supervised over the test data has them)");
  return true;
}

template <class TestModel, class Posterior>
void check_predictive_inputs(const TestModel& test, const Posterior& q, const PredictiveOptions& o,
                             const char* who) {
  const std::string w = std::string("ngvi::vi::") + who;
  if (test.num_examples() < 1) throw std::invalid_argument(w + ": the test model has no examples");
  if (q.dim() != test.num_params())
    throw std::invalid_argument(w + ": the posterior is over " + std::to_string(q.dim()) +
                                " parameters, the test model has " +
                                std::to_string(test.num_params()));
  detail::check_at_least(w, "samples", o.samples, 1);
}

template <int = 0>
void check_target_scaling(const nn::Standardizer& targets, Eigen::Index d, const char* who) {
  if (targets.mean.size() != d || targets.scale.size() != d)
    throw std::invalid_argument(std::string("ngvi::vi::") + who + ": the target standardizer has " +
                                std::to_string(targets.mean.size()) + " columns, the targets " +
                                std::to_string(d));
  if (!targets.mean.allFinite() || !(targets.scale.array() > 0.0).all() ||
      !targets.scale.allFinite())
    throw std::invalid_argument(std::string("ngvi::vi::") + who +
                                ": the target standardizer needs finite shifts and positive, "
                                "finite scales");
}

// Draws θₛ ~ q, s = 0..S−1 in order, calls visit(s, first, F) with the outputs F of each draw on
// the test rows first .. first + F.rows() − 1 (consecutive blocks of nn::rows_per_forward_pass
// rows, in order), and returns log p(yᵢ | D) ≈ log((1/S) Σₛ p(yᵢ | fᵢ(θₛ))) for every test
// example. The draws and the numbers do not depend on the block size. Cost: S draws from q and
// S batched forward passes; O(N*) memory besides one block's activations.
template <class TestModel, class Posterior, class Visit>
Eigen::VectorXd predictive_log_likelihoods(const TestModel& test, const Posterior& q, int samples,
                                           Rng& rng, Visit&& visit) {
  const auto& lik = test.likelihood();
  const Eigen::MatrixXd& Y = test.data().Y;
  const Eigen::Index n = test.num_examples();
  RunningLogMeanExp ll(n);
  std::vector<Eigen::Index> rows;
  for (int s = 0; s < samples; ++s) {
    const Eigen::VectorXd theta = q.sample(rng);
    for (Eigen::Index first = 0; first < n; first += nn::rows_per_forward_pass) {
      rows.resize(static_cast<std::size_t>(std::min(nn::rows_per_forward_pass, n - first)));
      for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = first + static_cast<Eigen::Index>(k);
      const Eigen::MatrixXd F = nn::detail::outputs_at(test, theta, rows);
      for (Eigen::Index k = 0; k < F.rows(); ++k)
        ll.add(first + k, -lik.nll(Eigen::VectorXd(F.row(k).transpose()),
                                   Eigen::VectorXd(Y.row(first + k).transpose())));
      visit(s, first, F);
    }
  }
  return ll.result(samples);
}

// Class probabilities p(y = c | f) for one output f: (1 − σ(f), σ(f)) for a one-output
// Bernoulli-logit, softmax(f) for a softmax likelihood.
template <class Lik>
Eigen::VectorXd class_probabilities(const Lik& lik, const Eigen::VectorXd& f) {
  const Eigen::VectorXd p = lik.predictive_mean(f);
  if constexpr (requires { lik.num_classes(); }) {
    return p;
  } else {
    Eigen::VectorXd two(2);
    two << 1.0 - p(0), p(0);
    return two;
  }
}

template <class Lik>
Eigen::Index number_of_classes(const Lik& lik) {
  static_assert(
      requires { lik.num_classes(); } || std::is_same_v<Lik, nn::BernoulliLogit>,
      "ngvi::vi classification predictive: the likelihood must be nn::BernoulliLogit "
      "(one output) or nn::SoftmaxCategorical");
  if constexpr (requires { lik.num_classes(); }) {
    return lik.num_classes();
  } else {
    if (lik.output_dim() != 1)
      throw std::invalid_argument(
          "ngvi::vi classification predictive: a Bernoulli-logit likelihood with " +
          std::to_string(lik.output_dim()) +
          " outputs is multi-label, not a classifier; use one output per model");
    return 2;
  }
}

template <int = 0>
void finish_regression(RegressionPredictive& r, const Eigen::MatrixXd& Y_std,
                       const nn::Standardizer& targets) {
  // Back to original units: y = y_std·scale + shift; log densities lose Σ log scale.
  r.mean = targets.inverse_transform(r.mean);
  r.variance = targets.inverse_transform_variance(r.variance);
  r.log_likelihood.array() -= targets.log_jacobian();
  const Eigen::MatrixXd Y = targets.inverse_transform(Y_std);
  r.test_log_likelihood = r.log_likelihood.mean();
  r.rmse = std::sqrt((Y - r.mean).squaredNorm() / static_cast<double>(Y.size()));
}

template <int = 0>
void finish_classification(ClassificationPredictive& c, const Eigen::MatrixXd& Y, int bins) {
  c.metrics = classification_metrics(c.probabilities, Y.col(0), bins);
}

// Jᵢ Σ Jᵢᵀ for every test example (m×m each) and the outputs fᵢ(θ*), θ* = q.mean().
// Cost: nn::per_example_jacobians on the test model + N*·(m·P² + m²·P) flops + q.covariance().
template <class TestModel, class Posterior>
std::vector<Eigen::MatrixXd> output_covariances(const TestModel& test, const Posterior& q,
                                                const ad::ParallelOptions& parallel,
                                                Eigen::MatrixXd& outputs) {
  const Eigen::VectorXd theta = q.mean();
  const Eigen::MatrixXd Sigma = q.covariance();
  ad::RowMatrixXd J;
  nn::per_example_jacobians(test, theta, J, parallel);
  outputs = nn::detail::outputs_at(test, theta, nn::all_examples(test.num_examples()));
  const Eigen::Index m = test.output_dim();
  std::vector<Eigen::MatrixXd> C(static_cast<std::size_t>(test.num_examples()));
  for (Eigen::Index i = 0; i < test.num_examples(); ++i) {
    const Eigen::MatrixXd Ji = J.middleRows(i * m, m);
    C[static_cast<std::size_t>(i)] = Ji * Sigma * Ji.transpose();
  }
  return C;
}

}  // namespace detail

// Monte-Carlo regression predictive of q on the test model (see the top of this file).
// `targets` is the TRAINING target standardizer (nn::Standardizer::identity(d) if the targets
// were not standardised). The likelihood must have predictive_variance (the Gaussian ones).
// Throws std::invalid_argument for an empty test set, a posterior of another dimension,
// samples < 1 or a standardizer of another width. Cost: S draws from q and S batched forward
// passes over the test set; O(N*·(m + d)) memory, whatever S.
template <class TestModel, class Posterior>
RegressionPredictive mc_regression_predictive(const TestModel& test, const Posterior& q,
                                              const nn::Standardizer& targets, Rng& rng,
                                              const PredictiveOptions& options) {
  static_assert(detail::require_test_model<TestModel>());
  const auto& lik = test.likelihood();
  static_assert(
      requires(const Eigen::VectorXd& f) { lik.predictive_variance(f); },
      "ngvi::vi::mc_regression_predictive: the likelihood needs predictive_variance(f) "
      "(a Gaussian likelihood); use mc_classification_predictive for classifiers");
  detail::check_predictive_inputs(test, q, options, "mc_regression_predictive");
  const Eigen::Index n = test.num_examples(), d = lik.target_dim();
  detail::check_target_scaling(targets, d, "mc_regression_predictive");
  const int S = options.samples;
  // Welford's update of the mean and of M2 = Σₛ (μₛ − mean)² over the draws, per entry.
  RegressionPredictive r;
  r.mean = Eigen::MatrixXd::Zero(n, d);
  Eigen::MatrixXd m2 = Eigen::MatrixXd::Zero(n, d), noise = m2;
  r.log_likelihood = detail::predictive_log_likelihoods(
      test, q, S, rng, [&](int s, Eigen::Index first, const Eigen::MatrixXd& F) {
        for (Eigen::Index i = first; i < first + F.rows(); ++i) {
          const Eigen::VectorXd f = F.row(i - first).transpose();
          const Eigen::VectorXd mu = lik.predictive_mean(f);
          const Eigen::VectorXd before = r.mean.row(i).transpose();
          r.mean.row(i) += ((mu - before) / static_cast<double>(s + 1)).transpose();
          m2.row(i) += (mu - before).cwiseProduct(mu - r.mean.row(i).transpose()).transpose();
          noise.row(i) += lik.predictive_variance(f).transpose();
        }
      });
  // E[σ²] + Var[μ] (divisor S).
  r.variance = (noise + m2) / S;
  detail::finish_regression(r, test.data().Y, targets);
  return r;
}

// Monte-Carlo classification predictive of q on the test model: class probabilities averaged
// over θₛ ~ q, log p(yᵢ | D) by log-mean-exp, and accuracy, NLL and ECE. The likelihood must be
// nn::BernoulliLogit with one output or nn::SoftmaxCategorical (checked at compile time and for
// the Bernoulli width at run time). Throws as mc_regression_predictive.
// Cost: S draws from q and S batched forward passes over the test set.
template <class TestModel, class Posterior>
ClassificationPredictive mc_classification_predictive(const TestModel& test, const Posterior& q,
                                                      Rng& rng, const PredictiveOptions& options) {
  static_assert(detail::require_test_model<TestModel>());
  detail::check_predictive_inputs(test, q, options, "mc_classification_predictive");
  const auto& lik = test.likelihood();
  const Eigen::Index n = test.num_examples(), C = detail::number_of_classes(lik);
  ClassificationPredictive c;
  c.probabilities = Eigen::MatrixXd::Zero(n, C);
  c.log_likelihood = detail::predictive_log_likelihoods(
      test, q, options.samples, rng, [&](int, Eigen::Index first, const Eigen::MatrixXd& F) {
        for (Eigen::Index k = 0; k < F.rows(); ++k)
          c.probabilities.row(first + k) +=
              detail::class_probabilities(lik, Eigen::VectorXd(F.row(k).transpose())).transpose();
      });
  c.probabilities /= options.samples;
  detail::finish_classification(c, test.data().Y, options.calibration_bins);
  return c;
}

// Linearised (GLM) regression predictive of a posterior with a covariance (FullGaussian,
// DiagonalGaussian) at θ* = q.mean(): mean μ(fᵢ(θ*)), variance diag(JᵢΣJᵢᵀ) over the mean
// outputs + σ²(fᵢ(θ*)), log-likelihood that Gaussian's density; all in original units. Exact
// for a model linear in θ with a fixed-noise Gaussian. The mean outputs are the first d entries
// of f (as for every Gaussian likelihood of nn/). Throws as mc_regression_predictive.
// Cost: q.covariance(), the test model's per-example Jacobians and N*·(m·P² + m²·P) flops.
template <class TestModel, class Posterior>
RegressionPredictive glm_regression_predictive(const TestModel& test, const Posterior& q,
                                               const nn::Standardizer& targets,
                                               const PredictiveOptions& options) {
  static_assert(detail::require_test_model<TestModel>());
  const auto& lik = test.likelihood();
  static_assert(
      requires(const Eigen::VectorXd& f) { lik.predictive_variance(f); },
      "ngvi::vi::glm_regression_predictive: the likelihood needs predictive_variance(f) "
      "(a Gaussian likelihood); use glm_classification_predictive for classifiers");
  detail::check_predictive_inputs(test, q, options, "glm_regression_predictive");
  const Eigen::Index n = test.num_examples(), d = lik.target_dim();
  detail::check_target_scaling(targets, d, "glm_regression_predictive");
  Eigen::MatrixXd F;
  const std::vector<Eigen::MatrixXd> C =
      detail::output_covariances(test, q, ad::parallel_options(options), F);
  const Eigen::MatrixXd& Y = test.data().Y;
  RegressionPredictive r;
  r.mean.resize(n, d);
  r.variance.resize(n, d);
  r.log_likelihood.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::VectorXd f = F.row(i).transpose();
    const Eigen::VectorXd mu = lik.predictive_mean(f);
    const Eigen::VectorXd var =
        C[static_cast<std::size_t>(i)].diagonal().head(d) + lik.predictive_variance(f);
    r.mean.row(i) = mu.transpose();
    r.variance.row(i) = var.transpose();
    const Eigen::ArrayXd z2 = (Y.row(i).transpose() - mu).array().square() / var.array();
    r.log_likelihood(i) = -0.5 * (z2 + var.array().log() + std::log(2.0 * std::numbers::pi)).sum();
  }
  detail::finish_regression(r, Y, targets);
  return r;
}

// Linearised (GLM) classification predictive at θ* = q.mean(): per example S draws
// fᵢ ~ N(fᵢ(θ*), JᵢΣJᵢᵀ) in output space (through the symmetric square root of JᵢΣJᵢᵀ, whose
// eigenvalues below 0 — rounding of a PSD matrix — are set to 0), then as
// mc_classification_predictive. Throws as mc_classification_predictive.
// Cost: that of the GLM regression predictive + N*·S·(m² flops + m draws + one likelihood).
template <class TestModel, class Posterior>
ClassificationPredictive glm_classification_predictive(const TestModel& test, const Posterior& q,
                                                       Rng& rng, const PredictiveOptions& options) {
  static_assert(detail::require_test_model<TestModel>());
  detail::check_predictive_inputs(test, q, options, "glm_classification_predictive");
  const auto& lik = test.likelihood();
  const Eigen::Index n = test.num_examples(), C = detail::number_of_classes(lik);
  Eigen::MatrixXd F;
  const std::vector<Eigen::MatrixXd> cov =
      detail::output_covariances(test, q, ad::parallel_options(options), F);
  const Eigen::MatrixXd& Y = test.data().Y;
  const int S = options.samples;
  ClassificationPredictive c;
  c.probabilities = Eigen::MatrixXd::Zero(n, C);
  c.log_likelihood.resize(n);
  Eigen::VectorXd ll(S);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov[static_cast<std::size_t>(i)]);
    const Eigen::MatrixXd root =
        eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal();
    const Eigen::VectorXd f0 = F.row(i).transpose(), y = Y.row(i).transpose();
    for (int s = 0; s < S; ++s) {
      const Eigen::VectorXd f = f0 + root * standard_normal(rng, f0.size());
      ll(s) = -lik.nll(f, y);
      c.probabilities.row(i) += detail::class_probabilities(lik, f).transpose();
    }
    c.log_likelihood(i) = log_mean_exp(ll);
  }
  c.probabilities /= S;
  detail::finish_classification(c, Y, options.calibration_bins);
  return c;
}

}  // namespace ngvi::vi
