// The baseline suite (method_suites.hpp) instantiated for the regression model.
#include <app/study/method_suites.hpp>
#include <app/study/suite_templates.hpp>

namespace ngvi::app::study {

std::vector<MethodRecord> run_baseline_methods(const ProblemSetup<RegressionModel>& setup) {
  return baseline_suite(setup);
}

}  // namespace ngvi::app::study
