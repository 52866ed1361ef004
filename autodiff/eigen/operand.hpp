// Saving matrix operands of fused nodes, and handing adjoints back to them.
//
// A fused node keeps, in the tape's arena, the values of each matrix operand (in the tape
// scalar, column-major) and where the operand's adjoints live. Operands whose variables have
// consecutive indices in column-major order — the outputs of other fused nodes, or a block
// of the inputs — are recognised, so the reverse step adds into them with one vectorisable
// loop instead of scattering through an index list. Adjoints are only ever updated through
// add_each: coefficient by coefficient, never by an Eigen kernel whose result could depend on
// the alignment of the adjoint block (see add_each).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/core/tape.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>

namespace ngvi::ad::detail {

template <class Real>
using RealMatrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;

template <class Real>
struct MatrixOperand {
  Eigen::Index rows = 0;
  Eigen::Index cols = 0;
  const Real* values = nullptr;      // rows*cols, column-major
  const index_t* indices = nullptr;  // per entry; nullptr when contiguous or constant
  index_t first = no_index;          // first index when contiguous
  bool active = false;

  Eigen::Index size() const { return rows * cols; }
  Eigen::Map<const RealMatrix<Real>> value_map() const {
    return Eigen::Map<const RealMatrix<Real>>(values, rows, cols);
  }

  // adj[operand coefficient k] += increment(k) for k = 0 … size() − 1 (column-major), in one
  // plain loop. Every coefficient's increment is the same expression on every path the
  // compiler generates (scalar or vector iterations), so the result does not depend on where
  // the adjoints or the saved values sit — unlike an Eigen assignment into a mapped adjoint
  // block, whose scalar prologue and packet body (split by address) may round differently.
  // Cost: one pass.
  template <class Increment>
  void add_each(Real* adj, Increment&& increment) const {
    if (!active) return;
    const Eigen::Index n = size();
    if (indices == nullptr) {
      Real* dst = adj + first;
      for (Eigen::Index k = 0; k < n; ++k) dst[k] += increment(k);
    } else {
      for (Eigen::Index k = 0; k < n; ++k)
        if (indices[k] != no_index) adj[indices[k]] += increment(k);
    }
  }
  // adj[operand coefficient (i, j)] += increment(i, j), column by column: add_each for an
  // increment that depends on the row and the column. Cost: one pass.
  template <class Increment>
  void add_each_in_columns(Real* adj, Increment&& increment) const {
    if (!active) return;
    for (Eigen::Index j = 0; j < cols; ++j) {
      const Eigen::Index k0 = j * rows;
      if (indices == nullptr) {
        Real* dst = adj + first + k0;
        for (Eigen::Index i = 0; i < rows; ++i) dst[i] += increment(i, j);
      } else {
        for (Eigen::Index i = 0; i < rows; ++i)
          if (indices[k0 + i] != no_index) adj[indices[k0 + i]] += increment(i, j);
      }
    }
  }
  // adj[operand coefficient k] += s[k]: adds an increment evaluated into scratch. Cost: one pass.
  void add_values(Real* adj, const Real* s) const {
    add_each(adj, [s](Eigen::Index k) { return s[k]; });
  }
};

// Copies values (unless keep_values is false) and indices (unless contiguous) of m into the
// arena of t.
template <class Real, class Derived>
MatrixOperand<Real> save_operand(Tape<Real>& t, const Eigen::MatrixBase<Derived>& m,
                                 bool keep_values = true) {
  using S = typename Derived::Scalar;
  MatrixOperand<Real> op;
  op.rows = m.rows();
  op.cols = m.cols();
  const Eigen::Index n = op.rows * op.cols;
  Real* vals =
      keep_values ? t.arena().template allocate_array<Real>(static_cast<std::size_t>(n)) : nullptr;
  op.values = vals;
  if constexpr (!is_var_v<S>) {
    static_assert(std::is_arithmetic_v<S> || std::is_same_v<S, Real>,
                  "ngvi::ad fused node: operands must be matrices of double or of Var<Real>");
    if (!keep_values) return op;
    Eigen::Index k = 0;
    for (Eigen::Index j = 0; j < op.cols; ++j)
      for (Eigen::Index i = 0; i < op.rows; ++i) vals[k++] = Real(m.derived().coeff(i, j));
    return op;
  } else {
    static_assert(std::is_same_v<S, Var<Real>>,
                  "ngvi::ad fused node: all Var operands must share the tape scalar");
    // First pass: values, and whether the indices are consecutive (the common case, which
    // needs no index list). Only an operand that is not gets its indices stored.
    const auto& md = m.derived();
    const index_t first = n > 0 ? md.coeff(0, 0).index() : no_index;
    bool contiguous = first != no_index;
    bool any_active = false;
    Eigen::Index k = 0;
    for (Eigen::Index j = 0; j < op.cols; ++j) {
      for (Eigen::Index i = 0; i < op.rows; ++i, ++k) {
        const Var<Real>& v = md.coeff(i, j);
        if constexpr (checked_mode) v.check_on(t);
        if (keep_values) vals[k] = v.value();
        any_active = any_active || v.is_active();
        contiguous = contiguous && v.index() == first + static_cast<index_t>(k);
      }
    }
    op.active = any_active;
    if (contiguous) {
      op.first = first;
    } else if (any_active) {
      index_t* idx = t.arena().template allocate_array<index_t>(static_cast<std::size_t>(n));
      k = 0;
      for (Eigen::Index j = 0; j < op.cols; ++j)
        for (Eigen::Index i = 0; i < op.rows; ++i, ++k) idx[k] = md.coeff(i, j).index();
      op.indices = idx;
    }
    return op;
  }
}

// A matrix of fresh Vars with consecutive indices starting at `first`, holding `vals`.
template <int Rows, int Cols, class Real, class ValueMatrix>
Eigen::Matrix<Var<Real>, Rows, Cols> make_output(const Tape<Real>& t, index_t first,
                                                 const ValueMatrix& vals) {
  Eigen::Matrix<Var<Real>, Rows, Cols> out(vals.rows(), vals.cols());
  Eigen::Index k = 0;
  for (Eigen::Index j = 0; j < vals.cols(); ++j)
    for (Eigen::Index i = 0; i < vals.rows(); ++i, ++k)
      out(i, j) = Var<Real>::from_index(vals(i, j), first + static_cast<index_t>(k), t);
  return out;
}

// The tape scalar shared by the operands of a fused function (double if none is a Var).
template <class... S>
struct common_real {
  using type = double;
};
template <class S, class... Rest>
struct common_real<S, Rest...> {
  using type =
      std::conditional_t<is_var_v<S>, tape_scalar_t<S>, typename common_real<Rest...>::type>;
};
template <class... S>
using common_real_t = typename common_real<S...>::type;

template <class... S>
inline constexpr bool any_var_v = (is_var_v<S> || ...);

}  // namespace ngvi::ad::detail
