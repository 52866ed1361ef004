// The method suite (method_suites.hpp): the study rows of the method table, each set by its
// `study` mapping on top of the problem's loop and prior δ, so that the study shows the methods
// as a user of the library gets them, with the problem's step sizes.
#include <string>
#include <type_traits>
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
      const Options o = study_options(row, s);
      if constexpr (std::is_same_v<Options, vi::MapOptions>)
        if (row.info.laplace) {
          out.push_back(run_map_laplace(s, o));
          return;
        }
      out.push_back(run_method(s, row.info.name, o));
    }
  });
  return out;
}

}  // namespace ngvi::app::study
