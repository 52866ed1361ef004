// matmul: a matrix product recorded as one fused node.
//
// C = A·B where A and B are Eigen matrices of double or of Var<Real>. The node stores both
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

template <int Rows, int Cols, int K, class DA, class DB>
Eigen::Matrix<Var<Dual<double, K>>, Rows, Cols> dual_matmul(Tape<Dual<double, K>>& t,
                                                            const Eigen::MatrixBase<DA>& A,
                                                            const Eigen::MatrixBase<DB>& B) {
  using Real = Dual<double, K>;
  auto* node = t.arena().template create<DualMatmulNode<K>>();
  node->a = save_operand(t, A, false);
  node->b = save_operand(t, B, false);
  node->as = split_in_arena<K>(t.arena(), A);
  node->bs = split_in_arena<K>(t.arena(), B);
  const Eigen::Index m = A.rows(), n = B.cols();
  double* cv = t.arena().template allocate_array<double>(static_cast<std::size_t>(m * n));
  double* cd = t.arena().template allocate_array<double>(static_cast<std::size_t>(K * m * n));
  DualMatmulNode<K>::product(node->as, node->bs, cv, cd);
  const bool active = node->a.active || node->b.active;
  node->c_first = active ? t.new_indices(static_cast<std::size_t>(m * n)) : no_index;
  Eigen::Matrix<Var<Real>, Rows, Cols> out(m, n);
  Real c;
  for (Eigen::Index i = 0; i < m * n; ++i) {
    c.v = cv[i];
    for (int k = 0; k < K; ++k) c.d[k] = cd[k * m * n + i];
    out(i) = active ? Var<Real>::from_index(c, node->c_first + static_cast<index_t>(i), t)
                    : Var<Real>(c);
  }
  if (active) t.push_fused(node);
  return out;
}

}  // namespace detail

template <class DA, class DB>
auto matmul(const Eigen::MatrixBase<DA>& A, const Eigen::MatrixBase<DB>& B) {
  using SA = typename DA::Scalar;
  using SB = typename DB::Scalar;
  constexpr int Rows = DA::RowsAtCompileTime;
  constexpr int Cols = DB::ColsAtCompileTime;
  if (A.cols() != B.rows())
    throw std::invalid_argument("ngvi::ad::matmul: shapes " + std::to_string(A.rows()) + "x" +
                                std::to_string(A.cols()) + " and " + std::to_string(B.rows()) +
                                "x" + std::to_string(B.cols()) + " do not multiply");
  if constexpr (!detail::any_var_v<SA, SB>) {
    return Eigen::Matrix<typename Eigen::ScalarBinaryOpTraits<SA, SB>::ReturnType, Rows, Cols>(
        A.derived() * B.derived());
  } else {
    using Real = detail::common_real_t<SA, SB>;
    Tape<Real>& t = active_tape<Real>();
    if constexpr (is_double_dual<Real>::value) {
      return detail::dual_matmul<Rows, Cols>(t, A, B);
    } else {
      auto* node = t.arena().template create<detail::MatmulNode<Real>>();
      node->a = detail::save_operand(t, A);
      node->b = detail::save_operand(t, B);
      const detail::RealMatrix<Real> C = node->a.value_map() * node->b.value_map();
      if (!node->a.active && !node->b.active) {
        Eigen::Matrix<Var<Real>, Rows, Cols> out = C.template cast<Var<Real>>();
        return out;
      }
      node->c_first = t.new_indices(static_cast<std::size_t>(C.size()));
      t.push_fused(node);
      return detail::make_output<Rows, Cols>(t, node->c_first, C);
    }
  }
}

}  // namespace ngvi::ad
