// Adam (Kingma & Ba 2015): the first-order optimiser behind MAP, Bayes-by-backprop and the
// baselines, written once.
//
//   m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;  x ← x − α (m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε)
//
// The caller supplies the gradient g of the objective being minimised at the current x. The
// state (m, v, t) is plain data for checkpoints. Cost: O(n) per step.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <inference/fit_result.hpp>

namespace ngvi::vi {

struct AdamOptions {
  // Step size α. 1e-3 is Adam's published default; small-network VI usually wants 1e-2.
  double learning_rate = 1e-3;
  // Decay of the first moment (momentum), the published default.
  double beta1 = 0.9;
  // Decay of the second moment, the published default.
  double beta2 = 0.999;
  // Added to √v̂ so that the step stays bounded where the gradient is ~0.
  double epsilon = 1e-8;

  void validate(const std::string& who) const {
    if (!(learning_rate > 0.0) || !std::isfinite(learning_rate))
      throw std::invalid_argument(who + ": Adam learning_rate must be positive and finite, got " +
                                  std::to_string(learning_rate));
    if (!(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0))
      throw std::invalid_argument(who + ": Adam beta1 and beta2 must be in [0, 1), got " +
                                  std::to_string(beta1) + " and " + std::to_string(beta2));
    if (!(epsilon > 0.0)) throw std::invalid_argument(who + ": Adam epsilon must be positive");
  }
};

class Adam {
 public:
  Adam() = default;
  Adam(Eigen::Index n, AdamOptions options)
      : o_(options), m_(Eigen::VectorXd::Zero(n)), v_(Eigen::VectorXd::Zero(n)) {
    o_.validate("ngvi::vi::Adam");
  }

  // x ← x − α m̂/(√v̂ + ε) for the gradient g at x; `rate` overrides α for this step if > 0
  // (for schedules). Throws std::invalid_argument on a size mismatch.
  void step(Eigen::VectorXd& x, const Eigen::VectorXd& g, double rate = 0.0) {
    if (x.size() != m_.size() || g.size() != m_.size())
      throw std::invalid_argument("ngvi::vi::Adam::step: the optimiser has " +
                                  std::to_string(m_.size()) + " entries, x has " +
                                  std::to_string(x.size()) + " and g " + std::to_string(g.size()));
    ++t_;
    m_ = o_.beta1 * m_ + (1.0 - o_.beta1) * g;
    v_ = o_.beta2 * v_ + (1.0 - o_.beta2) * g.cwiseAbs2();
    const double c1 = 1.0 - std::pow(o_.beta1, static_cast<double>(t_));
    const double c2 = 1.0 - std::pow(o_.beta2, static_cast<double>(t_));
    const double alpha = rate > 0.0 ? rate : o_.learning_rate;
    x.array() -= alpha * (m_.array() / c1) / ((v_.array() / c2).sqrt() + o_.epsilon);
  }

  Eigen::Index steps() const { return t_; }
  // State as named arrays, each name prefixed (a method may hold several optimisers).
  NamedArrays state(const std::string& prefix) const {
    Eigen::MatrixXd t(1, 1);
    t(0, 0) = static_cast<double>(t_);
    return {{prefix + ".m", m_}, {prefix + ".v", v_}, {prefix + ".t", t}};
  }
  void restore(const NamedArrays& s, const std::string& prefix) {
    m_ = state_array(s, prefix + ".m", m_.size(), 1);
    v_ = state_array(s, prefix + ".v", v_.size(), 1);
    t_ = static_cast<Eigen::Index>(state_array(s, prefix + ".t", 1, 1)(0, 0));
  }

 private:
  AdamOptions o_;
  Eigen::VectorXd m_, v_;
  Eigen::Index t_ = 0;
};

}  // namespace ngvi::vi
