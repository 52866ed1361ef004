// results.json of a study folder: every figure of the run (schema in app/study/README.md).
//
// Non-finite numbers (MAP's ELBO of −∞, an RMSE of a classification problem) are written as
// null, as nlohmann-json does. With `timing` false every wall-time field is left out, so two
// runs with the same seed give byte-identical files whatever the thread count (the determinism
// test compares them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <app/study/study_records.hpp>
#include <app/study/study_verdicts.hpp>
#include <nlohmann/json.hpp>

namespace ngvi::app::study {

struct StudyRun {
  std::uint64_t seed = 1;
  bool quick = false;
  bool timing = true;    // write wall times (false: leave them out, see above)
  double seconds = 0.0;  // of the whole run up to the writing of the folder
  std::vector<ProblemRecord> problems;
  std::vector<StudyVerdict> verdicts;
};

// The relative path of a method's history CSV inside the study folder.
inline std::string history_path(const std::string& problem, const std::string& method) {
  return "history/" + problem + "/" + method + ".csv";
}

// Cost: O(size of the records).
nlohmann::json results_json(const StudyRun& run);

}  // namespace ngvi::app::study
