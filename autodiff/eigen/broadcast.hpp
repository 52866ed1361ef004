// Adding a vector to every row or column of a matrix, as one fused node.
//
// add_rowwise(M, r) = M + 1·rᵀ (r has one entry per column: a bias added to each example of a
// batch stored one example per row); add_colwise(M, c) = M + c·1ᵀ. The reverse step passes
// the output adjoints to M and their column (row) sums to the vector, summed in an order that
// depends only on the shape (fixed_order_sum for columns, column by column for rows).
// Cost: one pass forward, one pass backward.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/eigen/fixed_order_sum.hpp>
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
    if (!v.active) return;
    // The vector's adjoint is a sum over the broadcast dimension, taken in a fixed order
    // (Eigen's colwise().sum() would peel by the address of the adjoint block).
    Real* s = reverse_scratch<Real>(0, static_cast<std::size_t>(v.size()));
    if constexpr (Rowwise) {
      for (Eigen::Index j = 0; j < m.cols; ++j) s[j] = fixed_order_sum(g + j * m.rows, m.rows);
    } else {
      for (Eigen::Index i = 0; i < m.rows; ++i) s[i] = g[i];
      for (Eigen::Index j = 1; j < m.cols; ++j)
        for (Eigen::Index i = 0; i < m.rows; ++i) s[i] += g[j * m.rows + i];
    }
    v.add_values(adj, s);
  }
};

template <bool Rowwise, class DM, class DV>
auto broadcast_add(const Eigen::MatrixBase<DM>& m, const Eigen::MatrixBase<DV>& v,
                   const char* name) {
  using SM = typename DM::Scalar;
  using SV = typename DV::Scalar;
  constexpr int Rows = DM::RowsAtCompileTime;
  constexpr int Cols = DM::ColsAtCompileTime;
  const Eigen::Index need = Rowwise ? m.cols() : m.rows();
  if (v.size() != need)
    throw std::invalid_argument(std::string("ngvi::ad::") + name + ": vector of length " +
                                std::to_string(v.size()) + " added to a " +
                                std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
                                " matrix; expected length " + std::to_string(need));
  if constexpr (!any_var_v<SM, SV>) {
    using S = typename Eigen::ScalarBinaryOpTraits<SM, SV>::ReturnType;
    Eigen::Matrix<S, Rows, Cols> out = m.template cast<S>();
    for (Eigen::Index j = 0; j < out.cols(); ++j)
      for (Eigen::Index i = 0; i < out.rows(); ++i)
        out(i, j) += S(v.derived().coeff(Rowwise ? j : i));
    return out;
  } else {
    using Real = common_real_t<SM, SV>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<BroadcastAddNode<Real, Rowwise>>();
    node->m = save_operand(t, m);
    node->v = save_operand(t, v);
    const Eigen::Map<const Eigen::Matrix<Real, Eigen::Dynamic, 1>> vv(node->v.values, v.size());
    RealMatrix<Real> out = node->m.value_map();
    if constexpr (Rowwise)
      out.rowwise() += vv.transpose();
    else
      out.colwise() += vv;
    if (!node->m.active && !node->v.active)
      return Eigen::Matrix<Var<Real>, Rows, Cols>(out.template cast<Var<Real>>());
    node->out_first = t.new_indices(static_cast<std::size_t>(out.size()));
    t.push_fused(node);
    return make_output<Rows, Cols>(t, node->out_first, out);
  }
}
}  // namespace detail

// M + 1·rᵀ: r (one entry per column of M) is added to every row.
template <class DM, class DV>
auto add_rowwise(const Eigen::MatrixBase<DM>& m, const Eigen::MatrixBase<DV>& r) {
  return detail::broadcast_add<true>(m, r, "add_rowwise");
}
// M + c·1ᵀ: c (one entry per row of M) is added to every column.
template <class DM, class DV>
auto add_colwise(const Eigen::MatrixBase<DM>& m, const Eigen::MatrixBase<DV>& c) {
  return detail::broadcast_add<false>(m, c, "add_colwise");
}

}  // namespace ngvi::ad
