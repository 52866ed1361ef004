// The natural-gradient methods of the tool — VOGN, VON and IVON — instantiated for its network
// model (see app/methods/fit_method.hpp). The settings not on the command line are fixed
// here.
#include <app/methods/method_runner.hpp>

#include <inference/ivon.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

namespace ngvi::app::detail {

namespace {
vi::VonRemedy von_remedy_of(VonRemedySetting r) {
  switch (r) {
    case VonRemedySetting::ggn:
      return vi::VonRemedy::ggn_fallback;
    case VonRemedySetting::clip:
      return vi::VonRemedy::clip_eigenvalues;
    case VonRemedySetting::damp:
      return vi::VonRemedy::damp_step;
    case VonRemedySetting::add_damping:
      return vi::VonRemedy::add_damping;
    case VonRemedySetting::reject:
      return vi::VonRemedy::reject_step;
  }
  return vi::VonRemedy::ggn_fallback;
}
vi::VognCurvature vogn_curvature_of(VognCurvatureSetting c) {
  switch (c) {
    case VognCurvatureSetting::empirical_fisher:
      return vi::VognCurvature::empirical_fisher;
    case VognCurvatureSetting::ggn:
      return vi::VognCurvature::ggn;
    case VognCurvatureSetting::mc_fisher:
      return vi::VognCurvature::mc_fisher;
  }
  return vi::VognCurvature::empirical_fisher;
}
}  // namespace

FitOutcome fit_natural_gradient(const NetworkModel& model, const FitRequest& request,
                                vi::Rng& rng) {
  const MethodSettings& s = request.settings;
  const vi::LoopOptions loop = loop_options(request, model.num_examples());
  switch (s.method) {
    case Method::vogn: {
      vi::VognOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.mean_rate = {learning_rate_of(s)};
      // β = 0.01: the PyTorch reference's tuned curvature rate; s₀ = 1 as in its VOGN.
      o.precision_rate = {0.01};
      o.curvature = vogn_curvature_of(s.vogn_curvature);
      return run_fit(model, o, request, rng, AsIs{});
    }
    case Method::von: {
      vi::VonOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.mean_rate = {learning_rate_of(s)};
      o.precision_rate = {0.01};  // the reference's tuned (α, β) = (0.1, 0.01)
      o.remedy = von_remedy_of(s.von_remedy);
      return run_fit(model, o, request, rng, AsIs{});
    }
    case Method::ivon: {
      vi::IvonOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.learning_rate = {learning_rate_of(s)};
      // β₂ = 0.999: a few hundred epochs of a small data set are too few steps for the paper's
      // 0.99999 to forget h₀ (inference/ivon.hpp).
      o.beta2 = 0.999;
      return run_fit(model, o, request, rng, AsIs{});
    }
    default:
      throw std::invalid_argument(std::string("ngvi::app::fit_natural_gradient: method ") +
                                  method_name(s.method) + " is not a natural-gradient method");
  }
}

}  // namespace ngvi::app::detail
