// Umbrella header of the verification helpers (namespace ngvi::ad::verify): named tolerances,
// CheckReport, compare(), finite differences (of f, and of AD gradients) and the
// check_gradient / check_hvp / check_hessian routines that tests and users call.
#pragma once

#include <autodiff/verify/check.hpp>
#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/finite_diff.hpp>
#include <autodiff/verify/report.hpp>
#include <autodiff/verify/tolerances.hpp>
