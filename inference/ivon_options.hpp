// IvonOptions: the options of IVON (ivon.hpp), every field with its default and meaning, and
// their check. In a header of their own so that a program calling a compiled IVON fit
// (inference/instances.hpp) sees the options without the method (fit_declaration.hpp).
#pragma once

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/schedule.hpp>

namespace ngvi::vi {

template <class Model>
class Ivon;

struct IvonOptions {
  LoopOptions loop{};
  // δ₀, the prior N(0, δ₀⁻¹I)'s precision; IVON's weight decay is δ = δ₀/λ.
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior)). Empty (the default): N(0, δ₀⁻¹I) above. When set it replaces that prior: the
  // weight decay δ becomes the vector diag(Λ₀)/λ and δm becomes Λ₀(m − μ₀)/λ (see ivon.hpp).
  std::optional<GaussianPrior> prior{};
  // λ, the effective sample size; 0 means N (proper VI). The posterior precision is λ(h + δ).
  double effective_sample_size = 0.0;
  // α_t, the step size of m (constant by default). Since h estimates the Hessian of the MEAN
  // loss, α = 1 is a full Newton step; 0.1 is a cautious default for stochastic minibatches.
  Schedule learning_rate{0.1};
  // β₁, momentum of the gradient (the paper's and package's default).
  double beta1 = 0.9;
  // β₂, the averaging of the Hessian estimate (the paper's default, for long runs; small
  // problems with few steps want 0.99-0.999 so that h forgets its initial value).
  double beta2 = 0.99999;
  // h₀, the initial Hessian estimate: the initial posterior std is 1/√(λ(h₀ + δ)) (package
  // default).
  double hess_init = 1.0;
  // S, samples θ ~ q per step, ĝ and ĥ averaged over them (≥ 1: ĥ needs the noise).
  int mc_samples = 1;
  // r: each coordinate of the mean's step direction is clipped to [−r, r] (the package's
  // clip_radius; infinity: no clipping).
  double clip_radius = std::numeric_limits<double>::infinity();

  static constexpr const char* name = "ivon";
  using posterior_type = DiagonalGaussian;
  template <class Model>
  using method = Ivon<Model>;

  // Throws std::invalid_argument naming the field.
  void validate(const std::string& who) const {
    learning_rate.validate(who + ": learning_rate");
    detail::check_nonnegative_finite(who, "effective_sample_size", effective_sample_size,
                                     " (0: N)");
    detail::check_unit_interval(who, "beta1", beta1);
    detail::check_unit_interval(who, "beta2", beta2);
    detail::check_positive_finite(who, "hess_init", hess_init);
    detail::check_at_least(who, "mc_samples", mc_samples, 1);
    if (!(clip_radius > 0.0))
      throw std::invalid_argument(who +
                                  ": clip_radius must be positive (infinity: no clipping), got " +
                                  std::to_string(clip_radius));
  }
};

}  // namespace ngvi::vi
