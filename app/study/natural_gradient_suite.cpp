// The natural-gradient suite (method_suites.hpp): VON and VOGN in their variants.
#include <string>
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

std::vector<std::pair<std::string, MethodRecord>> run_von_remedies(const ProblemSetup& s) {
  std::vector<std::pair<std::string, MethodRecord>> out;
  auto o = natural_options<vi::VonOptions>(s);
  const Eigen::Index n = s.train->num_examples();
  const Eigen::Index m = s.loop.minibatch > 0 && s.loop.minibatch < n ? s.loop.minibatch : n;
  o.loop.history_every = s.loop.epochs * ((n + m - 1) / m);
  const std::pair<const char*, vi::VonRemedy> remedies[] = {
      {"fail", vi::VonRemedy::fail},
      {"reject_step", vi::VonRemedy::reject_step},
      {"damp_step", vi::VonRemedy::damp_step},
      {"add_damping", vi::VonRemedy::add_damping},
      {"ggn_fallback", vi::VonRemedy::ggn_fallback}};
  for (const auto& [name, remedy] : remedies) {
    o.remedy = remedy;
    out.emplace_back(name, run_method(s, "von", o));
  }
  return out;
}

}  // namespace ngvi::app::study
