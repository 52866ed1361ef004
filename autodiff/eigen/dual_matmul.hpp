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
//
// A matrix of duals times a vector (C has one column: a network's single output) is the
// exception: splitting A would move all of its K + 1 components for K + 1 matrix-vector
// products that read them once. DualMatvecNode multiplies the duals where they are instead,
// C_i = Σ_l A_il b_l in Dual arithmetic, and in the reverse step adds Ā_il = C̄_i b_l straight
// into A's adjoints and sums b̄_l = Σ_i A_il C̄_i in fixed_order_sum's order.
//
// The node of ad::affine adds a bias
// vector to every row of C while it writes C's duals, and sums the bias's adjoint from the split
// adjoints, with the bits of a separate add_rowwise node (broadcast.hpp).
#pragma once

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/core/tape.hpp>
#include <autodiff/eigen/fixed_order_sum.hpp>
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

// v[i] = src[i].v and d[k·n + i] = src[i].d[k] for i < n: n duals into the value array and K
// tangent arrays. Cost: one pass, copies only.
template <int K>
void split_into(const Dual<double, K>* src, Eigen::Index n, double* v, double* d) {
  for (Eigen::Index i = 0; i < n; ++i) {
    v[i] = src[i].v;
    for (int k = 0; k < K; ++k) d[k * n + i] = src[i].d[k];
  }
}

// Whether any of the n values is nonzero (a −0 counts as zero). Cost: stops at the first one.
inline bool any_nonzero(const double* x, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i)
    if (x[i] != 0.0) return true;
  return false;
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
        for (int k = 0; k < K; ++k) s.d[k * n + i] = x.d[k];
      }
    }
    s.has_tangent = any_nonzero(s.d, K * n);
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
  split_into<K>(src, n, s.v, s.d);
  s.has_tangent = any_nonzero(s.d, K * n);
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
  using Real = Dual<double, K>;
  MatrixOperand<Real> a;
  MatrixOperand<Real> b;
  MatrixOperand<Real> bias;  // ad::affine's vector, one entry per column of C; empty otherwise
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

  // C = A·B, plus 1·biasᵀ when bias is given (B.cols duals), written as duals into c (A.rows ×
  // B.cols, column-major); cv has room for A.rows·B.cols doubles and cd for K times that. Each
  // coefficient is the product's, then (with a bias) that plus the bias entry, rounded once
  // more: the bits of add_rowwise on the product. Cost: 1 GEMM; if B has tangents, 1 wide GEMM,
  // or K column scalings when each tangent of B is a single entry (the unit seeds of a Hessian
  // driver; cd is then not used); if A has tangents, K GEMMs; one pass writing C.
  static void product(const SplitDual<K>& A, const SplitDual<K>& B, const Real* bias, double* cv,
                      double* cd, Real* c) {
    const Eigen::Index m = A.rows, n = B.cols, mn = m * n;
    MapXd(cv, m, n).noalias() = A.value() * B.value();
    Eigen::Index entry[K];
    if (A.has_tangent || (B.has_tangent && !single_entry_tangents(B, entry))) {
      MapXd CD(cd, m, K * n);
      if (B.has_tangent)
        CD.noalias() = A.value() * B.tangents();
      else
        CD.setZero();
      if (A.has_tangent)
        for (int k = 0; k < K; ++k) CD.middleCols(k * n, n).noalias() += A.tangent(k) * B.value();
      for (Eigen::Index j = 0; j < n; ++j) {
        for (Eigen::Index i = j * m; i < (j + 1) * m; ++i) {
          Real& o = c[i];
          o.v = cv[i];
          for (int k = 0; k < K; ++k) o.d[k] = cd[k * mn + i];
          if (bias) o += bias[j];
        }
      }
      return;
    }
    // C.d is zero except where a unit seed of B reaches it: A·(s e_r e_cᵀ) is s times A's
    // column r, in column c — the GEMM's bits, each coefficient one rounded product (+ 0.0
    // turns a −0 into the GEMM's +0) — written straight into the duals.
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index i = j * m; i < (j + 1) * m; ++i) {
        Real& o = c[i];
        o.v = cv[i];
        for (int k = 0; k < K; ++k) o.d[k] = 0.0;
        if (bias) o += bias[j];
      }
    }
    if (!B.has_tangent) return;
    for (int k = 0; k < K; ++k) {
      if (entry[k] < 0) continue;
      const Eigen::Index r = entry[k] % B.rows, col = entry[k] / B.rows;
      const double s = B.d[k * B.rows * B.cols + entry[k]];
      const double* ar = A.v + r * m;
      Real* out = c + col * m;
      if (bias) {
        const double add = bias[col].d[k];
        for (Eigen::Index i = 0; i < m; ++i) out[i].d[k] = (ar[i] * s + 0.0) + add;
      } else {
        for (Eigen::Index i = 0; i < m; ++i) out[i].d[k] = ar[i] * s + 0.0;
      }
    }
  }

  void reverse(Real* adj) const {
    const Eigen::Index m = a.rows, inner = a.cols, n = b.cols;
    const Eigen::Index gn = m * n;
    double* gv = reverse_scratch<double>(0, static_cast<std::size_t>(gn));
    double* gd = reverse_scratch<double>(1, static_cast<std::size_t>(K * gn));
    split_into<K>(adj + c_first, gn, gv, gd);
    const ConstMapXd Gv(gv, m, n);
    if (bias.active) {
      // The bias's adjoint: C̄'s column sums, component by component in fixed_order_sum's order
      // (add_rowwise sums the duals in the same order, so the bits are those of the two nodes).
      Real* s = reverse_scratch<Real>(0, static_cast<std::size_t>(n));
      for (Eigen::Index j = 0; j < n; ++j) {
        s[j].v = fixed_order_sum(gv + j * m, m);
        for (int k = 0; k < K; ++k) s[j].d[k] = fixed_order_sum(gd + k * gn + j * m, m);
      }
      bias.add_values(adj, s);
    }
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

// C = A·b (+ bias) for a matrix A of duals and a vector b: see the top of this file.
template <int K>
struct DualMatvecNode {
  using Real = Dual<double, K>;
  MatrixOperand<Real> a;     // m × inner, values kept
  MatrixOperand<Real> b;     // inner × 1, values kept
  MatrixOperand<Real> bias;  // one entry, or empty
  index_t c_first;

  // c_i = Σ_l A_il b_l, summed in the order l = 0, 1, …, then + bias when given (the bits of
  // add_rowwise on the product). Cost: m·inner dual multiply-adds, one pass over A.
  static void product(const Real* A, const Real* b, Eigen::Index m, Eigen::Index inner,
                      const Real* bias, Real* c) {
    for (Eigen::Index i = 0; i < m; ++i) c[i] = inner > 0 ? lane_product(A[i], b[0]) : Real(0.0);
    for (Eigen::Index l = 1; l < inner; ++l)
      for (Eigen::Index i = 0; i < m; ++i) c[i] += lane_product(A[i + l * m], b[l]);
    if (bias)
      for (Eigen::Index i = 0; i < m; ++i) c[i] += bias[0];
  }

  // Cost: one pass over A and its adjoints, m·inner dual products for each of Ā and b̄.
  void reverse(Real* adj) const {
    const Eigen::Index m = a.rows, inner = a.cols;
    const Real* g = adj + c_first;
    add_column_sums(bias, adj, g, m, 1);
    const Real* A = a.values;
    const Real* bv = b.values;
    a.add_each_in_columns(
        adj, [g, bv](Eigen::Index i, Eigen::Index l) { return lane_product(g[i], bv[l]); });
    if (!b.active) return;
    Real* terms = reverse_scratch<Real>(1, static_cast<std::size_t>(m));
    Real* s = reverse_scratch<Real>(2, static_cast<std::size_t>(inner));
    for (Eigen::Index l = 0; l < inner; ++l) {
      for (Eigen::Index i = 0; i < m; ++i) terms[i] = lane_product(A[i + l * m], g[i]);
      s[l] = fixed_order_sum(terms, m);
    }
    b.add_values(adj, s);
  }
};

}  // namespace ngvi::ad::detail
