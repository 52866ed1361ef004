// fit_method (app/methods/fit_method.hpp): sends each method to the file that instantiates it.
#include <app/methods/method_runner.hpp>

namespace ngvi::app {

FitOutcome fit_method(const NetworkModel& model, const FitRequest& request, vi::Rng& rng) {
  switch (request.settings.method) {
    case Method::vogn:
    case Method::von:
    case Method::ivon:
      return detail::fit_natural_gradient(model, request, rng);
    default:
      return detail::fit_baseline(model, request, rng);
  }
}

}  // namespace ngvi::app
