// predict_regression / predict_classification (app/methods/predict.hpp).
#include <app/methods/predict.hpp>

namespace ngvi::app {

namespace {

vi::PredictiveOptions predictive_options(const PredictOptions& o) {
  vi::PredictiveOptions p;
  p.samples = o.samples;
  p.parallel.threads = o.threads;
  return p;
}

}  // namespace

vi::RegressionPredictive predict_regression(const AnyPosterior& q, const RegressionModel& test,
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
