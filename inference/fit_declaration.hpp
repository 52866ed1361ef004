// What a program that calls vi::fit must see, and no more: the declaration of fit and the type it
// returns. fit.hpp defines the loop; a program that only calls fits compiled into a library
// (ngvi::instances, inference/instances.hpp) includes this header and the method's options
// header (von_options.hpp, ...) instead of the loop and the method, and so compiles neither.
//
// fit_result_t<Model, Options> is FitResult<Options::posterior_type>, the family of q that the
// options' method fits, spelled out (not `auto`) so that an instantiation can be declared
// `extern template`. Options that name no posterior family give void; fit's static_asserts then
// say what is missing.
#pragma once

#include <inference/fit_result.hpp>
#include <inference/random.hpp>

namespace ngvi::vi {

template <class Model, class Options>
struct FitResultOf {
  using type = void;
};
template <class Model, class Options>
requires requires { typename Options::posterior_type; }
struct FitResultOf<Model, Options> {
  using type = FitResult<typename Options::posterior_type>;
};
template <class Model, class Options>
using fit_result_t = typename FitResultOf<Model, Options>::type;

// Fits q to model by the method the options name, drawing from rng (advanced as the run draws).
// Defined, and documented, in fit.hpp.
template <class Model, class Options, class... Callbacks>
fit_result_t<Model, Options> fit(const Model& model, const Options& options, Rng& rng,
                                 Callbacks&&... callbacks);

}  // namespace ngvi::vi
