// The method suite (method_suites.hpp): the study rows of the method table, each set by its
// `study` mapping on top of the problem's loop and prior δ, so that the study shows the methods
// as a user of the library gets them, with the problem's step sizes.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <app/methods/method_table.hpp>
#include <app/study/method_suites.hpp>
#include <app/study/run_method.hpp>

namespace ngvi::app::study {

std::vector<MethodRecord> run_methods(const ProblemSetup& s) {
  std::vector<MethodRecord> out;
  for_each_method_row([&](const auto& row) {
    using Row = std::decay_t<decltype(row)>;
    using Options = typename Row::options_type;
    if constexpr (!std::is_same_v<typename Row::study_type, NotRun>) {
      if (row.info.full_covariance && !s.full_covariance) return;
      if (s.train->num_params() < row.info.min_parameters) return;
      const Options o = study_options(row, s);
      if constexpr (std::is_same_v<Options, vi::MapOptions>)
        if (row.info.laplace) {
          out.push_back(row.info.last_layer ? run_map_last_layer_laplace(s, row.info.name, o)
                                            : run_map_laplace(s, o));
          return;
        }
      out.push_back(run_method(s, row.info.name, o));
    }
  });
  return out;
}

std::vector<std::pair<std::string, MethodRecord>> run_von_remedies(const ProblemSetup& s) {
  std::vector<std::pair<std::string, MethodRecord>> out;
  auto o = study_options<vi::VonOptions>("von", s);
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
