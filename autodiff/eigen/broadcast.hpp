// Adding a vector to every row or column of a matrix, as one fused node.
//
// add_rowwise(M, r) = M + 1·rᵀ (r has one entry per column: a bias added to each example of a
// batch stored one example per row); add_colwise(M, c) = M + c·1ᵀ. The reverse step passes
// the output adjoints to M and their column (row) sums to the vector, summed in an order that
// depends only on the shape (fixed_order_sum for columns, column by column for rows).
// Either argument may be an ad::MatrixVar (matrix_var.hpp) or the transpose() view of one.
// Cost: one pass forward, one pass backward.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/eigen/fixed_order_sum.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/reverse_scratch.hpp>

namespace ngvi::ad {

namespace detail {

template <class Real, bool Rowwise>
struct BroadcastAddNode {
  MatrixOperand<Real> m;
  MatrixOperand<Real> v;
  index_t out_first;

  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    m.add_each(adj, [g](Eigen::Index k) { return g[k]; });
    if constexpr (Rowwise) {
      add_column_sums(v, adj, g, m.rows, m.cols);
    } else if (v.active) {
      // The row sums, column by column: the order depends only on the shape.
      Real* s = reverse_scratch<Real>(0, static_cast<std::size_t>(v.size()));
      for (Eigen::Index i = 0; i < m.rows; ++i) s[i] = g[i];
      for (Eigen::Index j = 1; j < m.cols; ++j)
        for (Eigen::Index i = 0; i < m.rows; ++i) s[i] += g[j * m.rows + i];
      v.add_values(adj, s);
    }
  }
};

template <bool Rowwise, class M, class V>
auto broadcast_add(const M& m, const V& v, const char* name) {
  using SM = argument_scalar_t<M>;
  using SV = argument_scalar_t<V>;
  constexpr int Rows = rows_at_compile_time<M>();
  constexpr int Cols = cols_at_compile_time<M>();
  const Eigen::Index need = Rowwise ? m.cols() : m.rows();
  const bool is_vector = v.rows() == 1 || v.cols() == 1;
  if (v.size() != need || !is_vector)
    throw std::invalid_argument(
        std::string("ngvi::ad::") + name + ": " +
        (is_vector ? "vector of length " + std::to_string(v.size())
                   : "a " + std::to_string(v.rows()) + "x" + std::to_string(v.cols()) + " matrix") +
        " added to a " + std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
        " matrix; expected a vector of length " + std::to_string(need));
  if constexpr (!any_var_v<SM, SV>) {
    using S = typename Eigen::ScalarBinaryOpTraits<SM, SV>::ReturnType;
    Eigen::Matrix<S, Rows, Cols> out = m.template cast<S>();
    for (Eigen::Index j = 0; j < out.cols(); ++j)
      for (Eigen::Index i = 0; i < out.rows(); ++i) out(i, j) += S(v.coeff(Rowwise ? j : i));
    return out;
  } else {
    using Real = common_real_t<SM, SV>;
    constexpr bool as_handle = is_matrix_var_v<M> || is_matrix_var_v<V>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<BroadcastAddNode<Real, Rowwise>>();
    node->m = operand_of(t, m);
    node->v = operand_of(t, v);
    const Eigen::Index rows = node->m.rows, cols = node->m.cols;
    const Real* mv = node->m.values;
    const Real* vv = node->v.values;
    Real* out = t.arena().template allocate_array<Real>(static_cast<std::size_t>(rows * cols));
    // In place (copy, then +=): a Dual<double, K> sum built as a temporary went through the
    // stack, store-forwarding stalls included, at K = 32 a fifth of W6's Hessian.
    for (Eigen::Index j = 0; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) {
        Real& o = out[i + j * rows];
        o = mv[i + j * rows];
        o += vv[Rowwise ? j : i];
      }
    return node_result<as_handle, Rows, Cols>(
        close_node(t, node, node->out_first, rows, cols, out, node->m.active || node->v.active));
  }
}
}  // namespace detail

// M + 1·rᵀ: r (one entry per column of M) is added to every row.
template <MatrixArgument M, MatrixArgument V>
auto add_rowwise(const M& m, const V& r) {
  return detail::broadcast_add<true>(m, r, "add_rowwise");
}
// M + c·1ᵀ: c (one entry per row of M) is added to every column.
template <MatrixArgument M, MatrixArgument V>
auto add_colwise(const M& m, const V& c) {
  return detail::broadcast_add<false>(m, c, "add_colwise");
}

}  // namespace ngvi::ad
