// The options every method of the study's suites (method_suites.hpp) starts from on a problem;
// only the suite .cpp files include this file.
//
// Every method gets the problem's loop (epochs, minibatch, history rows, threads) and prior δ,
// and the step sizes of the problem's StepSizes; everything else is the method's documented
// default, so the study shows the methods as a user gets them.
#pragma once

#include <app/study/problem_setup.hpp>

#include <inference/schedule.hpp>

namespace ngvi::app::study {

template <class Options>
Options common_options(const ProblemSetup& s) {
  Options o;
  o.loop = s.loop;
  o.prior_precision = s.prior_precision;
  return o;
}

template <class Options>
Options natural_options(const ProblemSetup& s) {
  Options o = common_options<Options>(s);
  o.mean_rate = vi::Schedule{s.steps.natural, s.steps.natural_decay};
  o.precision_rate = vi::Schedule{s.steps.natural, s.steps.natural_decay};
  o.mc_samples = s.steps.natural_mc_samples;
  return o;
}

}  // namespace ngvi::app::study
