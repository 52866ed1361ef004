// value_and_gradient / gradient: reverse-mode gradient of a scalar function of a vector.
//
// The function is any callable generic in its scalar, taking an Eigen column vector; it is
// called once with Var<double> inputs. Cost: one recording + one reverse sweep, i.e. a small
// constant times the cost of evaluating f, independent of the number of inputs. Records in a
// TapeScope on this thread's tape, so it nests inside other recordings and reuses memory.
#pragma once

#include <utility>

#include <Eigen/Core>

#include <autodiff/core/tape_scope.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>

namespace ngvi::ad {

namespace detail {
// Registers x as consecutive independent variables on tape t.
template <class Real>
VarVector<Real> make_inputs(Tape<Real>& t, const Eigen::Ref<const Eigen::VectorXd>& x) {
  VarVector<Real> xv(x.size());
  const index_t first = t.new_indices(static_cast<std::size_t>(x.size()));
  for (Eigen::Index i = 0; i < x.size(); ++i)
    xv(i) = Var<Real>::from_index(Real(x(i)), first + static_cast<index_t>(i), t);
  return xv;
}
}  // namespace detail

// Returns f(x) and writes its gradient into grad (resized to x.size()).
template <class F>
double value_and_gradient(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                          Eigen::VectorXd& grad) {
  detail::require_scalar_function<F, double>("value_and_gradient");
  TapeScope<double> scope;
  Tape<double>& t = scope.tape();
  const VarVector<double> xv = detail::make_inputs<double>(t, x);
  const Var<double> y = f(xv);
  grad.resize(x.size());
  if (!y.is_active()) {
    grad.setZero();
    return y.value();
  }
  t.zero_adjoints();
  t.adjoint(y.index()) = 1.0;
  t.reverse(scope.mark());
  for (Eigen::Index i = 0; i < x.size(); ++i) grad(i) = t.adjoint(xv(i).index());
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
