// The bodies of the method suites (method_suites.hpp) as templates over the model type: the
// options each method runs with on a problem, and the order of the records. Each suite .cpp
// instantiates one of them for one model type; nothing else includes this file.
//
// Every method gets the problem's loop (epochs, minibatch, history rows, threads) and prior δ,
// and the step sizes of the problem's StepSizes; everything else is the method's documented
// default, so the study shows the methods as a user gets them.
#pragma once

#include <vector>

#include <app/study/problem_setup.hpp>
#include <app/study/run_method.hpp>
#include <app/study/study_records.hpp>

#include <inference/bayes_by_backprop.hpp>
#include <inference/ivon.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

namespace ngvi::app::study {

template <class Options, class Model>
Options common_options(const ProblemSetup<Model>& s) {
  Options o;
  o.loop = s.loop;
  o.prior_precision = s.prior_precision;
  return o;
}

template <class Options, class Model>
Options natural_options(const ProblemSetup<Model>& s) {
  Options o = common_options<Options>(s);
  o.mean_rate = vi::Schedule{s.steps.natural, s.steps.natural_decay};
  o.precision_rate = vi::Schedule{s.steps.natural, s.steps.natural_decay};
  o.mc_samples = s.steps.natural_mc_samples;
  return o;
}

template <class Model>
std::vector<MethodRecord> natural_gradient_suite(const ProblemSetup<Model>& s) {
  std::vector<MethodRecord> out;
  if (s.full_covariance) out.push_back(run_method(s, "von", natural_options<vi::VonOptions>(s)));
  out.push_back(run_method(s, "von_diagonal", natural_options<vi::DiagonalVonOptions>(s)));
  if (s.full_covariance) {
    auto o = natural_options<vi::FullVognOptions>(s);
    o.curvature = vi::VognCurvature::ggn;
    out.push_back(run_method(s, "vogn_full_ggn", o));
  }
  const std::pair<const char*, vi::VognCurvature> diagonal[] = {
      {"vogn_ggn", vi::VognCurvature::ggn},
      {"vogn_empirical_fisher", vi::VognCurvature::empirical_fisher},
      {"vogn_mc_fisher", vi::VognCurvature::mc_fisher}};
  for (const auto& [key, curvature] : diagonal) {
    auto o = natural_options<vi::VognOptions>(s);
    o.curvature = curvature;
    out.push_back(run_method(s, key, o));
  }
  return out;
}

template <class Model>
std::vector<MethodRecord> baseline_suite(const ProblemSetup<Model>& s) {
  std::vector<MethodRecord> out;
  {
    auto o = common_options<vi::IvonOptions>(s);
    o.learning_rate = vi::Schedule{s.steps.ivon};
    out.push_back(run_method(s, "ivon", o));
    o.beta2 = 0.999;  // the header's advice for short runs: h forgets h₀ in ~10³ steps
    out.push_back(run_method(s, "ivon_short_memory", o));
  }
  {
    auto o = common_options<vi::NoisyAdamOptions>(s);
    o.learning_rate = vi::Schedule{s.steps.noisy_adam};
    out.push_back(run_method(s, "noisy_adam", o));
  }
  {
    auto o = common_options<vi::NoisyKfacOptions>(s);
    o.learning_rate = vi::Schedule{s.steps.kfac};
    o.beta = s.steps.kfac_beta;
    out.push_back(run_method(s, "noisy_kfac", o));
  }
  {
    auto o = common_options<vi::BayesByBackpropOptions>(s);
    o.learning_rate = vi::Schedule{s.steps.adam};
    out.push_back(run_method(s, "bayes_by_backprop", o));
  }
  {
    auto o = common_options<vi::MapOptions>(s);
    o.loop.elbo_samples = 0;  // a point mass: every draw is θ*
    o.learning_rate = vi::Schedule{s.steps.adam};
    out.push_back(run_map_laplace(s, o));
  }
  return out;
}

}  // namespace ngvi::app::study
