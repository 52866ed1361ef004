// Operators on matrix variables: a model written with MatrixVar reads like its math.
//
//   A * B            ad::matmul(A, B)            (either side may be a transpose() view)
//   A + B, A - B     ad::cwise_sum / cwise_difference
//   A.rowwise() + r  ad::add_rowwise(A, r)       (r: one entry per column)
//   A.colwise() + c  ad::add_colwise(A, c)       (c: one entry per row)
//   s * A, A * s, -A ad::scale(A, s)             (s a double)
//
// Each records the one fused node of the function it names (see matrix_var.hpp); one side may be
// an Eigen matrix of double or Var. With no MatrixVar among the operands these operators do not
// apply and Eigen's own do, so generic model code written with ad::as_matrix runs on plain
// double matrices unchanged.
#pragma once

#include <autodiff/eigen/broadcast.hpp>
#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/matmul.hpp>
#include <autodiff/eigen/matrix_var.hpp>

namespace ngvi::ad {

// Either operand a matrix variable, both matrices.
template <class A, class B>
concept MatrixVarOperands = MatrixArgument<A> && MatrixArgument<B> &&
    (is_matrix_var_v<A> || is_matrix_var_v<B>);

template <class A, class B>
requires MatrixVarOperands<A, B>
auto operator*(const A& a, const B& b) { return matmul(a, b); }
template <class A, class B>
requires MatrixVarOperands<A, B>
auto operator+(const A& a, const B& b) { return cwise_sum(a, b); }
template <class A, class B>
requires MatrixVarOperands<A, B>
auto operator-(const A& a, const B& b) { return cwise_difference(a, b); }

template <class Real>
MatrixVar<Real> operator*(double s, const MatrixVar<Real>& m) {
  return scale(m, s);
}
template <class Real>
MatrixVar<Real> operator*(const MatrixVar<Real>& m, double s) {
  return scale(m, s);
}
template <class Real>
MatrixVar<Real> operator-(const MatrixVar<Real>& m) {
  return scale(m, -1.0);
}

template <class Real, MatrixArgument V>
auto operator+(const detail::BroadcastView<Real, true>& view, const V& r) {
  return add_rowwise(view.m, r);
}
template <class Real, MatrixArgument V>
auto operator+(const detail::BroadcastView<Real, false>& view, const V& c) {
  return add_colwise(view.m, c);
}

}  // namespace ngvi::ad
