// The natural-gradient suite (method_suites.hpp): VON and VOGN in their variants.
#include <utility>
#include <vector>

#include <app/study/method_suites.hpp>
#include <app/study/run_method.hpp>
#include <app/study/suite_options.hpp>

#include <inference/vogn.hpp>
#include <inference/von.hpp>

namespace ngvi::app::study {

std::vector<MethodRecord> run_natural_gradient_methods(const ProblemSetup& s) {
  std::vector<MethodRecord> out;
  if (s.full_covariance) out.push_back(run_method(s, "von", natural_options<vi::VonOptions>(s)));
  out.push_back(run_method(s, "von_diagonal", natural_options<vi::DiagonalVonOptions>(s)));
  if (s.full_covariance) {
    auto o = natural_options<vi::FullVognOptions>(s);
    o.curvature = vi::VognCurvature::ggn;
    out.push_back(run_method(s, "vogn_full_ggn", o));
  }
  const std::pair<const char*, vi::VognCurvature> diagonal[] = {
      {"vogn_ggn", vi::VognCurvature::ggn},
      {"vogn_empirical_fisher", vi::VognCurvature::empirical_fisher},
      {"vogn_mc_fisher", vi::VognCurvature::mc_fisher}};
  for (const auto& [key, curvature] : diagonal) {
    auto o = natural_options<vi::VognOptions>(s);
    o.curvature = curvature;
    out.push_back(run_method(s, key, o));
  }
  return out;
}

}  // namespace ngvi::app::study
