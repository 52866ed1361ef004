// The other methods of the tool — noisy Adam, noisy K-FAC, Bayes-by-backprop, MAP and MAP +
// Laplace — instantiated for its two model types (see app/methods/fit_method.hpp). The settings
// not on the command line are fixed here.
#include <app/methods/method_runner.hpp>

#include <inference/bayes_by_backprop.hpp>
#include <inference/laplace.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>

namespace ngvi::app::detail {

template <class Model>
FitOutcome fit_baseline(const Model& model, const FitRequest& request, vi::Rng& rng) {
  const MethodSettings& s = request.settings;
  const vi::LoopOptions loop = loop_options(s, model.num_examples());
  const double lr = learning_rate_of(s);
  switch (s.method) {
    case Method::noisy_adam: {
      vi::NoisyAdamOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.learning_rate = {lr};
      return run_fit(model, o, request, rng, AsIs{});
    }
    case Method::noisy_kfac: {
      vi::NoisyKfacOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.learning_rate = {lr};
      return run_fit(model, o, request, rng, AsIs{});
    }
    case Method::bbb: {
      vi::BayesByBackpropOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.learning_rate = {lr};
      return run_fit(model, o, request, rng, AsIs{});
    }
    case Method::map:
    case Method::laplace: {
      vi::MapOptions o;
      o.loop = loop;
      o.prior_precision = s.prior_precision;
      o.learning_rate = {lr};
      if (s.method == Method::map) return run_fit(model, o, request, rng, AsIs{});
      // The full Laplace approximation with the GGN at the current MAP estimate (positive
      // semi-definite, unlike the exact Hessian of a ReLU network away from a minimum).
      vi::LaplaceOptions l;
      l.curvature = vi::LaplaceCurvature::ggn;
      l.prior_precision = s.prior_precision;
      l.parallel.parallel.threads = s.threads;
      LaplaceEvidence last;
      FitOutcome out = run_fit(model, o, request, rng, [&](const vi::PointEstimate& q) {
        vi::Laplace<vi::FullGaussian> a = vi::laplace(model, q.mean(), l);
        last = {a.log_marginal_likelihood, a.log_likelihood, a.log_det_precision,
                q.mean().squaredNorm(), a.gradient_norm};
        return AnyPosterior(std::move(a.posterior));
      });
      if (out.ok) out.evidence = last;
      return out;
    }
    default:
      throw std::invalid_argument(std::string("ngvi::app::fit_baseline: method ") +
                                  method_name(s.method) + " is a natural-gradient method");
  }
}

template FitOutcome fit_baseline<RegressionModel>(const RegressionModel&, const FitRequest&,
                                                  vi::Rng&);
template FitOutcome fit_baseline<ClassificationModel>(const ClassificationModel&, const FitRequest&,
                                                      vi::Rng&);

}  // namespace ngvi::app::detail
