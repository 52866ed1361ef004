// value_and_gradient / gradient: reverse-mode gradient of a scalar function of a vector.
//
// The function is any callable generic in its scalar, taking an Eigen column vector; it is
// called once with Var<double> inputs (or, if it is declared on ad::MatrixVar, once with x as
// one matrix variable, which its fused nodes take without a copy). Cost: one recording + one
// reverse sweep, i.e. a small constant times the cost of evaluating f, independent of the number of
// inputs. Records in a Recording on this thread's tape, so it nests inside other recordings and
// reuses memory.
#pragma once

#include <utility>

#include <Eigen/Core>

#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

// Returns f(x) and writes its gradient into grad (resized to x.size()).
template <class F>
double value_and_gradient(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                          Eigen::VectorXd& grad) {
  detail::require_scalar_function<F, double>("value_and_gradient");
  Recording<double> rec;
  const auto xv = detail::driver_inputs<F>(rec, x);
  const Var<double> y = f(xv);
  if (rec.backward(y))
    grad = rec.adjoints(xv);
  else
    grad.setZero(x.size());
  return y.value();
}

// The gradient of f at x. Cost: one recording + one reverse sweep.
template <class F>
Eigen::VectorXd gradient(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x) {
  Eigen::VectorXd g;
  value_and_gradient(std::forward<F>(f), x, g);
  return g;
}

}  // namespace ngvi::ad
