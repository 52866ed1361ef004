// ProblemSeeds: one study problem fitted from each of the run's seeds.
//
// `ngvi study --seeds N --seed S` fits every problem × method from the seeds S, S + 1, …,
// S + N − 1; each seed draws its own data, initial weights and Monte-Carlo samples, so
// runs[k] is a whole ProblemRecord (study_records.hpp). The tables summarise the runs as
// mean ± sd, the verdicts decide over them (study_verdicts.hpp), the plots show runs[0] (the
// base seed's), and results.json keeps every run.
#pragma once

#include <cstdint>
#include <vector>

#include <app/study/study_records.hpp>

namespace ngvi::app::study {

struct ProblemSeeds {
  std::vector<std::uint64_t> seeds;  // seeds[k] = base seed + k
  std::vector<ProblemRecord> runs;   // runs[k] fitted from seeds[k]; the same problem and methods

  const ProblemRecord& base() const { return runs.front(); }
};

}  // namespace ngvi::app::study
