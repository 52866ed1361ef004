// A scripted method and a quadratic model for testing the fit loop and its callbacks.
//
// quadratic_model(): N = 10 examples, ℓᵢ(θ) = ½‖θ − xᵢ‖² with a named 2×1 block "location".
// ScriptedStep: μ ← μ − η(μ − x̄_B) on the minibatch B (plus a small draw from the generator on
// minibatched runs, so that generator state matters), a fixed diagonal precision, an optional
// NaN at a chosen iteration, an optional finite escape of μ(1) over a range of iterations, and a
// "remedy" counted every third step. Its full-batch iterates
// have the closed form μ_t = x̄ + (1 − η)^t (μ₀ − x̄).
#pragma once

#include <cmath>
#include <optional>
#include <type_traits>

#include <Eigen/Core>

#include <inference/fit.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::test {

using Eigen::VectorXd;

// ℓᵢ(θ) = ½‖θ − xᵢ‖² with xᵢ = (i, −i/2) / N: the minibatch-mean gradient is μ − x̄_B.
inline constexpr Eigen::Index kN = 10;
inline VectorXd point(Eigen::Index i) {
  return (VectorXd(2) << double(i) / kN, -0.5 * double(i) / kN).finished();
}

inline auto quadratic_model() {
  nn::ParameterLayout layout;
  layout.add("location", 2, 1);
  return nn::make_model(
      [](const auto& theta, Eigen::Index i) {
        using T = typename std::decay_t<decltype(theta)>::Scalar;
        const VectorXd x = point(i);
        T a = theta(0) - x(0), b = theta(1) - x(1);
        return T(0.5 * (a * a + b * b));
      },
      kN, layout);
}

template <class Model>
class ScriptedStep;

struct ScriptedOptions {
  vi::LoopOptions loop{};
  double prior_precision = 1.0;
  double rate = 0.3;             // η of μ ← μ − η (μ − x̄_B)
  Eigen::Index blow_up_at = 0;   // write a NaN into μ(1) at this iteration (0: never)
  Eigen::Index overflow_at = 0;  // write 1e200 into μ(1), finite but its loss is not (0: never)
  // From iteration escape_from to escape_until (inclusive; 0: never) μ(1) is set to escape_to
  // after the step: a finite mean whose loss runs away, as under a step size too large.
  Eigen::Index escape_from = 0;
  Eigen::Index escape_until = 0;
  double escape_to = 0.0;
  static constexpr const char* name = "scripted";
  using posterior_type = vi::DiagonalGaussian;
  template <class Model>
  using method = ScriptedStep<Model>;
};

template <class Model>
class ScriptedStep {
 public:
  using posterior_type = ScriptedOptions::posterior_type;
  ScriptedStep(const Model&, const ScriptedOptions& o, vi::Rng& rng)
      : o_(o), mu_(vi::standard_normal(rng, 2)) {}
  void step(const vi::StepInput& in, vi::Rng& rng, vi::Counters& c) {
    VectorXd mean = VectorXd::Zero(2);
    for (Eigen::Index i : in.batch) mean += point(i);
    mean /= static_cast<double>(in.batch.size());
    mu_ -= o_.rate * (mu_ - mean);
    mu_(0) += 1e-3 * vi::standard_normal(rng, 1)(0) * (o_.loop.minibatch == 0 ? 0.0 : 1.0);
    if (in.iteration == o_.blow_up_at) mu_(1) = std::nan("");
    if (in.iteration == o_.overflow_at) mu_(1) = 1e200;
    if (o_.escape_from > 0 && in.iteration >= o_.escape_from && in.iteration <= o_.escape_until)
      mu_(1) = o_.escape_to;
    if (in.iteration % 3 == 0) c.fired("every third step");
  }
  posterior_type posterior() const { return {mu_, VectorXd::Constant(2, 4.0)}; }
  vi::NamedArrays state() const { return {{"mu", mu_}}; }
  void restore(const vi::NamedArrays& s) { mu_ = vi::state_array(s, "mu", 2, 1); }
  std::optional<vi::NonFinite> first_non_finite() const {
    if (auto i = vi::first_non_finite_entry(mu_)) return vi::NonFinite{*i, "mean"};
    return std::nullopt;
  }

 private:
  ScriptedOptions o_;
  VectorXd mu_;
};

}  // namespace ngvi::test
