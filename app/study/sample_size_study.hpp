// The Monte-Carlo error of VON and VOGN at their fixed points as the number S of samples per step
// grows: the data of the study's finding "the error falls as 1/√S" on the linear models, whose
// Gaussian VI optimum q* is known (study_records.hpp, GaussianOptimum).
//
// VON and VOGN estimate E_q[∇ℓ] and E_q[∇²ℓ] (or the GGN) from S draws θₛ ~ q per step; with
// constant step sizes their iterates do not settle at q* but fluctuate around it, and the
// fluctuation is the Monte-Carlo error of the S-sample estimates, of variance ∝ 1/S (Khan et al.
// 2018, whose VON and VOGN approximate the expectations by S samples; Khan & Rue 2023, the
// Bayesian learning rule, whose natural-gradient updates do the same). The study refits, on each
// linear problem with its own loop and step sizes, two methods with S = 1, 4, 16 and 64 and nothing
// else changed:
//   * VON (full covariance) against the full-covariance optimum q*;
//   * VOGN with the GGN (diagonal, Khan et al. 2018's mean-field method) against the mean-field
//     optimum.
// (On these GLMs the GGN is the Hessian, so full VOGN (GGN) would repeat VON and diagonal VON
// would repeat diagonal VOGN: the two runs cover both methods and both families.) The error of a
// fit is
//   e(S) = √( mean over the iterations t of the run's last half of KL(q_t ‖ q*) ),
// the root-mean-square distance of the iterates from q* at stationarity in the KL's units (for a
// small error KL ≈ ½ of a squared Mahalanobis distance, so e ∝ 1/√S is expected); averaging over
// the last half's iterations makes it a low-variance measurement of the fluctuation (a single
// final iterate would be one draw of it). The finding's statistic per seed is the least-squares
// slope of log e(S) on log S: −½ for e ∝ 1/√S.
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {

// S, the Monte-Carlo samples per step of the refits.
inline constexpr std::array<int, 4> sample_size_values = {1, 4, 16, 64};

// The least-squares slope of log(error) on log(samples) over the pairs; NaN when an error is not
// finite and positive. Throws std::invalid_argument for fewer than two pairs, sizes that differ
// or samples that are not positive and distinct. Cost: O(n).
inline double log_log_slope(const std::vector<int>& samples, const std::vector<double>& error) {
  if (samples.size() != error.size() || samples.size() < 2)
    throw std::invalid_argument(
        fmt::format("ngvi::app::study::log_log_slope: {} sample sizes and {} errors (need as "
                    "many, at least two)",
                    samples.size(), error.size()));
  const double n = static_cast<double>(samples.size());
  double mx = 0.0, my = 0.0;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    if (samples[k] < 1)
      throw std::invalid_argument(fmt::format(
          "ngvi::app::study::log_log_slope: samples[{}] = {} (need ≥ 1)", k, samples[k]));
    if (!(std::isfinite(error[k]) && error[k] > 0.0))
      return std::numeric_limits<double>::quiet_NaN();
    mx += std::log(static_cast<double>(samples[k])) / n;
    my += std::log(error[k]) / n;
  }
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    const double dx = std::log(static_cast<double>(samples[k])) - mx;
    sxy += dx * (std::log(error[k]) - my);
    sxx += dx * dx;
  }
  if (sxx == 0.0)
    throw std::invalid_argument(
        "ngvi::app::study::log_log_slope: the sample sizes are all equal (no slope)");
  return sxy / sxx;
}

// Refits VON (full) and diagonal VOGN (GGN) on the setup's problem for each S of
// sample_size_values, each from the setup's seed with the problem's loop and step sizes (no
// history rows but the last), and measures e(S) against `optimum` (see the top of the file).
// Throws std::invalid_argument if the optimum's size is not the problem's P. Cost: 8 fits, each
// S exact Hessians (VON) or per-example GGNs (VOGN) per step, and a KL per step of the last half.
std::vector<SampleSizeRun> run_sample_size_study(const ProblemSetup& setup,
                                                 const GaussianOptimum& optimum);

}  // namespace ngvi::app::study
