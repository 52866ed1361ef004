// results.json of a study folder: every figure of the run (schema in app/study/README.md).
//
// Schema version 2: every problem keeps each seed's run (`runs`, one per seed) beside a summary
// of its methods over the seeds (mean and sd), and every verdict its statistic per seed, the mean
// with its interval and how many seeds hold. Non-finite numbers (MAP's ELBO of −∞, an RMSE of a
// classification problem, the interval of one seed) are written as null, as nlohmann-json does.
// With `timing` false every wall-time field is left out, so two runs with the same seeds give
// byte-identical files whatever the thread count (the determinism test compares them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <app/study/problem_seeds.hpp>
#include <app/study/study_records.hpp>
#include <app/study/study_verdicts.hpp>
#include <nlohmann/json.hpp>

namespace ngvi::app::study {

struct StudyRun {
  std::vector<std::uint64_t> seeds = {1};  // base seed first, then base + 1, …
  bool quick = false;
  bool timing = true;    // write wall times (false: leave them out, see above)
  double seconds = 0.0;  // of the whole run up to the writing of the folder
  std::vector<ProblemSeeds> problems;
  std::vector<StudyVerdict> verdicts;
};

// The relative path of a method's history CSV from one seed inside the study folder.
inline std::string history_path(const std::string& problem, std::uint64_t seed,
                                const std::string& method) {
  return "history/" + problem + "/seed_" + std::to_string(seed) + "/" + method + ".csv";
}

// Cost: O(size of the records).
nlohmann::json results_json(const StudyRun& run);

}  // namespace ngvi::app::study
