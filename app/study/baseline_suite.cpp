// The baseline suite (method_suites.hpp): IVON, noisy Adam, noisy K-FAC, Bayes-by-backprop and
// MAP + Laplace.
#include <vector>

#include <app/study/method_suites.hpp>
#include <app/study/run_method.hpp>
#include <app/study/suite_options.hpp>

#include <inference/bayes_by_backprop.hpp>
#include <inference/ivon.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>

namespace ngvi::app::study {

std::vector<MethodRecord> run_baseline_methods(const ProblemSetup& s) {
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
