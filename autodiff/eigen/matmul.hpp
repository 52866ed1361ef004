// matmul: a matrix product recorded as one fused node.
//
// C = A·B where A and B are Eigen matrices of double or of Var<Real>, or ad::MatrixVar handles
// (matrix_var.hpp), whose values the node then shares instead of copying. The node stores both
// operands' values; its reverse step is two matrix products, Ā += C̄·Bᵀ and B̄ += Aᵀ·C̄, run by
// Eigen's GEMM into aligned per-thread scratch, then added to the adjoints coefficient by
// coefficient, so the result does not depend on where the adjoints sit. Cost: forward one
// GEMM; reverse up to two GEMMs plus one pass over each operand; memory (m·n + n·k) values.
// With double operands it is just Eigen's product.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/eigen/dual_matmul.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/reverse_scratch.hpp>

namespace ngvi::ad {

namespace detail {

template <class Real>
struct MatmulNode {
  MatrixOperand<Real> a;
  MatrixOperand<Real> b;
  index_t c_first;

  // Each product goes into aligned scratch and is then added to the adjoints (see
  // reverse_scratch.hpp): Eigen's small-product and outer-product kernels split their
  // destination by address, so a product accumulated straight into the adjoint block would
  // round differently at different tape positions.
  void reverse(Real* adj) const {
    using Mat = RealMatrix<Real>;
    using ScratchMap = Eigen::Map<Mat, Eigen::AlignedMax>;
    const Eigen::Map<const Mat> G(adj + c_first, a.rows, b.cols);
    if (a.active) {
      Real* s = reverse_scratch<Real>(0, static_cast<std::size_t>(a.size()));
      ScratchMap(s, a.rows, a.cols).noalias() = G * b.value_map().transpose();
      a.add_values(adj, s);
    }
    if (b.active) {
      Real* s = reverse_scratch<Real>(0, static_cast<std::size_t>(b.size()));
      ScratchMap(s, b.rows, b.cols).noalias() = a.value_map().transpose() * G;
      b.add_values(adj, s);
    }
  }
};

// The split (double) form of a dual matmul argument: an Eigen matrix is split straight from its
// coefficients, a handle from the operand's values in the arena.
template <int K, class X>
SplitDual<K> split_argument(Arena& arena, const X& x, const MatrixOperand<Dual<double, K>>& op) {
  if constexpr (is_matrix_var_v<X>)
    return split_values<K>(arena, op.values, op.rows, op.cols);
  else
    return split_in_arena<K>(arena, x);
}

template <int K, class A, class B>
MatrixVar<Dual<double, K>> dual_matmul(Tape<Dual<double, K>>& t, const A& a, const B& b) {
  using Real = Dual<double, K>;
  auto* node = t.arena().template create<DualMatmulNode<K>>();
  node->a = operand_of(t, a, false);
  node->b = operand_of(t, b, false);
  node->as = split_argument<K>(t.arena(), a, node->a);
  node->bs = split_argument<K>(t.arena(), b, node->b);
  const Eigen::Index m = node->a.rows, n = node->b.cols;
  double* cv = t.arena().template allocate_array<double>(static_cast<std::size_t>(m * n));
  double* cd = t.arena().template allocate_array<double>(static_cast<std::size_t>(K * m * n));
  DualMatmulNode<K>::product(node->as, node->bs, cv, cd);
  Real* c = t.arena().template allocate_array<Real>(static_cast<std::size_t>(m * n));
  for (Eigen::Index i = 0; i < m * n; ++i) {
    c[i].v = cv[i];
    for (int k = 0; k < K; ++k) c[i].d[k] = cd[k * m * n + i];
  }
  return close_node(t, node, node->c_first, m, n, c, node->a.active || node->b.active);
}

}  // namespace detail

// A·B for Eigen matrices and matrix variables (either may be a transpose() view). Throws
// std::invalid_argument naming both shapes if they do not multiply. Returns a MatrixVar when
// either argument is one, an Eigen matrix of Var when either has Var coefficients, Eigen's
// product otherwise. Cost: see the top of this file.
template <MatrixArgument A, MatrixArgument B>
auto matmul(const A& a, const B& b) {
  using SA = detail::argument_scalar_t<A>;
  using SB = detail::argument_scalar_t<B>;
  constexpr int Rows = detail::rows_at_compile_time<A>();
  constexpr int Cols = detail::cols_at_compile_time<B>();
  if (a.cols() != b.rows())
    throw std::invalid_argument("ngvi::ad::matmul: shapes " + std::to_string(a.rows()) + "x" +
                                std::to_string(a.cols()) + " and " + std::to_string(b.rows()) +
                                "x" + std::to_string(b.cols()) + " do not multiply");
  if constexpr (!detail::any_var_v<SA, SB>) {
    return Eigen::Matrix<typename Eigen::ScalarBinaryOpTraits<SA, SB>::ReturnType, Rows, Cols>(a *
                                                                                               b);
  } else {
    using Real = detail::common_real_t<SA, SB>;
    constexpr bool as_handle = is_matrix_var_v<A> || is_matrix_var_v<B>;
    Tape<Real>& t = active_tape<Real>();
    if constexpr (is_double_dual<Real>::value) {
      return detail::node_result<as_handle, Rows, Cols>(detail::dual_matmul(t, a, b));
    } else {
      auto* node = t.arena().template create<detail::MatmulNode<Real>>();
      node->a = detail::operand_of(t, a);
      node->b = detail::operand_of(t, b);
      const Eigen::Index m = node->a.rows, n = node->b.cols;
      Real* c = t.arena().template allocate_array<Real>(static_cast<std::size_t>(m * n));
      Eigen::Map<detail::RealMatrix<Real>, Eigen::AlignedMax>(c, m, n).noalias() =
          node->a.value_map() * node->b.value_map();
      return detail::node_result<as_handle, Rows, Cols>(
          detail::close_node(t, node, node->c_first, m, n, c, node->a.active || node->b.active));
    }
  }
}

}  // namespace ngvi::ad
