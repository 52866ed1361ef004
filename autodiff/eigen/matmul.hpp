// matmul and affine: a matrix product, and a product plus a bias on every row, recorded as one
// fused node.
//
// C = A·B where A and B are Eigen matrices of double or of Var<Real>, or ad::MatrixVar handles
// (matrix_var.hpp), whose values the node then shares instead of copying. The node stores both
// operands' values; its reverse step is two matrix products, Ā += C̄·Bᵀ and B̄ += Aᵀ·C̄, run by
// Eigen's GEMM into aligned per-thread scratch, then added to the adjoints coefficient by
// coefficient, so the result does not depend on where the adjoints sit. Cost: forward one
// GEMM; reverse up to two GEMMs plus one pass over each operand; memory (m·n + n·k) values.
// With double operands it is just Eigen's product.
//
// affine(X, W, b) = X·W + 1·bᵀ — a dense layer on a batch stored one example per row, what
// nn::Dense records and PyTorch's addmm computes — is the same node with b added while C is
// written and b̄ (C̄'s column sums) taken in the reverse step: the bits of
// add_rowwise(matmul(X, W), b), without the second m·n matrix of variables, its adjoints and its
// two passes.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/eigen/dual_matmul.hpp>
#include <autodiff/eigen/fixed_order_sum.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/reverse_scratch.hpp>

namespace ngvi::ad {

namespace detail {

template <class Real>
struct MatmulNode {
  MatrixOperand<Real> a;
  MatrixOperand<Real> b;
  MatrixOperand<Real> bias;  // affine's vector, one entry per column of C; empty for matmul
  index_t c_first;

  // Each product goes into aligned scratch and is then added to the adjoints (see
  // reverse_scratch.hpp): Eigen's small-product and outer-product kernels split their
  // destination by address, so a product accumulated straight into the adjoint block would
  // round differently at different tape positions.
  void reverse(Real* adj) const {
    using Mat = RealMatrix<Real>;
    using ScratchMap = Eigen::Map<Mat, Eigen::AlignedMax>;
    const Eigen::Map<const Mat> G(adj + c_first, a.rows, b.cols);
    add_column_sums(bias, adj, G.data(), a.rows, b.cols);
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
MatrixVar<Dual<double, K>> dual_matmul(Tape<Dual<double, K>>& t, const A& a, const B& b,
                                       const MatrixOperand<Dual<double, K>>& bias) {
  using Real = Dual<double, K>;
  if constexpr (is_var_v<argument_scalar_t<A>>) {
    if (b.cols() == 1) {
      // A matrix of duals times a vector: multiplied in place (dual_matmul.hpp).
      auto* node = t.arena().template create<DualMatvecNode<K>>();
      node->a = operand_of(t, a);
      node->b = operand_of(t, b);
      node->bias = bias;
      const Eigen::Index m = node->a.rows;
      Real* c = t.arena().template allocate_array<Real>(static_cast<std::size_t>(m));
      DualMatvecNode<K>::product(node->a.values, node->b.values, m, node->a.cols, bias.values, c);
      return close_node(t, node, node->c_first, m, 1, c,
                        node->a.active || node->b.active || bias.active);
    }
  }
  auto* node = t.arena().template create<DualMatmulNode<K>>();
  node->a = operand_of(t, a, false);
  node->b = operand_of(t, b, false);
  node->bias = bias;
  node->as = split_argument<K>(t.arena(), a, node->a);
  node->bs = split_argument<K>(t.arena(), b, node->b);
  const Eigen::Index m = node->a.rows, n = node->b.cols;
  double* cv = t.arena().template allocate_array<double>(static_cast<std::size_t>(m * n));
  double* cd = t.arena().template allocate_array<double>(static_cast<std::size_t>(K * m * n));
  Real* c = t.arena().template allocate_array<Real>(static_cast<std::size_t>(m * n));
  DualMatmulNode<K>::product(node->as, node->bs, bias.values, cv, cd, c);
  return close_node(t, node, node->c_first, m, n, c,
                    node->a.active || node->b.active || bias.active);
}

// A·B, plus 1·vᵀ when v is given: the body of matmul and affine (`name` for messages).
template <class A, class B, class V>
auto product_node(const A& a, const B& b, const V* v, const char* name) {
  using SA = argument_scalar_t<A>;
  using SB = argument_scalar_t<B>;
  using SV = argument_scalar_t<V>;
  constexpr int Rows = rows_at_compile_time<A>();
  constexpr int Cols = cols_at_compile_time<B>();
  if (a.cols() != b.rows())
    throw std::invalid_argument(std::string("ngvi::ad::") + name + ": shapes " +
                                std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                                " and " + std::to_string(b.rows()) + "x" +
                                std::to_string(b.cols()) + " do not multiply");
  if (v && (v->size() != b.cols() || (v->rows() != 1 && v->cols() != 1)))
    throw std::invalid_argument(
        std::string("ngvi::ad::") + name + ": a " + std::to_string(v->rows()) + "x" +
        std::to_string(v->cols()) + " bias for a product with " + std::to_string(b.cols()) +
        " columns; expected a vector of length " + std::to_string(b.cols()));
  if constexpr (!any_var_v<SA, SB, SV>) {
    using S = typename Eigen::ScalarBinaryOpTraits<SA, SB>::ReturnType;
    Eigen::Matrix<S, Rows, Cols> out = a * b;
    if (v)
      for (Eigen::Index j = 0; j < out.cols(); ++j)
        for (Eigen::Index i = 0; i < out.rows(); ++i) out(i, j) += S(v->coeff(j));
    return out;
  } else {
    using Real = common_real_t<SA, SB, SV>;
    constexpr bool as_handle = is_matrix_var_v<A> || is_matrix_var_v<B> || is_matrix_var_v<V>;
    Tape<Real>& t = active_tape<Real>();
    const MatrixOperand<Real> bias = v ? operand_of(t, *v) : MatrixOperand<Real>{};
    if constexpr (is_double_dual<Real>::value) {
      return node_result<as_handle, Rows, Cols>(dual_matmul(t, a, b, bias));
    } else {
      auto* node = t.arena().template create<MatmulNode<Real>>();
      node->a = operand_of(t, a);
      node->b = operand_of(t, b);
      node->bias = bias;
      const Eigen::Index m = node->a.rows, n = node->b.cols;
      Real* c = t.arena().template allocate_array<Real>(static_cast<std::size_t>(m * n));
      Eigen::Map<RealMatrix<Real>, Eigen::AlignedMax>(c, m, n).noalias() =
          node->a.value_map() * node->b.value_map();
      if (v)
        for (Eigen::Index j = 0; j < n; ++j)
          for (Eigen::Index i = 0; i < m; ++i) c[i + j * m] += bias.values[j];
      return node_result<as_handle, Rows, Cols>(close_node(
          t, node, node->c_first, m, n, c, node->a.active || node->b.active || bias.active));
    }
  }
}

}  // namespace detail

// A·B for Eigen matrices and matrix variables (either may be a transpose() view). Throws
// std::invalid_argument naming both shapes if they do not multiply. Returns a MatrixVar when
// either argument is one, an Eigen matrix of Var when either has Var coefficients, Eigen's
// product otherwise. Cost: see the top of this file.
template <MatrixArgument A, MatrixArgument B>
auto matmul(const A& a, const B& b) {
  return detail::product_node(a, b, static_cast<const Eigen::MatrixXd*>(nullptr), "matmul");
}

// X·W + 1·bᵀ: the product plus the vector b (one entry per column of W, a row or a column) on
// every row, as one node with the bits of add_rowwise(matmul(X, W), b). Any argument may be an
// Eigen matrix of double or Var or a matrix variable (X and W also a transpose() view); the
// result is as matmul's. Throws std::invalid_argument naming the shapes if X and W do not
// multiply or b is not a vector of W.cols() entries. Cost: matmul's, plus one pass over C̄ in
// the reverse step for b̄ — the separate add_rowwise's m·n variables and two passes saved.
template <MatrixArgument A, MatrixArgument B, MatrixArgument V>
auto affine(const A& x, const B& w, const V& b) {
  return detail::product_node(x, w, &b, "affine");
}

}  // namespace ngvi::ad
