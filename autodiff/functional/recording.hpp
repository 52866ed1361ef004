// Recording: the one protocol by which code drives a tape — register inputs, record, seed,
// sweep backward, read adjoints.
//
// Every derivative the engine computes follows the same steps on this thread's tape: register
// the inputs as consecutive fresh variables (on Tape<Dual<double, K>> with their K tangents),
// possibly lift constants into fresh variables too, record the function by evaluating it,
// zero the adjoints, seed the output(s), sweep back over the recording and read the adjoints
// of the variables of interest. A Recording is that protocol as one RAII object: it opens a
// TapeScope on construction, so everything recorded through it (or by code it calls) is
// rewound when it ends, normally or by an exception, and its memory is kept for the next
// recording. The drivers (value_and_gradient, hessian, hvp, jacobian, per_example_gradients)
// and nn's per-example and curvature code use it; nothing else touches the tape's adjoints.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/core/config.hpp>
#include <autodiff/core/dual.hpp>
#include <autodiff/core/tape_scope.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/num_traits.hpp>

namespace ngvi::ad {

template <class Real = double>
class Recording {
 public:
  using Mark = typename Tape<Real>::Mark;

  // Opens a recording on this thread's active tape. Cost: O(1).
  Recording() : tape_(&scope_.tape()) {}
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  // ---- inputs and constants ----------------------------------------------------------------

  // x as x.size() consecutive fresh independent variables. Cost: O(x.size()).
  VarVector<Real> inputs(const Eigen::Ref<const Eigen::VectorXd>& x) {
    VarVector<Real> v(x.size());
    const index_t first = fresh(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i)
      v(i) = Var<Real>::from_index(Real(x(i)), first + static_cast<index_t>(i), tape());
    return v;
  }

  // The same on Tape<Dual<double, K>>: input i carries the tangents tangents.row(i), so the
  // adjoints' tangents after a sweep are K Hessian-vector products. Throws
  // std::invalid_argument unless tangents is x.size()×K. Cost: O(x.size()·K).
  VarVector<Real> inputs(const Eigen::Ref<const Eigen::VectorXd>& x,
                         const Eigen::Ref<const Eigen::MatrixXd>& tangents) requires
      is_double_dual<Real>::value {
    check_tangents(x, tangents);
    VarVector<Real> v(x.size());
    const index_t first = fresh(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i)
      v(i) = Var<Real>::from_index(with_tangents(x, tangents, i), first + static_cast<index_t>(i),
                                   tape());
    return v;
  }

  // x as one x.size()×1 matrix variable of consecutive fresh independent variables, for
  // functions written on matrix variables: no per-coefficient Var is made, and head, tail and
  // segment of it are views. Cost: one copy of x into the tape's arena.
  MatrixVar<Real> input_vector(const Eigen::Ref<const Eigen::VectorXd>& x) {
    return MatrixVar<Real>::variables(x);
  }

  // The same on Tape<Dual<double, K>>, input i carrying the tangents tangents.row(i). Throws
  // std::invalid_argument unless tangents is x.size()×K. Cost: O(x.size()·K).
  MatrixVar<Real> input_vector(const Eigen::Ref<const Eigen::VectorXd>& x,
                               const Eigen::Ref<const Eigen::MatrixXd>& tangents) requires
      is_double_dual<Real>::value {
    check_tangents(x, tangents);
    return MatrixVar<Real>::variables(Eigen::Matrix<Real, Eigen::Dynamic, 1>::NullaryExpr(
        x.size(), [&](Eigen::Index i) { return with_tangents(x, tangents, i); }));
  }

  // values as a matrix of fresh independent variables, consecutive in column-major order:
  // values computed outside the tape (in double) that the rest of the recording depends on
  // and whose adjoints are wanted. Cost: O(values.size()).
  VarMatrix<Real> lift(const Eigen::Ref<const Eigen::MatrixXd>& values) {
    VarMatrix<Real> m(values.rows(), values.cols());
    const index_t first = fresh(values.size());
    for (Eigen::Index c = 0, k = 0; c < values.cols(); ++c)
      for (Eigen::Index r = 0; r < values.rows(); ++r, ++k)
        m(r, c) =
            Var<Real>::from_index(Real(values(r, c)), first + static_cast<index_t>(k), tape());
    return m;
  }

  // values as one matrix variable (autodiff/eigen/matrix_var.hpp) of fresh independent
  // variables, as lift() makes them. Cost: O(values.size()).
  MatrixVar<Real> lift_matrix(const Eigen::Ref<const Eigen::MatrixXd>& values) {
    return MatrixVar<Real>::variables(values);
  }

  // ---- marks -------------------------------------------------------------------------------

  // Where the tape ends now, for rewind(m). Cost: O(1).
  Mark mark() const { return tape_->mark(); }
  // Forgets what was recorded after m (taken from this recording), keeping the memory: a loop
  // that registers θ once and records one example after another rewinds to just after θ.
  // Cost: O(1).
  void rewind(const Mark& m) { tape_->rewind(m); }
  // Forgets everything recorded so far, inputs included. Cost: O(1).
  void rewind() { scope_.rewind(); }

  // ---- backward ----------------------------------------------------------------------------

  // Sets every adjoint to zero, seeds y with 1 and sweeps back over the whole recording: the
  // adjoints are then ∂y/∂(each variable). Returns false, leaving every adjoint 0, if y is a
  // constant. Cost: O(variables) to zero + one reverse sweep over the recording.
  bool backward(const Var<Real>& y) {
    tape().zero_adjoints();
    if (!y.is_active()) return false;
    tape().adjoint(y.index()) += Real(1.0);
    sweep();
    return true;
  }

  // The same for Σₖ ys(k): every active entry of ys seeded with 1, one sweep. Returns false,
  // with every adjoint 0 and no sweep, if no entry is active. Cost: as backward(y) + O(ys.size()).
  template <class Derived>
  bool backward(const Eigen::DenseBase<Derived>& ys) {
    tape().zero_adjoints();
    bool any = false;
    for (Eigen::Index k = 0; k < ys.size(); ++k) any |= seed(ys.derived()(k), Real(1.0));
    if (any) sweep();
    return any;
  }

  // The same for the sum of a matrix variable's entries. Cost: as backward(ys).
  bool backward(const MatrixVar<Real>& ys) {
    tape().zero_adjoints();
    if (!ys.is_active() || ys.size() == 0) return false;
    if constexpr (checked_mode) ys.check_on(tape());
    Real* adj = &tape().adjoint(ys.first_index());
    for (Eigen::Index k = 0; k < ys.size(); ++k) adj[k] += Real(1.0);
    sweep();
    return true;
  }

  // The same for Σₖ weights(k)·ys(k) (a vector-Jacobian product). Throws std::invalid_argument
  // unless weights has ys.size() entries. Cost: as backward(ys).
  template <class Derived>
  bool backward(const Eigen::DenseBase<Derived>& ys,
                const Eigen::Ref<const Eigen::VectorXd>& weights) {
    if (weights.size() != ys.size())
      throw std::invalid_argument("ngvi::ad::Recording::backward: weights has " +
                                  std::to_string(weights.size()) + " entries, expected " +
                                  std::to_string(ys.size()) + " (one per output)");
    tape().zero_adjoints();
    bool any = false;
    for (Eigen::Index k = 0; k < ys.size(); ++k) any |= seed(ys.derived()(k), Real(weights(k)));
    if (any) sweep();
    return any;
  }

  // ---- adjoints ----------------------------------------------------------------------------

  // The adjoint of v after the last backward (0 for a constant). Cost: O(1).
  Real adjoint(const Var<Real>& v) const {
    return v.is_active() ? tape_->adjoint(v.index()) : Real(0.0);
  }

  // A view of the adjoints of vars, which must be consecutive variables in column-major order
  // (as inputs() and lift() make them, and fused nodes their outputs), shaped as vars. Valid
  // until the next backward, rewind or recording. Throws std::invalid_argument if the first
  // and last entries are not first and first + size − 1 (in checked mode: if any entry is out
  // of place). Cost: O(1) (O(vars.size()) in checked mode).
  template <class Derived>
  auto adjoints(const Eigen::DenseBase<Derived>& vars) const {
    using View = Eigen::Map<
        const Eigen::Matrix<Real, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime>>;
    if (vars.size() == 0) return View(nullptr, vars.rows(), vars.cols());
    const index_t first = first_index(vars);
    const auto last = static_cast<Eigen::Index>(vars.size() - 1);
    const Var<Real>& back = vars.derived()(vars.rows() - 1, vars.cols() - 1);
    bool consecutive = first != no_index && back.index() == first + static_cast<index_t>(last);
    if constexpr (checked_mode) consecutive = consecutive && is_consecutive(vars);
    if (!consecutive)
      throw std::invalid_argument(
          "ngvi::ad::Recording::adjoints: the " + std::to_string(vars.size()) +
          " variables are not consecutive (first index " + std::to_string(first) + ", last " +
          std::to_string(back.index()) + "); use adjoints_of for any variables");
    return View(&tape_->adjoint(first), vars.rows(), vars.cols());
  }

  // A view of the adjoints of a matrix variable's coefficients, shaped as it (zeros for a
  // constant are not a view: use adjoints_of). Valid until the next backward, rewind or
  // recording. Throws std::invalid_argument for a constant. Cost: O(1).
  Eigen::Map<const Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>> adjoints(
      const MatrixVar<Real>& m) const {
    if (!m.is_active())
      throw std::invalid_argument(
          "ngvi::ad::Recording::adjoints: the " + std::to_string(m.rows()) + "x" +
          std::to_string(m.cols()) +
          " matrix variable is a constant (no adjoints to view); use adjoints_of");
    if constexpr (checked_mode) m.check_on(*tape_);
    return {&tape_->adjoint(m.first_index()), m.rows(), m.cols()};
  }

  // The adjoints of any variables (0 for constants), as a Result shaped as vars: one copy
  // when they are consecutive, a gather otherwise. Cost: O(vars.size()).
  template <class Result = void, class Derived>
  auto adjoints_of(const Eigen::DenseBase<Derived>& vars) const {
    using Out = std::conditional_t<
        std::is_void_v<Result>,
        Eigen::Matrix<Real, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime>, Result>;
    if (vars.size() > 0 && is_consecutive(vars))
      return Out(Eigen::Map<
                 const Eigen::Matrix<Real, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime>>(
          &tape_->adjoint(first_index(vars)), vars.rows(), vars.cols()));
    Out out(vars.rows(), vars.cols());
    for (Eigen::Index c = 0; c < vars.cols(); ++c)
      for (Eigen::Index r = 0; r < vars.rows(); ++r) out(r, c) = adjoint(vars.derived()(r, c));
    return out;
  }

  // The adjoints of a matrix variable (0 for a constant) as a Result of its shape. Cost: one copy.
  template <class Result = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>>
  Result adjoints_of(const MatrixVar<Real>& m) const {
    return Result(m.adjoint(*tape_));
  }

 private:
  Tape<Real>& tape() { return *tape_; }

  index_t fresh(Eigen::Index n) { return tape().new_indices(static_cast<std::size_t>(n)); }

  bool seed(const Var<Real>& y, const Real& s) {
    if (!y.is_active()) return false;
    tape().adjoint(y.index()) += s;
    return true;
  }

  void sweep() { tape().reverse(scope_.mark()); }

  // Throws std::invalid_argument unless tangents is x.size()×K (Real = Dual<double, K>).
  static void check_tangents(const Eigen::Ref<const Eigen::VectorXd>& x,
                             const Eigen::Ref<const Eigen::MatrixXd>& tangents) requires
      is_double_dual<Real>::value {
    constexpr int K = static_cast<int>(std::extent_v<decltype(Real::d)>);
    if (tangents.rows() != x.size() || tangents.cols() != K)
      throw std::invalid_argument(
          "ngvi::ad::Recording::inputs: tangents is " + std::to_string(tangents.rows()) + "×" +
          std::to_string(tangents.cols()) + ", expected " + std::to_string(x.size()) + "×" +
          std::to_string(K) + " (one row per input, one column per tangent direction)");
  }

  // x(i) as a Dual<double, K> whose tangents are tangents.row(i).
  static Real with_tangents(const Eigen::Ref<const Eigen::VectorXd>& x,
                            const Eigen::Ref<const Eigen::MatrixXd>& tangents,
                            Eigen::Index i) requires is_double_dual<Real>::value {
    Real xi(x(i));
    for (int k = 0; k < static_cast<int>(std::extent_v<decltype(Real::d)>); ++k)
      xi.d[k] = tangents(i, k);
    return xi;
  }

  template <class Derived>
  static index_t first_index(const Eigen::DenseBase<Derived>& vars) {
    return vars.derived()(0, 0).index();
  }

  // Whether entry (r, c) of vars is variable first + c·rows + r for every entry.
  template <class Derived>
  static bool is_consecutive(const Eigen::DenseBase<Derived>& vars) {
    const index_t first = first_index(vars);
    if (first == no_index) return false;
    for (Eigen::Index c = 0, k = 0; c < vars.cols(); ++c)
      for (Eigen::Index r = 0; r < vars.rows(); ++r, ++k)
        if (vars.derived()(r, c).index() != first + static_cast<index_t>(k)) return false;
    return true;
  }

  TapeScope<Real> scope_;
  Tape<Real>* tape_;  // scope_'s tape
};

}  // namespace ngvi::ad
