// The matrix product node for the forward-over-reverse tape, Tape<Dual<double, K>>.
//
// A product of dual matrices is K + 1 products of double matrices:
//   C.v = A.v B.v,   C.d_k = A.d_k B.v + A.v B.d_k,
// and likewise for the adjoints in the reverse step. Eigen's GEMM on Dual scalars would use
// its scalar fallback kernel; splitting the operands into double matrices (values and K
// tangent matrices side by side) lets every term run through Eigen's vectorised double GEMM,
// and constant operands (data matrices) skip their tangent terms altogether. When all K
// tangents sit side by side, the terms with a common factor become one wide GEMM. Every GEMM
// writes into memory aligned to Arena::array_alignment — arena arrays forward, per-thread
// reverse_scratch backward — and results reach the adjoints by MatrixOperand::add_each, so
// no bit depends on where the operands or adjoints sit.
#pragma once

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/core/tape.hpp>
#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/reverse_scratch.hpp>

namespace ngvi::ad::detail {

using MapXd = Eigen::Map<Eigen::MatrixXd>;
using ConstMapXd = Eigen::Map<const Eigen::MatrixXd>;

// A matrix of Dual<double, K> as double matrices: the values, then the K tangent matrices
// stored one after another (so together they form one rows × (K·cols) matrix).
template <int K>
struct SplitDual {
  Eigen::Index rows = 0, cols = 0;
  double* v = nullptr;
  double* d = nullptr;
  bool has_tangent = false;

  ConstMapXd value() const { return ConstMapXd(v, rows, cols); }
  ConstMapXd tangent(int k) const { return ConstMapXd(d + k * rows * cols, rows, cols); }
  ConstMapXd tangents() const { return ConstMapXd(d, rows, K * cols); }
};

template <int K>
void split_into(const Dual<double, K>* src, Eigen::Index n, double* v, double* d,
                bool& has_tangent) {
  has_tangent = false;
  for (Eigen::Index i = 0; i < n; ++i) {
    v[i] = src[i].v;
    for (int k = 0; k < K; ++k) {
      d[k * n + i] = src[i].d[k];
      has_tangent = has_tangent || src[i].d[k] != 0.0;
    }
  }
}

// Splits an Eigen matrix of double, Dual<double, K> or Var<Dual<double, K>> into the arena.
template <int K, class Derived>
SplitDual<K> split_in_arena(Arena& arena, const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  SplitDual<K> s;
  s.rows = m.rows();
  s.cols = m.cols();
  const Eigen::Index n = s.rows * s.cols;
  s.v = arena.allocate_array<double>(static_cast<std::size_t>(n));
  if constexpr (std::is_arithmetic_v<S>) {
    Eigen::Index i = 0;
    for (Eigen::Index c = 0; c < s.cols; ++c)
      for (Eigen::Index r = 0; r < s.rows; ++r)
        s.v[i++] = static_cast<double>(m.derived().coeff(r, c));
    return s;
  } else {
    s.d = arena.allocate_array<double>(static_cast<std::size_t>(K * n));
    Eigen::Index i = 0;
    for (Eigen::Index c = 0; c < s.cols; ++c) {
      for (Eigen::Index r = 0; r < s.rows; ++r, ++i) {
        // coeff() of an expression may return a temporary: copy the value out.
        Dual<double, K> x;
        if constexpr (is_var_v<S>) {
          x = m.derived().coeff(r, c).value();
        } else {
          x = m.derived().coeff(r, c);
        }
        s.v[i] = x.v;
        for (int k = 0; k < K; ++k) {
          s.d[k * n + i] = x.d[k];
          s.has_tangent = s.has_tangent || x.d[k] != 0.0;
        }
      }
    }
    return s;
  }
}

// Splits n = rows·cols dual values (column-major) into the arena.
template <int K>
SplitDual<K> split_values(Arena& arena, const Dual<double, K>* src, Eigen::Index rows,
                          Eigen::Index cols) {
  SplitDual<K> s;
  s.rows = rows;
  s.cols = cols;
  const Eigen::Index n = rows * cols;
  s.v = arena.allocate_array<double>(static_cast<std::size_t>(n));
  s.d = arena.allocate_array<double>(static_cast<std::size_t>(K * n));
  split_into<K>(src, n, s.v, s.d, s.has_tangent);
  return s;
}

// Adds the split increment (values v, tangent matrices d) onto the operand's adjoints.
template <int K>
void add_split_to_adjoints(const MatrixOperand<Dual<double, K>>& op, Dual<double, K>* adj,
                           const double* v, const double* d) {
  const Eigen::Index n = op.size();
  op.add_each(adj, [v, d, n](Eigen::Index i) {
    Dual<double, K> inc;
    inc.v = v[i];
    for (int k = 0; k < K; ++k) inc.d[k] = d[k * n + i];
    return inc;
  });
}

template <int K>
struct DualMatmulNode {
  MatrixOperand<Dual<double, K>> a;
  MatrixOperand<Dual<double, K>> b;
  SplitDual<K> as;
  SplitDual<K> bs;
  index_t c_first;

  // Whether each of B's K tangent matrices has at most one nonzero coefficient — the unit seeds
  // a Hessian driver gives its inputs — with its column-major position in entry[k] (−1: none).
  // Cost: stops at the second nonzero of a tangent, at most one pass over the tangents.
  static bool single_entry_tangents(const SplitDual<K>& B, Eigen::Index (&entry)[K]) {
    const Eigen::Index size = B.rows * B.cols;
    for (int k = 0; k < K; ++k) {
      entry[k] = -1;
      const double* t = B.d + k * size;
      for (Eigen::Index i = 0; i < size; ++i) {
        if (t[i] == 0.0) continue;
        if (entry[k] >= 0) return false;
        entry[k] = i;
      }
    }
    return true;
  }

  // C = A·B into (cv, cd). Cost: 1 GEMM + 1 wide GEMM (if B has tangents; K column scalings if
  // each tangent of B is a single entry) + K GEMMs (if A has tangents).
  static void product(const SplitDual<K>& A, const SplitDual<K>& B, double* cv, double* cd) {
    const Eigen::Index m = A.rows, n = B.cols;
    MapXd(cv, m, n).noalias() = A.value() * B.value();
    MapXd CD(cd, m, K * n);
    Eigen::Index entry[K];
    if (!B.has_tangent) {
      CD.setZero();
    } else if (single_entry_tangents(B, entry)) {
      // A·(s e_r e_cᵀ) is s times A's column r, in column c: the GEMM's bits, each coefficient
      // one rounded product (+ 0.0 turns a −0 into the GEMM's +0).
      CD.setZero();
      for (int k = 0; k < K; ++k) {
        if (entry[k] < 0) continue;
        const Eigen::Index r = entry[k] % B.rows, c = entry[k] / B.rows;
        const double s = B.d[k * B.rows * B.cols + entry[k]];
        const double* a = A.v + r * m;
        double* out = cd + (k * n + c) * m;
        for (Eigen::Index i = 0; i < m; ++i) out[i] = a[i] * s + 0.0;
      }
    } else {
      CD.noalias() = A.value() * B.tangents();
    }
    if (A.has_tangent)
      for (int k = 0; k < K; ++k) CD.middleCols(k * n, n).noalias() += A.tangent(k) * B.value();
  }

  void reverse(Dual<double, K>* adj) const {
    const Eigen::Index m = a.rows, inner = a.cols, n = b.cols;
    const Eigen::Index gn = m * n;
    double* gv = reverse_scratch<double>(0, static_cast<std::size_t>(gn));
    double* gd = reverse_scratch<double>(1, static_cast<std::size_t>(K * gn));
    bool g_has_tangent = false;
    split_into<K>(adj + c_first, gn, gv, gd, g_has_tangent);
    const ConstMapXd Gv(gv, m, n);
    if (a.active) {
      // Ā.v = Ḡ.v Bᵀ.v;  Ā.d_k = Ḡ.d_k B.vᵀ + Ḡ.v B.d_kᵀ
      double* rv = reverse_scratch<double>(2, static_cast<std::size_t>((K + 1) * m * inner));
      double* rd = rv + m * inner;
      MapXd(rv, m, inner).noalias() = Gv * bs.value().transpose();
      for (int k = 0; k < K; ++k) {
        MapXd Rk(rd + k * m * inner, m, inner);
        Rk.noalias() = ConstMapXd(gd + k * gn, m, n) * bs.value().transpose();
        if (bs.has_tangent) Rk.noalias() += Gv * bs.tangent(k).transpose();
      }
      add_split_to_adjoints<K>(a, adj, rv, rd);
    }
    if (b.active) {
      // B̄.v = A.vᵀ Ḡ.v;  B̄.d_k = A.vᵀ Ḡ.d_k + A.d_kᵀ Ḡ.v
      double* rv = reverse_scratch<double>(2, static_cast<std::size_t>((K + 1) * inner * n));
      double* rd = rv + inner * n;
      MapXd(rv, inner, n).noalias() = as.value().transpose() * Gv;
      MapXd RD(rd, inner, K * n);
      RD.noalias() = as.value().transpose() * ConstMapXd(gd, m, K * n);
      if (as.has_tangent)
        for (int k = 0; k < K; ++k)
          RD.middleCols(k * n, n).noalias() += as.tangent(k).transpose() * Gv;
      add_split_to_adjoints<K>(b, adj, rv, rd);
    }
  }
};

}  // namespace ngvi::ad::detail
