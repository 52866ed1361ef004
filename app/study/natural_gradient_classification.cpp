// The natural-gradient suite (method_suites.hpp) instantiated for the classification model.
#include <app/study/method_suites.hpp>
#include <app/study/suite_templates.hpp>

namespace ngvi::app::study {

std::vector<MethodRecord> run_natural_gradient_methods(
    const ProblemSetup<ClassificationModel>& setup) {
  return natural_gradient_suite(setup);
}

}  // namespace ngvi::app::study
