// How far a method's posterior is from the HMC reference posterior of a network problem
// (hmc_reference.hpp): the scores of HmcScores (study_records.hpp), as plain functions of the
// numbers so that tests can check them on hand-made inputs.
//
// Marginals: the median over the parameters of log(sd_j / sd_HMC,j) — the median, because a
// network has a few parameters whose marginal is set by the prior alone (a hidden unit the fit
// does not use) and the question is about the typical one; a log-ratio, so that half and double
// are equally far from 0. Predictive: at the problem's few evaluation points, the mean over the
// points of log(predictive sd / HMC's) and the root mean square of the difference of the
// predictive means.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

namespace detail {
inline void check_same_size(const Eigen::VectorXd& a, const Eigen::VectorXd& ref, const char* who) {
  if (a.size() != ref.size() || a.size() == 0)
    throw std::invalid_argument(std::string("ngvi::app::study::") + who + ": " +
                                std::to_string(a.size()) + " values against " +
                                std::to_string(ref.size()) +
                                " reference values (need as many, at least one)");
}
}  // namespace detail

// The median of v (the mean of the two middle values for an even count); NaN if any is NaN.
// Throws std::invalid_argument for no values. Cost: O(n log n).
inline double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("ngvi::app::study::median: no values");
  for (const double x : v)
    if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// log(aⱼ / refⱼ) per entry.
inline std::vector<double> log_ratios(const Eigen::VectorXd& a, const Eigen::VectorXd& ref) {
  std::vector<double> out(static_cast<std::size_t>(a.size()));
  for (Eigen::Index j = 0; j < a.size(); ++j)
    out[static_cast<std::size_t>(j)] = std::log(a(j) / ref(j));
  return out;
}

// median over j of log(aⱼ / refⱼ). Throws std::invalid_argument unless the sizes agree.
inline double median_log_ratio(const Eigen::VectorXd& a, const Eigen::VectorXd& ref) {
  detail::check_same_size(a, ref, "median_log_ratio");
  return median(log_ratios(a, ref));
}

// mean over j of log(aⱼ / refⱼ). Throws std::invalid_argument unless the sizes agree.
inline double mean_log_ratio(const Eigen::VectorXd& a, const Eigen::VectorXd& ref) {
  detail::check_same_size(a, ref, "mean_log_ratio");
  double s = 0.0;
  for (const double x : log_ratios(a, ref)) s += x;
  return s / static_cast<double>(a.size());
}

// mean over j of |log(aⱼ / refⱼ)|: how far the marginal sds are from the reference's either way
// (the noisy K-FAC finding on two moons, study_verdicts.cpp). Throws std::invalid_argument
// unless the sizes agree.
inline double mean_abs_log_ratio(const Eigen::VectorXd& a, const Eigen::VectorXd& ref) {
  detail::check_same_size(a, ref, "mean_abs_log_ratio");
  double s = 0.0;
  for (const double x : log_ratios(a, ref)) s += std::abs(x);
  return s / static_cast<double>(a.size());
}

// √(mean over j of (aⱼ − refⱼ)²). Throws std::invalid_argument unless the sizes agree.
inline double rms_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& ref) {
  detail::check_same_size(a, ref, "rms_difference");
  return std::sqrt((a - ref).squaredNorm() / static_cast<double>(a.size()));
}

// The method's scores against the reference. The marginals are compared on the parameters the
// posterior is over: all of θ, or m.subnetwork's (last-layer Laplace, whose sds are 0 elsewhere:
// log 0 would make every such median −∞ and say nothing about the layer it does model). Throws
// std::invalid_argument when the method has no predictive at the evaluation points, a size
// differs or a subnetwork index is outside θ.
inline HmcScores score_against_hmc(const MethodRecord& m, const HmcReference& h) {
  const std::string who = "ngvi::app::study::score_against_hmc: ";
  if (!m.at_points)
    throw std::invalid_argument(who + m.name + " has no predictive at the evaluation points");
  HmcScores s;
  if (m.subnetwork.empty()) {
    s.sd_log_ratio_median = median_log_ratio(m.marginal_sd, h.sd);
  } else {
    detail::check_same_size(m.marginal_sd, h.sd, "score_against_hmc");
    for (const Eigen::Index j : m.subnetwork)
      if (j < 0 || j >= h.sd.size())
        throw std::invalid_argument(who + m.name + "'s subnetwork index " + std::to_string(j) +
                                    " is outside 0.." + std::to_string(h.sd.size() - 1));
    s.sd_log_ratio_median = median_log_ratio(m.marginal_sd(m.subnetwork), h.sd(m.subnetwork));
  }
  const Eigen::VectorXd sd = m.at_points->spread.reshaped();
  const Eigen::VectorXd mean = m.at_points->mean.reshaped();
  s.point_sd_log_ratio = mean_log_ratio(sd, h.at_points.spread.reshaped());
  s.point_mean_error = rms_difference(mean, h.at_points.mean.reshaped());
  return s;
}

}  // namespace ngvi::app::study
