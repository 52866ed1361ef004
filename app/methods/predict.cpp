// predict_regression / predict_classification (app/methods/predict.hpp).
#include <stdexcept>
#include <string>

#include <app/methods/predict.hpp>

#include <inference/hmc.hpp>

namespace ngvi::app {

namespace {

vi::PredictiveOptions predictive_options(const PredictOptions& o) {
  vi::PredictiveOptions p;
  p.samples = o.samples;
  p.threads = o.threads;
  return p;
}

template <class Model>
vi::RegressionPredictive regression_predictive(const AnyPosterior& q, const Model& test,
                                               const nn::Standardizer& targets, vi::Rng& rng,
                                               const PredictOptions& options) {
  const vi::PredictiveOptions p = predictive_options(options);
  return std::visit(
      [&](const auto& posterior) {
        return options.linearised ? vi::glm_regression_predictive(test, posterior, targets, p)
                                  : vi::mc_regression_predictive(test, posterior, targets, rng, p);
      },
      q);
}

std::string not_a(const NetworkModel& test, const char* fn, const char* expected) {
  return std::string("ngvi::app::") + fn + ": the test model's likelihood is " +
         std::string(test.likelihood().held_name()) + ", expected " + expected;
}

}  // namespace

vi::RegressionPredictive predict_regression(const AnyPosterior& q, const NetworkModel& test,
                                            const nn::Standardizer& targets, vi::Rng& rng,
                                            const PredictOptions& options) {
  if (const auto* gaussian = test.likelihood().get_if<nn::GaussianFixedNoise>())
    return regression_predictive(q, with_likelihood(test, *gaussian), targets, rng, options);
  const auto* student = test.likelihood().get_if<nn::StudentT>();
  if (student == nullptr)
    throw std::invalid_argument(not_a(test, "predict_regression", "gaussian or student_t"));
  // The GLM predictive's density is Gaussian (inference/predictive.hpp): not this likelihood's.
  if (options.linearised)
    throw std::invalid_argument(
        "ngvi::app::predict_regression: options.linearised is true, but the linearised predictive "
        "is Gaussian; a Student-t model has the Monte-Carlo predictive only");
  const vi::PredictiveOptions p = predictive_options(options);
  const auto model = with_likelihood(test, *student);
  return std::visit(
      [&](const auto& posterior) {
        return vi::mc_regression_predictive(model, posterior, targets, rng, p);
      },
      q);
}

HmcPredictive hmc_predict_regression(const NetworkModel& train, const NetworkModel& test,
                                     const nn::Standardizer& targets, const Eigen::VectorXd& start,
                                     vi::Rng& rng, const HmcPredictOptions& options) {
  const auto* gaussian = test.likelihood().get_if<nn::GaussianFixedNoise>();
  if (gaussian == nullptr || !train.likelihood().holds<nn::GaussianFixedNoise>())
    throw std::invalid_argument(not_a(test, "hmc_predict_regression", "gaussian"));
  vi::HmcOptions o;
  o.algorithm = vi::HmcAlgorithm::nuts;
  o.chains = options.chains;
  o.warmup = options.warmup;
  o.draws = options.draws;
  o.max_tree_depth = options.max_tree_depth;
  o.prior_precision = options.prior_precision;
  o.initial = start;
  const vi::HmcResult r = vi::hmc(train, o, rng);
  vi::PredictiveOptions p;
  p.samples = options.samples;
  p.threads = 1;
  return {vi::mc_regression_predictive(with_likelihood(test, *gaussian), vi::DrawsPosterior(r),
                                       targets, rng, p),
          r.max_rhat(), r.divergences};
}

vi::ClassificationPredictive predict_classification(const AnyPosterior& q, const NetworkModel& test,
                                                    vi::Rng& rng, const PredictOptions& options) {
  const auto* softmax = test.likelihood().get_if<nn::SoftmaxCategorical>();
  if (softmax == nullptr)
    throw std::invalid_argument(not_a(test, "predict_classification", "softmax_categorical"));
  const vi::PredictiveOptions p = predictive_options(options);
  const auto model = with_likelihood(test, *softmax);
  return std::visit(
      [&](const auto& posterior) {
        return options.linearised ? vi::glm_classification_predictive(model, posterior, rng, p)
                                  : vi::mc_classification_predictive(model, posterior, rng, p);
      },
      q);
}

}  // namespace ngvi::app
