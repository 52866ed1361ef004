// The study's hyperparameters from the evidence (evidence_study.hpp). Compiled with the method
// suite (app/CMakeLists.txt): it measures with run_method.hpp's detail::test_metrics, already
// instantiated there for every posterior family, and fits through app::fit_method.
#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <app/methods/fit_method.hpp>
#include <app/study/evidence_study.hpp>
#include <app/study/run_method.hpp>

namespace ngvi::app::study {
namespace {

// The test metrics of `q` on s's test data under the likelihood's τ (the learned one when
// `tau` is finite; a regression only). Cost: that of detail::test_metrics.
EvidenceScores score(const ProblemSetup& s, const AnyPosterior& q, bool glm, double tau) {
  ProblemSetup at = s;
  if (std::isfinite(tau))
    at.test = std::make_shared<const NetworkModel>(s.test->net(), nn::GaussianFixedNoise(tau),
                                                   s.test->data());
  vi::Rng rng(detail::measuring_seed(s.seed, 3));
  const detail::TestMetrics t = std::visit(
      [&](const auto& posterior) {
        return detail::test_metrics(at, posterior, s.final_predictive_samples, rng, glm);
      },
      q);
  return {t.log_likelihood, t.rmse, t.accuracy};
}

EvidenceRun run(const ProblemSetup& s, const std::string& method, const std::string& how,
                double learning_rate) {
  EvidenceRun r;
  r.method = method;
  r.how = how;
  const bool glm = method_info(method).laplace;
  FitRequest request;
  MethodSettings& m = request.settings;
  m.method = method;
  m.prior_precision = s.prior_precision;
  m.epochs = s.loop.epochs;
  m.minibatch = s.loop.minibatch > 0 ? s.loop.minibatch : s.train->num_examples();
  m.learning_rate = learning_rate;
  m.vogn_curvature = vi::VognCurvature::ggn;
  m.threads = s.loop.threads;
  try {
    vi::Rng fixed_rng(s.seed);
    const FitOutcome fixed = fit_method(*s.train, request, fixed_rng);
    m.hyperparameters = HyperparameterSource::evidence;
    vi::Rng learned_rng(s.seed);
    const FitOutcome learned = fit_method(*s.train, request, learned_rng);
    if (!fixed.ok || !learned.ok || !learned.hyperparameters) {
      r.message = !fixed.ok ? "the fit with δ and τ kept failed: " + fixed.message
                            : "the fit that learns δ and τ failed: " + learned.message;
      return r;
    }
    const LearnedHyperparameters& h = *learned.hyperparameters;
    r.blocks = h.blocks;
    r.block_sizes = h.sizes;
    r.prior_precisions = h.prior_precisions;
    r.noise_precision = h.noise_precision;
    r.fixed = score(s, fixed.posterior, glm, std::numeric_limits<double>::quiet_NaN());
    r.learned = score(s, learned.posterior, glm, h.noise_precision);
    r.ok = true;
  } catch (const std::exception& e) {
    r.message = e.what();
  }
  return r;
}

}  // namespace

std::vector<EvidenceRun> run_evidence_study(const ProblemSetup& s) {
  std::vector<EvidenceRun> out;
  if (s.full_covariance)
    out.push_back(run(s, "map_laplace",
                      "MAP + Laplace, δ_b and τ ascending the Laplace-GGN evidence during the "
                      "fit (Immer et al. 2021)",
                      s.steps.adam));
  out.push_back(run(s, "vogn",
                    "VOGN (GGN, diagonal), δ_b and τ by variational EM during the fit (Bishop "
                    "2006; Tipping 2001)",
                    0.0));
  return out;
}

}  // namespace ngvi::app::study
