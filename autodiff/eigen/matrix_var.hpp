// MatrixVar<Real>: one handle for a whole matrix of tape variables.
//
// An Eigen::Matrix<Var<Real>> holds a (value, index, stamp) triple per coefficient: every fused
// node that returns one writes 16 bytes a coefficient, and the next node reads them all back to
// copy the values out and to find again that the indices are consecutive. A MatrixVar is what
// those nodes actually produce: the values, column-major and contiguous in the tape's arena, and
// the index of the first of rows·cols consecutive variables (none for a constant). Fused nodes
// (matmul, affine, add_rowwise / add_colwise, every coefficient-wise function, cwise_*, sum,
// squared_norm, dot, log_sum_exp, rowwise_log_sum_exp, log_softmax) take a MatrixVar without a
// copy and return one when any operand is one (rowwise_log_sum_exp on Var always does; the
// reductions to a scalar return a Var), so a chain of fused nodes never materialises
// per-coefficient Vars; the idea of Stan's var_value<Matrix> and FastAD's pointer-to-matrix. With
// it a model reads like its math:
//
//   const auto A = ad::as_matrix(X) * W.transpose();   // one GEMM node
//   const auto H = ad::tanh(A.rowwise() + b.transpose());
//   return 0.5 * ad::squared_norm(H * w - y);
//
// ad::as_matrix makes the handle from an Eigen matrix of Var (no record when the indices are
// consecutive, as for a block of θ or another node's output; one gather node otherwise) and
// leaves a matrix of double a plain Eigen matrix, so generic model code runs on double, on
// Var<double> and on Var<Dual<double, K>>. to_eigen() gives the Matrix<Var> back. A transpose()
// is a view that products and broadcasts read directly.
//
// A MatrixVar lives on the tape that was active when it was made: its values sit in that
// tape's arena, so it is valid until the tape is rewound past it (checked mode reports a use
// after that, or on another thread's tape, as a usage_error). Copying one copies the handle.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/config.hpp>
#include <autodiff/core/tape.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/eigen/operand.hpp>

namespace ngvi::ad {

template <class Real>
class MatrixVar;
template <class Real>
class MatrixVarTranspose;

template <class X>
struct is_matrix_var : std::false_type {};
template <class Real>
struct is_matrix_var<MatrixVar<Real>> : std::true_type {};
template <class Real>
struct is_matrix_var<MatrixVarTranspose<Real>> : std::true_type {};
// Whether X is a MatrixVar or the transpose view of one.
template <class X>
inline constexpr bool is_matrix_var_v = is_matrix_var<std::remove_cvref_t<X>>::value;

// What the fused nodes accept: an Eigen matrix expression or a MatrixVar (or its transpose).
namespace detail {
template <class D>
std::true_type derives_from_matrix_base(const Eigen::MatrixBase<D>*);
std::false_type derives_from_matrix_base(...);
}  // namespace detail
template <class X>
concept EigenMatrixArgument =
    decltype(detail::derives_from_matrix_base(std::declval<std::remove_cvref_t<X>*>()))::value;
template <class X>
concept MatrixArgument = EigenMatrixArgument<X> || is_matrix_var_v<X>;

namespace detail {

template <class Real>
struct GatherNode;
template <class Real, bool Rowwise>
struct BroadcastView {
  MatrixVar<Real> m;
};
template <class Real>
struct MatrixVarParts {
  Eigen::Index rows = 0, cols = 0;
  const Real* values = nullptr;
  index_t first = no_index;
};

// The coefficient type of a fused node's argument: Var<Real> for a MatrixVar.
template <class X>
struct argument_scalar {
  using type = typename std::remove_cvref_t<X>::Scalar;
};
template <class Real>
struct argument_scalar<MatrixVar<Real>> {
  using type = Var<Real>;
};
template <class Real>
struct argument_scalar<MatrixVarTranspose<Real>> {
  using type = Var<Real>;
};
template <class X>
using argument_scalar_t = typename argument_scalar<std::remove_cvref_t<X>>::type;

}  // namespace detail

template <class Real>
class MatrixVar {
 public:
  using real_type = Real;
  using Scalar = Var<Real>;
  using ValueMap = Eigen::Map<const detail::RealMatrix<Real>>;

  // An empty (0×0) matrix.
  MatrixVar() = default;

  // The handle of m (double, Real or Var<Real> coefficients) on the active tape. Var
  // coefficients with consecutive indices in column-major order (a block of θ, a node's output)
  // are taken as they are; others get fresh consecutive variables by one gather node; without
  // an active coefficient the result is a constant. Cost: one copy of the values into the
  // arena (plus the gather's index list and, in the reverse sweep, one scatter).
  template <class Derived>
  explicit MatrixVar(const Eigen::MatrixBase<Derived>& m);

  // The transpose, recorded as one node (a product or broadcast reads a transpose() view
  // directly, without this). Cost: one pass over the values and, in the reverse sweep, one
  // over the adjoints.
  MatrixVar(const MatrixVarTranspose<Real>& t);  // NOLINT(google-explicit-constructor)

  // rows·cols fresh independent variables (inputs) holding `values`, on the active tape.
  // Cost: one copy of the values into the arena.
  template <class Derived>
  static MatrixVar variables(const Eigen::MatrixBase<Derived>& values);

  // Used by the fused nodes: the handle of values already in the arena of the active tape.
  explicit MatrixVar(const detail::MatrixVarParts<Real>& p)
      : rows_(p.rows),
        cols_(p.cols),
        values_(p.values),
        first_(p.first),
        stamp_(active_tape<Real>().stamp()) {}

  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  Eigen::Index size() const { return rows_ * cols_; }
  bool is_active() const { return first_ != no_index; }
  // The index of coefficient (0, 0); coefficient (i, j) has first_index() + i + j·rows().
  index_t first_index() const { return first_; }

  // The values (column-major), valid while the handle is.
  ValueMap value() const { return ValueMap(values_, rows_, cols_); }
  const Real* value_data() const { return values_; }

  // Coefficient (i, j) as a Var (records nothing).
  Var<Real> operator()(Eigen::Index i, Eigen::Index j) const {
    const Eigen::Index k = i + j * rows_;
    if (!is_active()) return Var<Real>(values_[k]);
    return Var<Real>::from_index(values_[k], first_ + static_cast<index_t>(k), active_tape<Real>());
  }
  Var<Real> operator()(Eigen::Index k) const { return (*this)(k % rows_, k / rows_); }

  // The same variables as an Eigen matrix of Var (records nothing). Cost: O(size).
  template <int Rows = Eigen::Dynamic, int Cols = Eigen::Dynamic>
  Eigen::Matrix<Var<Real>, Rows, Cols> to_eigen() const {
    Eigen::Matrix<Var<Real>, Rows, Cols> out(rows_, cols_);
    if (!is_active()) {
      for (Eigen::Index k = 0; k < size(); ++k) out(k) = Var<Real>(values_[k]);
      return out;
    }
    const Tape<Real>& t = active_tape<Real>();
    if constexpr (checked_mode) check_on(t);
    for (Eigen::Index k = 0; k < size(); ++k)
      out(k) = Var<Real>::from_index(values_[k], first_ + static_cast<index_t>(k), t);
    return out;
  }

  // The adjoints of the coefficients after a reverse sweep on t (zeros for a constant).
  // Cost: O(size), one copy.
  detail::RealMatrix<Real> adjoint(const Tape<Real>& t) const {
    if (!is_active()) return detail::RealMatrix<Real>::Zero(rows_, cols_);
    if constexpr (checked_mode) check_on(t);
    return Eigen::Map<const detail::RealMatrix<Real>>(&t.adjoint(first_), rows_, cols_);
  }

  // Columns j … j+n−1 as a handle of the same variables: column-major storage keeps them
  // contiguous, so this records nothing and copies nothing. Throws std::out_of_range unless
  // 0 <= j and j + n <= cols(). Cost: O(1).
  MatrixVar middleCols(Eigen::Index j, Eigen::Index n) const {
    if (j < 0 || n < 0 || j + n > cols_)
      throw std::out_of_range("ngvi::ad::MatrixVar::middleCols: columns " + std::to_string(j) +
                              ".." + std::to_string(j + n - 1) + " of a " + std::to_string(rows_) +
                              "x" + std::to_string(cols_) + " matrix variable");
    MatrixVar out = *this;
    out.cols_ = n;
    out.values_ = values_ + j * rows_;
    if (is_active()) out.first_ = first_ + static_cast<index_t>(j * rows_);
    return out;
  }
  MatrixVar col(Eigen::Index j) const { return middleCols(j, 1); }

  // Of a vector (one row or one column): entries i … i+n−1 as a handle of the same variables,
  // contiguous like any block of a vector, so this records nothing and copies nothing. Throws
  // std::invalid_argument if the handle is not a vector, std::out_of_range unless 0 <= i and
  // i + n <= size(). Cost: O(1).
  MatrixVar segment(Eigen::Index i, Eigen::Index n) const {
    if (rows_ != 1 && cols_ != 1)
      throw std::invalid_argument("ngvi::ad::MatrixVar::segment: a " + std::to_string(rows_) + "x" +
                                  std::to_string(cols_) +
                                  " matrix variable is not a vector (one row or one column)");
    if (i < 0 || n < 0 || i + n > size())
      throw std::out_of_range("ngvi::ad::MatrixVar::segment: entries " + std::to_string(i) + ".." +
                              std::to_string(i + n - 1) + " of a vector of " +
                              std::to_string(size()));
    MatrixVar out = *this;
    (rows_ == 1 ? out.cols_ : out.rows_) = n;
    out.values_ = values_ + i;
    if (is_active()) out.first_ = first_ + static_cast<index_t>(i);
    return out;
  }
  MatrixVar head(Eigen::Index n) const { return segment(0, n); }
  MatrixVar tail(Eigen::Index n) const { return segment(size() - n, n); }
  MatrixVar leftCols(Eigen::Index n) const { return middleCols(0, n); }
  MatrixVar rightCols(Eigen::Index n) const { return middleCols(cols_ - n, n); }

  MatrixVarTranspose<Real> transpose() const { return MatrixVarTranspose<Real>(*this); }

  // Broadcast views: m.rowwise() + r adds the vector r to every row (ad::add_rowwise),
  // m.colwise() + c adds c to every column (ad::add_colwise).
  detail::BroadcastView<Real, true> rowwise() const { return {*this}; }
  detail::BroadcastView<Real, false> colwise() const { return {*this}; }

  // The fused nodes' view of this handle: no copy.
  detail::MatrixOperand<Real> operand() const {
    detail::MatrixOperand<Real> op;
    op.rows = rows_;
    op.cols = cols_;
    op.values = values_;
    op.first = first_;
    op.active = is_active();
    return op;
  }

  // Throws usage_error unless the handle is a constant or its variables live on tape t.
  void check_on(const Tape<Real>& t) const {
    if (is_active() && !t.owns(first_, stamp_))
      throw usage_error("ngvi::ad::MatrixVar: a " + std::to_string(rows_) + "x" +
                        std::to_string(cols_) + " matrix variable (first variable #" +
                        std::to_string(first_) +
                        ") is not on this thread's active tape: it was recorded inside a "
                        "TapeScope that has since been rewound, or on another thread's tape");
  }

 private:
  Eigen::Index rows_ = 0, cols_ = 0;
  const Real* values_ = nullptr;
  index_t first_ = no_index;
  std::uint32_t stamp_ = 0;
};

template <class Derived>
MatrixVar(const Eigen::MatrixBase<Derived>&) -> MatrixVar<tape_scalar_t<typename Derived::Scalar>>;

// The transpose of a MatrixVar, as a view: matmul and the broadcasts read it in place; the
// binary coefficient-wise nodes, dot, log_sum_exp, rowwise_log_sum_exp and log_softmax take it
// as an operand (its values transposed into the arena, no node); any other use converts it to a
// MatrixVar (one transpose node).
template <class Real>
class MatrixVarTranspose {
 public:
  using real_type = Real;
  using Scalar = Var<Real>;
  explicit MatrixVarTranspose(const MatrixVar<Real>& m) : m_(m) {}
  Eigen::Index rows() const { return m_.cols(); }
  Eigen::Index cols() const { return m_.rows(); }
  Eigen::Index size() const { return m_.size(); }
  const MatrixVar<Real>& nested() const { return m_; }
  const MatrixVar<Real>& transpose() const { return m_; }

 private:
  MatrixVar<Real> m_;
};

namespace detail {

// Fresh variables holding a copy of an operand's coefficients; the reverse step passes their
// adjoints back through the operand's index list (a gather's adjoint is a scatter).
template <class Real>
struct GatherNode {
  MatrixOperand<Real> x;
  index_t out_first;
  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    x.add_each(adj, [g](Eigen::Index k) { return g[k]; });
  }
};

// Closes a fused node whose output is n values at `values`: when any operand is active, gives
// the output n fresh variables (their first stored in out_first, which the node's reverse step
// reads) and pushes the node; otherwise the output is a constant and nothing is recorded.
// Returns the output's handle.
template <class Real, class Node>
MatrixVar<Real> close_node(Tape<Real>& t, Node* node, index_t& out_first, Eigen::Index rows,
                           Eigen::Index cols, const Real* values, bool active) {
  index_t first = no_index;
  if (active) {
    out_first = first = t.new_indices(static_cast<std::size_t>(rows * cols));
    t.push_fused(node);
  }
  return MatrixVar<Real>(MatrixVarParts<Real>{rows, cols, values, first});
}

// The handle of operand op (its values already in the arena of t): op itself when its indices
// are consecutive or it is constant, otherwise fresh variables by one GatherNode.
template <class Real>
MatrixVar<Real> handle_of(Tape<Real>& t, const MatrixOperand<Real>& op) {
  if (!op.active || op.indices == nullptr)
    return MatrixVar<Real>(
        MatrixVarParts<Real>{op.rows, op.cols, op.values, op.active ? op.first : no_index});
  auto* node = t.arena().template create<GatherNode<Real>>();
  node->x = op;
  return close_node(t, node, node->out_first, op.rows, op.cols, op.values, true);
}

// The node's view of a transpose: the values transposed into the arena and, unless the matrix
// is a vector (whose column-major order a transpose keeps), the index of each coefficient.
// Cost: one pass over the values.
template <class Real>
MatrixOperand<Real> transposed_operand(Tape<Real>& t, const MatrixVar<Real>& m) {
  if constexpr (checked_mode) m.check_on(t);
  MatrixOperand<Real> op = m.operand();
  std::swap(op.rows, op.cols);
  if (m.rows() == 1 || m.cols() == 1) return op;
  const Eigen::Index r = m.rows(), c = m.cols(), n = m.size();
  Real* vals = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
  const Real* src = m.value_data();
  for (Eigen::Index i = 0; i < r; ++i)
    for (Eigen::Index j = 0; j < c; ++j) vals[j + i * c] = src[i + j * r];
  op.values = vals;
  if (m.is_active()) {
    index_t* idx = t.arena().template allocate_array<index_t>(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < r; ++i)
      for (Eigen::Index j = 0; j < c; ++j)
        idx[j + i * c] = m.first_index() + static_cast<index_t>(i + j * r);
    op.indices = idx;
  }
  return op;
}

// A fused node's view of one argument: Eigen matrices are saved into the arena (values only if
// keep_values), handles are taken as they are.
template <class Real, class Derived>
MatrixOperand<Real> operand_of(Tape<Real>& t, const Eigen::MatrixBase<Derived>& m,
                               bool keep_values = true) {
  return save_operand(t, m, keep_values);
}
template <class Real>
MatrixOperand<Real> operand_of(Tape<Real>& t, const MatrixVar<Real>& m, bool = true) {
  if constexpr (checked_mode) m.check_on(t);
  return m.operand();
}
template <class Real>
MatrixOperand<Real> operand_of(Tape<Real>& t, const MatrixVarTranspose<Real>& m, bool = true) {
  return transposed_operand(t, m.nested());
}

// A node's result: the handle when any argument was one, otherwise an Eigen matrix of Var
// (what the Eigen-only interface has always returned).
template <bool AsHandle, int Rows, int Cols, class Real>
auto node_result(const MatrixVar<Real>& out) {
  if constexpr (AsHandle)
    return out;
  else
    return out.template to_eigen<Rows, Cols>();
}

// Compile-time shape of an argument (dynamic for handles).
template <class X>
constexpr int rows_at_compile_time() {
  if constexpr (is_matrix_var_v<X>)
    return Eigen::Dynamic;
  else
    return std::remove_cvref_t<X>::RowsAtCompileTime;
}
template <class X>
constexpr int cols_at_compile_time() {
  if constexpr (is_matrix_var_v<X>)
    return Eigen::Dynamic;
  else
    return std::remove_cvref_t<X>::ColsAtCompileTime;
}

}  // namespace detail

template <class Real>
template <class Derived>
MatrixVar<Real>::MatrixVar(const Eigen::MatrixBase<Derived>& m) {
  Tape<Real>& t = active_tape<Real>();
  const detail::MatrixOperand<Real> op = detail::save_operand(t, m);
  *this = detail::handle_of(t, op);
  // Taken as they are, the variables keep the stamp they were recorded with (a driver may have
  // rewound to just after them since, which gives the tape a new stamp).
  if constexpr (is_var_v<typename Derived::Scalar>) {
    if (op.active && op.indices == nullptr) stamp_ = m.derived().coeff(0, 0).stamp();
  }
}

template <class Real>
MatrixVar<Real>::MatrixVar(const MatrixVarTranspose<Real>& tr) {
  Tape<Real>& t = active_tape<Real>();
  *this = detail::handle_of(t, detail::transposed_operand(t, tr.nested()));
}

template <class Real>
template <class Derived>
MatrixVar<Real> MatrixVar<Real>::variables(const Eigen::MatrixBase<Derived>& values) {
  Tape<Real>& t = active_tape<Real>();
  detail::MatrixOperand<Real> op = detail::save_operand(t, values);
  const index_t first = t.new_indices(static_cast<std::size_t>(op.size()));
  return MatrixVar<Real>(detail::MatrixVarParts<Real>{op.rows, op.cols, op.values, first});
}

// The matrix form generic model code computes with: a MatrixVar for Var coefficients, a plain
// Eigen matrix otherwise (double, or Dual outside a tape). Cost: one copy of m.
template <class Derived>
auto as_matrix(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  if constexpr (is_var_v<S>)
    return MatrixVar<tape_scalar_t<S>>(m);
  else
    return typename Derived::PlainObject(m);
}
template <class Real>
const MatrixVar<Real>& as_matrix(const MatrixVar<Real>& m) {
  return m;
}

}  // namespace ngvi::ad
