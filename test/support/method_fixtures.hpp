// Shared pieces of the tests of the inference methods (VON, VOGN, ...): a small non-convex
// network problem, fit-loop callbacks that record the initial mean or a checkpoint, and a bitwise
// comparison of posteriors.
#pragma once

#include <optional>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <inference/fit.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::test {

// A 1-4-1 tanh network (P = 13) with Gaussian noise of precision 10 on 20 points of
// sin(2x) + 0.1 cos(7x), x ∈ [−2, 2]: non-convex, so its exact Hessian is indefinite away from
// a minimum and every curvature differs.
inline auto tanh_mlp_problem() {
  const Eigen::Index n = 20;
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, -2.0, 2.0);
  const Eigen::VectorXd y = (2.0 * x).array().sin() + 0.1 * (7.0 * x).array().cos();
  return nn::Supervised(nn::Sequential::mlp({1, 4, 1}, nn::Tanh{}), nn::GaussianFixedNoise(10.0),
                        nn::Dataset{x, y});
}

// Keeps the mean of the initial q (on_begin sees the method before its first step).
struct InitialMean {
  Eigen::VectorXd mean;
  template <class Ctx>
  void on_begin(const Ctx& ctx) {
    mean = ctx.method().mean();
  }
};

// Keeps the encoded checkpoint taken after iteration `at`.
struct CheckpointAt {
  Eigen::Index at = 0;
  std::optional<std::string> saved;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (ctx.iteration() == at) saved = ctx.checkpoint().encode();
    return false;
  }
};

// Same mean and precision, bit for bit.
template <class Q>
bool same_bits(const Q& a, const Q& b) {
  return a.mean() == b.mean() && a.precision() == b.precision();
}

}  // namespace ngvi::test
