// fit_method (app/methods/fit_method.hpp): sends each method to the file that instantiates it.
#include <app/methods/method_runner.hpp>

namespace ngvi::app {

template <class Model>
FitOutcome fit_method(const Model& model, const FitRequest& request, vi::Rng& rng) {
  switch (request.settings.method) {
    case Method::vogn:
    case Method::von:
    case Method::ivon:
      return detail::fit_natural_gradient(model, request, rng);
    default:
      return detail::fit_baseline(model, request, rng);
  }
}

template FitOutcome fit_method<RegressionModel>(const RegressionModel&, const FitRequest&,
                                                vi::Rng&);
template FitOutcome fit_method<StudentTRegressionModel>(const StudentTRegressionModel&,
                                                        const FitRequest&, vi::Rng&);
template FitOutcome fit_method<ClassificationModel>(const ClassificationModel&, const FitRequest&,
                                                    vi::Rng&);

}  // namespace ngvi::app
