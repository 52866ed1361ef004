// MAP: the maximum a posteriori θ* by Adam on minibatches, as a method of the shared fit loop —
// the baseline of the study and the first stage of the Laplace approximation (laplace.hpp).
//
//   θ* = argmin_θ  Σᵢ ℓᵢ(θ) + ½δ‖θ‖²   (= −log p(D|θ) − log p₀(θ) + const, p₀ = N(0, δ⁻¹I)),
// minimised by Adam (adam.hpp) on the unbiased minibatch estimate of that objective,
//   L̂(θ) = (N/M) Σ_{i∈B} ℓᵢ(θ) + ½δ‖θ‖²,  ∇L̂ = (N/M) ∇Σ_{i∈B} ℓᵢ(θ) + δθ,
// with the step size α_t of a Schedule. With a general Gaussian prior N(μ₀, Λ₀⁻¹)
// (MapOptions::prior, gaussian_prior.hpp) ½δ‖θ‖² becomes ½(θ − μ₀)ᵀΛ₀(θ − μ₀) and δθ becomes Λ₀(θ −
// μ₀). The gradient is one reverse sweep through the model's batched batch_loss(θ, B) when it has
// one (minibatch_gradient.hpp).
//
// What the loop records for a point estimate. The loop's history is an ELBO, and a point mass
// has none: its entropy is −∞. MAP's posterior_type is PointEstimate, the degenerate Gaussian
// N(θ*, 0) (posterior/point_estimate.hpp), whose members are that limit's values, so each
// history row of a MAP run says honestly: expected_nll = train_nll = Σᵢ ℓᵢ(θ) (exact: an
// expectation under a point mass), kl = +∞ and elbo = −∞ — "not applicable" without a NaN and
// without a made-up precision. The quantity MAP minimises is map_objective() below; MapOptions'
// loop defaults to elbo_samples = 0, since draws from a point mass are all θ*. The result's
// posterior is then handed to laplace() (which adds the curvature) or to the predictive (which
// gives the plug-in predictive for a PointEstimate).
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <inference/adam.hpp>
#include <inference/elbo.hpp>
#include <inference/fit.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/posterior/point_estimate.hpp>
#include <inference/schedule.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

template <class Model>
class Map;

struct MapOptions {
  // Epochs, minibatch size M, history. elbo_samples = 0: every draw from a point mass is θ*.
  LoopOptions loop{.elbo_samples = 0};
  // δ of the prior N(0, δ⁻¹I): the weight decay ½δ‖θ‖² of the objective.
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior)). Empty (the default): N(0, δ⁻¹I) above. When set it replaces that prior: the
  // objective's ½δ‖θ‖² becomes ½(θ − μ₀)ᵀΛ₀(θ − μ₀).
  std::optional<GaussianPrior> prior{};
  // Adam's step size α_t; 1e-2 (constant) suits the small networks of the study.
  Schedule learning_rate{.initial = 1e-2};
  // Adam's moment decays and ε (its learning_rate is unused: the schedule above sets α_t).
  AdamOptions adam{};
  // Where to start; empty: the model's own initialisation (nn::Supervised draws the weights from
  // the fit's generator), or zeros for a model without one.
  Eigen::VectorXd initial{};

  static constexpr const char* name = "map";
  using posterior_type = PointEstimate;
  template <class Model>
  using method = Map<Model>;
};

// Σᵢ ℓᵢ(θ) + ½δ‖θ‖², the objective MAP minimises (full data). Cost: one full-data loss.
template <class Model>
double map_objective(const Model& model, const Eigen::VectorXd& theta, double prior_precision) {
  return total_nll(model, theta) + 0.5 * prior_precision * theta.squaredNorm();
}
// Σᵢ ℓᵢ(θ) + ½(θ − μ₀)ᵀΛ₀(θ − μ₀), the objective under a general prior. Cost: one full-data loss
// and one Λ₀v.
template <class Model>
double map_objective(const Model& model, const Eigen::VectorXd& theta, const GaussianPrior& prior) {
  return total_nll(model, theta) + 0.5 * prior.quadratic(theta);
}

template <class Model>
class Map {
 public:
  using posterior_type = MapOptions::posterior_type;

  // Throws std::invalid_argument for a bad schedule, Adam setting or initial θ.
  Map(const Model& model, const MapOptions& options, Rng& rng) : model_(model), o_(options) {
    o_.learning_rate.validate("ngvi::vi::fit(map): learning_rate");
    theta_ = o_.initial.size() > 0 ? o_.initial : initial_mean(model, rng);
    nn::check_theta_size(theta_.size(), model.num_params(), "ngvi::vi::fit(map)", "initial");
    if (o_.prior) o_.prior->check_dim(theta_.size(), "ngvi::vi::fit(map)");
    if (!theta_.allFinite())
      throw std::invalid_argument("ngvi::vi::fit(map): the initial θ is not finite");
    adam_ = Adam(theta_.size(), o_.adam);
  }

  // θ ← Adam(θ, (N/M) ∇Σ_{i∈B} ℓᵢ(θ) + δθ) with step α_t (Λ₀(θ − μ₀) for a general prior).
  // Cost: one minibatch gradient + O(P) (+ one Λ₀v).
  void step(const StepInput& in, Rng&, Counters& c) {
    Eigen::VectorXd g;
    {
      ScopedTimer t(c.seconds_gradients);
      minibatch_loss_and_gradient(model_, theta_, in.batch, in.reducer, in.parallel, g);
    }
    const double scale =
        static_cast<double>(in.num_examples) / static_cast<double>(in.batch.size());
    if (o_.prior)
      g = scale * g + o_.prior->gradient(theta_);
    else
      g = scale * g + o_.prior_precision * theta_;
    adam_.step(theta_, g, o_.learning_rate.at(in.iteration));
  }

  PointEstimate posterior() const { return PointEstimate(theta_); }
  NamedArrays state() const {
    NamedArrays s = adam_.state("adam");
    s.emplace_back("theta", theta_);
    return s;
  }
  void restore(const NamedArrays& s) {
    theta_ = state_array(s, "theta", theta_.size(), 1);
    adam_.restore(s, "adam");
  }
  std::optional<NonFinite> first_non_finite() const {
    if (const auto i = first_non_finite_entry(theta_)) return NonFinite{*i, "mean"};
    return std::nullopt;
  }

 private:
  const Model& model_;
  MapOptions o_;
  Eigen::VectorXd theta_;
  Adam adam_;
};

}  // namespace ngvi::vi
