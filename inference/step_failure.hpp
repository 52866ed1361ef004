// StepFailure: how a method's step says "this run cannot go on" without taking the program down.
//
// A step that cannot produce a valid next state — VON's precision update staying indefinite under
// its remedy, VOGN's curvature not positive definite for a likelihood whose output Hessian is
// indefinite — throws StepFailure with a message naming the method, the iteration and the cause.
// vi::fit (fit.hpp) catches it, puts back the state from before that step, and returns the result
// with status `failed` and that message, exactly as for a parameter that became non-finite: the
// caller gets the last good posterior and the history so far instead of an exception. Every other
// exception (bad options, a malformed checkpoint) still propagates: those are usage errors.
#pragma once

#include <stdexcept>

namespace ngvi::vi {

struct StepFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ngvi::vi
