// AnyPosterior: the posterior a method of the tool returned, whichever family it is.
//
// The methods of inference/ return different families — DiagonalGaussian (VOGN, IVON, noisy
// Adam, BBB), FullGaussian (VON, Laplace), KroneckerGaussian (noisy K-FAC), LowRankGaussian
// (SLANG), SubnetworkGaussian (last-layer Laplace) and PointEstimate (MAP). The command-line tool
// handles them through this one variant, so that its protocols (app/uci), its file output (app/fit)
// and its predictive code are written once, and std::visit picks the family's own sample() and
// marginal_variances().
#pragma once

#include <variant>

#include <Eigen/Core>

#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/kronecker_gaussian.hpp>
#include <inference/posterior/low_rank_gaussian.hpp>
#include <inference/posterior/point_estimate.hpp>
#include <inference/posterior/subnetwork_gaussian.hpp>

namespace ngvi::app {

using AnyPosterior = std::variant<vi::DiagonalGaussian, vi::FullGaussian, vi::KroneckerGaussian,
                                  vi::LowRankGaussian, vi::SubnetworkGaussian, vi::PointEstimate>;

// The family's name as results files spell it.
inline const char* family_name(const AnyPosterior& q) {
  switch (q.index()) {
    case 0:
      return "diagonal_gaussian";
    case 1:
      return "full_gaussian";
    case 2:
      return "kronecker_gaussian";
    case 3:
      return "low_rank_gaussian";
    case 4:
      return "subnetwork_gaussian";
    default:
      return "point_estimate";
  }
}

// E_q[θ]. Cost: O(P).
inline Eigen::VectorXd mean_of(const AnyPosterior& q) {
  return std::visit([](const auto& p) -> Eigen::VectorXd { return p.mean(); }, q);
}

// Var_q[θⱼ] for every j (0 for a point estimate). Cost: that of the family's
// marginal_variances (O(P³) for FullGaussian).
inline Eigen::VectorXd marginal_variances_of(const AnyPosterior& q) {
  return std::visit([](const auto& p) -> Eigen::VectorXd { return p.marginal_variances(); }, q);
}

}  // namespace ngvi::app
