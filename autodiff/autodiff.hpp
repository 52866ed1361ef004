// Umbrella header of the autodiff module: the engine, its Eigen integration, the drivers and
// the verification helpers.
#pragma once

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/arena.hpp>
#include <autodiff/core/config.hpp>
#include <autodiff/core/dual.hpp>
#include <autodiff/core/tape.hpp>
#include <autodiff/core/tape_scope.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/broadcast.hpp>
#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/log_softmax.hpp>
#include <autodiff/eigen/matmul.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/matrix_var_operators.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/function_list.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/log_sum_exp.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/hvp.hpp>
#include <autodiff/functional/jacobian.hpp>
#include <autodiff/functional/parallel.hpp>
#include <autodiff/functional/per_example.hpp>
#include <autodiff/functional/recording.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/verify.hpp>
