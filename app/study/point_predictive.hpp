// The function-space predictive at a few fixed inputs: what the study scores each method's
// posterior on against the HMC reference's (hmc_scores.hpp).
//
// Regression: the mean and sd over θ of the network's output f(x; θ) in original units (the
// training targets' scaling undone), without the observation noise — the noise is the same for
// every posterior, and leaving it out keeps the score on the uncertainty about the function
// (Foong et al. 2019's "in-between" uncertainty is about f). Classification: the mean and sd
// over θ of P(y = 1 | x, θ). Both are sample moments (divisor S) of the draws the caller hands
// in, so the same code serves a Gaussian q (θ ~ q) and the HMC draws.
#pragma once

#include <Eigen/Core>
#include <app/methods/network_model.hpp>
#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>

namespace ngvi::app::study {

// The predictive's function values at the rows of `points` for one θ: f(x; θ) in original units
// (regression), P(y = 1 | x, θ) (classification).
class PointValues {
 public:
  PointValues(const ProblemSetup& s, const Eigen::MatrixXd& points)
      : at_(s.train->net(), s.train->likelihood(),
            nn::Dataset{points, Eigen::MatrixXd::Zero(points.rows(), 1)}),
        classification_(is_classification(at_)),
        scale_(s.targets.scale(0)),
        shift_(s.targets.mean(0)) {}
  // Cost: one forward pass over the points.
  Eigen::VectorXd operator()(const Eigen::VectorXd& theta) const {
    const Eigen::VectorXd f = at_.outputs(theta).col(0);
    return classification_ ? Eigen::VectorXd((1.0 + (-f.array()).exp()).inverse().matrix())
                           : Eigen::VectorXd((scale_ * f.array() + shift_).matrix());
  }

 private:
  NetworkModel at_;
  bool classification_;
  double scale_, shift_;
};

// Moments of the predictive at the rows of `points` over the S parameter vectors draw(0), …,
// draw(S − 1). Cost: S forward passes over the points.
template <class Draw>
GridPredictive point_predictive(const ProblemSetup& s, const Eigen::MatrixXd& points, int samples,
                                Draw&& draw) {
  const PointValues values(s, points);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(points.rows()), sum_sq = sum;
  for (int k = 0; k < samples; ++k) {
    const Eigen::VectorXd v = values(draw(k));
    sum += v;
    sum_sq += v.cwiseProduct(v);
  }
  GridPredictive g;
  const Eigen::VectorXd mean = sum / samples;
  g.mean = mean;
  g.spread = (sum_sq / samples - mean.cwiseProduct(mean)).cwiseMax(0.0).cwiseSqrt();
  return g;
}

}  // namespace ngvi::app::study
