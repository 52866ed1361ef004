// predict_regression / predict_classification (app/methods/predict.hpp).
#include <stdexcept>

#include <app/methods/predict.hpp>

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

}  // namespace

vi::RegressionPredictive predict_regression(const AnyPosterior& q, const RegressionModel& test,
                                            const nn::Standardizer& targets, vi::Rng& rng,
                                            const PredictOptions& options) {
  return regression_predictive(q, test, targets, rng, options);
}

vi::RegressionPredictive predict_regression(const AnyPosterior& q,
                                            const StudentTRegressionModel& test,
                                            const nn::Standardizer& targets, vi::Rng& rng,
                                            const PredictOptions& options) {
  // The GLM predictive's density is Gaussian (inference/predictive.hpp): not this likelihood's.
  if (options.linearised)
    throw std::invalid_argument(
        "ngvi::app::predict_regression: options.linearised is true, but the linearised predictive "
        "is Gaussian; a Student-t model has the Monte-Carlo predictive only");
  const vi::PredictiveOptions p = predictive_options(options);
  return std::visit(
      [&](const auto& posterior) {
        return vi::mc_regression_predictive(test, posterior, targets, rng, p);
      },
      q);
}

vi::ClassificationPredictive predict_classification(const AnyPosterior& q,
                                                    const ClassificationModel& test, vi::Rng& rng,
                                                    const PredictOptions& options) {
  const vi::PredictiveOptions p = predictive_options(options);
  return std::visit(
      [&](const auto& posterior) {
        return options.linearised ? vi::glm_classification_predictive(test, posterior, rng, p)
                                  : vi::mc_classification_predictive(test, posterior, rng, p);
      },
      q);
}

}  // namespace ngvi::app
