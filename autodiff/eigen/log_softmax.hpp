// log_softmax of a vector as one fused node: y_i = x_i − log Σ_j exp(x_j).
//
// x is an Eigen matrix of double or Var<Real>, or an ad::MatrixVar (matrix_var.hpp) or its
// transpose view, whose values are read in place and which gives a MatrixVar back; every
// coefficient takes part (a matrix is treated as the vector of its coefficients). Forward, the
// values are shifted by the largest one: y_i = (x_i − m) − log z with z = Σ exp(x_j − m), and the
// softmax s_i = exp(x_i − m) / z is formed from the same shifted exponentials (the log-sum-exp
// kernel of reductions.hpp), not as exp(y_i), which would carry the absolute rounding of log z +
// m. The reverse step uses s: x̄_j += ȳ_j − s_j Σ_i ȳ_i, which is O(n) instead of the O(n²) of one
// statement per output; Σ ȳ is a fixed_order_sum, so the result does not depend on where the
// adjoints sit. Cost: one pass forward (n exps, n divisions), one pass backward.
#pragma once

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/eigen/fixed_order_sum.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/reductions.hpp>

namespace ngvi::ad {

namespace detail {
template <class Real>
struct LogSoftmaxNode {
  MatrixOperand<Real> x;
  const Real* softmax;
  index_t out_first;

  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    const Real* s = softmax;
    const Real total = fixed_order_sum(g, x.size());
    x.add_each(adj, [g, s, total](Eigen::Index k) { return g[k] - s[k] * total; });
  }
};

// The log_softmax node of operand x, whose values are v: the output goes to the arena array out
// (which may be v itself, the in-place case).
template <class Real>
MatrixVar<Real> log_softmax_node(Tape<Real>& t, const MatrixOperand<Real>& x, const Real* v,
                                 Real* out) {
  const Eigen::Index n = x.size();
  const double shift = value_of(v[argmax(v, n, 1)]);
  Real* s = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
  const Real log_z = softmax_weights(v, n, 1, shift, s);
  for (Eigen::Index k = 0; k < n; ++k) out[k] = (v[k] - shift) - log_z;
  auto* node = t.arena().template create<LogSoftmaxNode<Real>>();
  node->x = x;
  node->softmax = s;
  return close_node(t, node, node->out_first, x.rows, x.cols, out, x.active);
}
}  // namespace detail

template <class Derived>
auto log_softmax(const Eigen::MatrixBase<Derived>& x) {
  using S = typename Derived::Scalar;
  constexpr int Rows = Derived::RowsAtCompileTime;
  constexpr int Cols = Derived::ColsAtCompileTime;
  if (x.size() == 0) throw std::invalid_argument("ngvi::ad::log_softmax: empty argument");
  if constexpr (!is_var_v<S>) {
    using std::log;
    const S mx = x.maxCoeff();
    const S lse = mx + log((x.array() - mx).exp().sum());
    return Eigen::Matrix<S, Rows, Cols>(x.array() - lse);
  } else {
    using Real = tape_scalar_t<S>;
    Tape<Real>& t = active_tape<Real>();
    // The reverse step needs only the softmax: the input values go straight into the output
    // array, which the log_softmax then overwrites.
    const detail::MatrixOperand<Real> op = detail::save_operand(t, x, false);
    Real* out = t.arena().template allocate_array<Real>(static_cast<std::size_t>(op.size()));
    Eigen::Index k = 0;
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      for (Eigen::Index i = 0; i < x.rows(); ++i) out[k++] = x.derived().coeff(i, j).value();
    return detail::log_softmax_node(t, op, out, out).template to_eigen<Rows, Cols>();
  }
}

// log_softmax of a matrix variable (or its transpose view), its values read in place; the same
// node, and the same bits, as for an Eigen matrix of Var.
template <class X>
requires is_matrix_var_v<X>
auto log_softmax(const X& x) {
  using Real = typename std::remove_cvref_t<X>::real_type;
  if (x.size() == 0) throw std::invalid_argument("ngvi::ad::log_softmax: empty argument");
  Tape<Real>& t = active_tape<Real>();
  const detail::MatrixOperand<Real> op = detail::operand_of(t, x);
  Real* out = t.arena().template allocate_array<Real>(static_cast<std::size_t>(op.size()));
  return detail::log_softmax_node(t, op, op.values, out);
}

}  // namespace ngvi::ad
