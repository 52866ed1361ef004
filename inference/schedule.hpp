// Schedule: a step size that may decay with the iteration, as VON's α and β do.
//
// value(t) = max(floor, initial / (1 + decay·(t − 1))^power) for iteration t = 1, 2, …: with the
// default decay = 0 it is the constant `initial`; decay > 0 with power = 1 gives the Robbins–Monro
// 1/t-type decay under which the Monte-Carlo natural-gradient iterates converge, power = 0.5 a
// slower one. From iteration drop_at on (0: never) the value is multiplied by drop_factor, the
// step decay of Zhang, Sun, Duvenaud & Grosse 2018 ("Noisy Natural Gradient as Variational
// Inference", Appendix: the learning rate decayed by 0.1 for the second half of the epochs).
// Cost: O(1).
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

namespace ngvi::vi {

struct Schedule {
  // The value at iteration 1.
  double initial = 0.1;
  // 0 keeps the value constant; > 0 divides it by (1 + decay (t − 1))^power.
  double decay = 0.0;
  // Exponent of the decay; 1 is the classic stochastic-approximation rate.
  double power = 1.0;
  // A lower bound the value never goes below (0: none).
  double floor = 0.0;
  // The first iteration at which the value is multiplied by drop_factor (0: never).
  Eigen::Index drop_at = 0;
  double drop_factor = 1.0;

  double at(Eigen::Index t) const {
    const double v = initial / std::pow(1.0 + decay * static_cast<double>(t - 1), power);
    return std::max(floor, v) * (drop_at > 0 && t >= drop_at ? drop_factor : 1.0);
  }
  // Throws std::invalid_argument naming `who` and the field if the schedule is unusable.
  void validate(const std::string& who) const {
    if (!(initial > 0.0) || !std::isfinite(initial))
      throw std::invalid_argument(who + ": the initial step must be positive and finite, got " +
                                  std::to_string(initial));
    if (!(decay >= 0.0) || !std::isfinite(decay) || !(power >= 0.0) || !std::isfinite(power) ||
        !(floor >= 0.0))
      throw std::invalid_argument(who +
                                  ": decay, power and floor must be finite and >= 0, got decay " +
                                  std::to_string(decay) + ", power " + std::to_string(power) +
                                  ", floor " + std::to_string(floor));
    if (drop_at < 0 || !(drop_factor > 0.0) || !std::isfinite(drop_factor))
      throw std::invalid_argument(who +
                                  ": drop_at must be >= 0 and drop_factor positive and finite, "
                                  "got drop_at " +
                                  std::to_string(drop_at) + ", drop_factor " +
                                  std::to_string(drop_factor));
  }
};

}  // namespace ngvi::vi
