// The study's verdicts: claims about the methods and curvatures, each confirmed or refuted by the
// numbers of this run, with the numbers.
//
// Claims (each made only where the run has the data for it):
//   * the GGN, the empirical Fisher, the MC Fisher and K-FAC approach the Hessian as training
//     goes on (relative Frobenius error at the last point of the MAP trajectory at most
//     approach_factor times the first);
//   * the empirical Fisher is a worse Hessian approximation than the GGN at the MAP;
//   * VON (full) and full VOGN with the GGN reach the exact posterior of the conjugate problem,
//     diagonal VON and diagonal VOGN with the GGN its mean-field optimum (mean and standard
//     deviations within 1e-6 relative);
//   * IVON's Hessian estimate stays near its initial value h₀ (it covered less than half of the
//     way from h₀ to the exact Hessian's mean diagonal), and β₂ = 0.999 estimates it better;
//   * where an approximation is exact for the model (GGN of a linear model or a GLM), that it
//     equals the Hessian throughout;
//   * VON's running precision tracks the exact Hessian more closely than VOGN's empirical Fisher
//     (relative error of the diagonals at the end);
//   * natural-gradient VI reaches a higher final ELBO than Bayes-by-backprop in the same number
//     of iterations.
#pragma once

#include <string>
#include <vector>

#include <app/study/study_records.hpp>

namespace ngvi::app::study {

struct StudyVerdict {
  std::string problem;  // a problem key
  std::string claim;
  bool confirmed = false;
  std::string evidence;  // the numbers
};

// Tolerance of "reaches the exact posterior": the largest relative error of the mean (relative to
// the largest |mean|) and of the standard deviations.
inline constexpr double exact_posterior_tolerance = 1e-6;

// "Approaches the Hessian" needs the relative error to drop by at least 10% over the MAP run, so
// that sampling noise (the MC Fisher's 16 draws) or a flat curve does not count as approaching.
inline constexpr double approach_factor = 0.9;

// An approximation whose relative error stays below this along the whole MAP run is the Hessian
// itself for that model (the GGN of a model linear in θ, or of a GLM such as logistic
// regression): the verdict then says so instead of claiming it approaches the Hessian.
inline constexpr double exact_curvature_tolerance = 1e-10;

// Cost: O(size of the records).
std::vector<StudyVerdict> study_verdicts(const std::vector<ProblemRecord>& problems);

// A method's largest errors against the problem's reference posterior: max |μ − μ_ref| / max
// |μ_ref| and max |sd/sd_ref − 1| (against the mean-field optimum's sd when `mean_field`).
struct ReferenceError {
  double mean = 0.0, sd = 0.0;
};
ReferenceError reference_error(const MethodRecord& m, const ReferencePosterior& ref,
                               bool mean_field);

}  // namespace ngvi::app::study
