// log_softmax of a vector as one fused node: y_i = x_i − log Σ_j exp(x_j).
//
// The reverse step uses the softmax s = exp(y): x̄_j += ȳ_j − s_j Σ_i ȳ_i, which is O(n)
// instead of the O(n²) of one statement per output; Σ ȳ is a fixed_order_sum, so the
// result does not depend on where the adjoints sit. Cost: one pass forward (two exp
// passes), one pass backward.
#pragma once

#include <cmath>
#include <stdexcept>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/eigen/fixed_order_sum.hpp>
#include <autodiff/eigen/operand.hpp>

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
}  // namespace detail

template <class Derived>
auto log_softmax(const Eigen::MatrixBase<Derived>& x) {
  using S = typename Derived::Scalar;
  constexpr int Rows = Derived::RowsAtCompileTime;
  constexpr int Cols = Derived::ColsAtCompileTime;
  if (x.size() == 0) throw std::invalid_argument("ngvi::ad::log_softmax: empty argument");
  using std::exp;
  using std::log;
  if constexpr (!is_var_v<S>) {
    const S mx = x.maxCoeff();
    const S lse = mx + log((x.array() - mx).exp().sum());
    return Eigen::Matrix<S, Rows, Cols>(x.array() - lse);
  } else {
    using Real = tape_scalar_t<S>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<detail::LogSoftmaxNode<Real>>();
    node->x = detail::save_operand(t, x);
    const Eigen::Index n = node->x.size();
    const Real* v = node->x.values;
    Real mx = v[0];
    for (Eigen::Index i = 1; i < n; ++i)
      if (value_of(v[i]) > value_of(mx)) mx = v[i];
    Real z(0.0);
    for (Eigen::Index i = 0; i < n; ++i) z += exp(v[i] - mx);
    const Real lse = mx + log(z);
    Real* s = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
    detail::RealMatrix<Real> out(node->x.rows, node->x.cols);
    for (Eigen::Index i = 0; i < n; ++i) {
      out(i) = v[i] - lse;
      s[i] = exp(out(i));
    }
    node->softmax = s;
    if (!node->x.active)
      return Eigen::Matrix<Var<Real>, Rows, Cols>(out.template cast<Var<Real>>());
    node->out_first = t.new_indices(static_cast<std::size_t>(n));
    t.push_fused(node);
    return detail::make_output<Rows, Cols>(t, node->out_first, out);
  }
}

}  // namespace ngvi::ad
