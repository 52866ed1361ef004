// ProblemSeeds: one study problem fitted from each of the run's seeds.
//
// `ngvi study --seeds N --seed S` fits every problem × method from the seeds S, S + 1, …,
// S + N − 1; each seed draws its own data, initial weights and Monte-Carlo samples, so
// runs[k] is a whole ProblemRecord (study_records.hpp). The tables summarise the runs as
// mean ± sd, the verdicts decide over them (study_verdicts.hpp), the plots show runs[0] (the
// base seed's), and results.json keeps every run. A problem of the user's own (study_problem.hpp)
// also lists the study's findings that were not evaluated on it, each with the reason
// (finding_coverage.hpp), so that the report never leaves one out silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <app/study/study_records.hpp>

namespace ngvi::app::study {

// A finding of the study that has no verdict on a problem, and why.
struct FindingNotEvaluated {
  std::string finding;  // the claim, in short
  std::string reason;   // what it needs that the problem lacks
};

struct ProblemSeeds {
  std::vector<std::uint64_t> seeds;  // seeds[k] = base seed + k
  std::vector<ProblemRecord> runs;   // runs[k] fitted from seeds[k]; the same problem and methods
  // A user's problem: true, and the findings without a verdict on it (filled after the verdicts).
  bool user_problem = false;
  std::vector<FindingNotEvaluated> not_evaluated;

  const ProblemRecord& base() const { return runs.front(); }
};

}  // namespace ngvi::app::study
