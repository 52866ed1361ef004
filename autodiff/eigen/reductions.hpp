// Reductions of matrices, each recorded as one tape entry.
//
// sum(M), dot(a, b), squared_norm(M) and log_sum_exp(M) over Eigen matrices of double or
// Var<Real>, and over ad::MatrixVar handles (matrix_var.hpp), whose values are read in place
// (dot and log_sum_exp over their transpose views too); rowwise_log_sum_exp(M), the log-sum-exp
// of each row of a B×K matrix (the normaliser of a batch of softmax logits, one example per
// row), over all of these. sum, squared_norm and rowwise_log_sum_exp are fused nodes whose
// reverse step is one pass over the operand's adjoints (vectorisable for sum and squared_norm; no
// per-coefficient operand records), and so is dot of a matrix variable and a constant; log_sum_exp
// and the other dots are single statements whose operands are the coefficients (2n for dot when
// both sides are variables). The log-sum-exps are shifted by the largest value and their
// partials, the softmax weights, are formed from the shifted exponentials (softmax_weights). The
// forward sums run in coefficient order (along each row for rowwise_log_sum_exp), so no result
// depends on where the operands sit in memory. Cost: one pass forward (plus one exp per
// coefficient for the log-sum-exps), one pass backward.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/operand.hpp>

namespace ngvi::ad {

namespace detail {
// Pushes (partial(i), m_i) for the active coefficients of m and closes the statement.
template <class Real, class Derived, class Partial>
void push_coefficients(Tape<Real>& t, const Eigen::MatrixBase<Derived>& m, Partial&& partial) {
  if constexpr (is_var_v<typename Derived::Scalar>) {
    t.reserve_operands(static_cast<std::size_t>(m.size()));
    Eigen::Index k = 0;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i, ++k) {
        const auto& v = m.derived().coeff(i, j);
        if (v.is_active()) {
          if constexpr (checked_mode) v.check_on(t);
          t.push_operand(partial(i, j, k), v.index());
        }
      }
  }
}

template <class Real, bool Square>
struct ReductionNode {
  MatrixOperand<Real> x;  // values kept only for the square
  index_t out;

  void reverse(Real* adj) const {
    const Real a = adj[out];
    if (is_zero(a)) return;
    if constexpr (Square) {
      const Real two_a = 2.0 * a;
      const Real* v = x.values;
      x.add_each(adj, [v, two_a](Eigen::Index k) { return v[k] * two_a; });
    } else {
      x.add_each(adj, [a](Eigen::Index) { return a; });
    }
  }
};

// Σ c_k x_k with c constant: x̄_k += c_k·ȳ, the product the statement of dot forms for each
// operand, in one pass and without a per-coefficient operand record.
template <class Real>
struct ConstantDotNode {
  MatrixOperand<Real> x;  // the side with variables
  const Real* c;          // the constant side's values
  index_t out;

  void reverse(Real* adj) const {
    const Real a = adj[out];
    if (is_zero(a)) return;
    const Real* cv = c;
    x.add_each(adj, [cv, a](Eigen::Index k) { return cv[k] * a; });
  }
};

// The node of Σ x_k (Square: Σ x_k²) whose value, `total`, the caller has summed in
// coefficient order.
template <bool Square, class Real>
Var<Real> reduce_node(Tape<Real>& t, const MatrixOperand<Real>& x, const Real& total) {
  if (!x.active) return Var<Real>(total);
  auto* node = t.arena().template create<ReductionNode<Real, Square>>();
  node->x = x;
  node->out = t.new_index();
  t.push_fused(node);
  return Var<Real>::from_index(total, node->out, t);
}

template <bool Square, class Derived>
auto reduce(const Eigen::MatrixBase<Derived>& m) {
  using Real = tape_scalar_t<typename Derived::Scalar>;
  Tape<Real>& t = active_tape<Real>();
  const MatrixOperand<Real> x = save_operand(t, m, Square);
  Real total(0.0);
  if constexpr (Square) {
    for (Eigen::Index i = 0; i < x.size(); ++i) total += x.values[i] * x.values[i];
  } else {
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) total += m.derived().coeff(i, j).value();
  }
  return reduce_node<Square>(t, x, total);
}

template <bool Square, class Real>
Var<Real> reduce(const MatrixVar<Real>& m) {
  Tape<Real>& t = active_tape<Real>();
  const MatrixOperand<Real> x = operand_of(t, m);
  Real total(0.0);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if constexpr (Square)
      total += x.values[i] * x.values[i];
    else
      total += x.values[i];
  }
  return reduce_node<Square>(t, x, total);
}

// Pushes (partial(k), index of coefficient k) for the active coefficients of operand x.
template <class Real, class Partial>
void push_operand_coefficients(Tape<Real>& t, const MatrixOperand<Real>& x, Partial&& partial) {
  if (!x.active) return;
  t.reserve_operands(static_cast<std::size_t>(x.size()));
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    const index_t i = x.indices ? x.indices[k] : x.first + static_cast<index_t>(k);
    if (i != no_index) t.push_operand(partial(k), i);
  }
}

template <class Real>
Var<Real> close_statement(Tape<Real>& t, std::size_t begin, const Real& value) {
  if (t.operand_count() == begin) return Var<Real>(value);
  const index_t idx = t.push_statement();
  return Var<Real>::from_index(value, idx, t);
}

// The position k of the first largest of the n values v[0], v[stride], …, v[(n − 1)·stride].
template <class Real>
Eigen::Index argmax(const Real* v, Eigen::Index n, Eigen::Index stride) {
  Eigen::Index top = 0;
  for (Eigen::Index k = 1; k < n; ++k)
    if (value_of(v[k * stride]) > value_of(v[top * stride])) top = k;
  return top;
}

// The softmax weights of the n values v[0], v[stride], …: w[k·stride] = exp(v_k − shift) / z with
// z = Σ exp(v_k − shift), summed in order; returns log z, so that log Σ exp(v_k) = shift + log z.
// shift is the largest value as a plain double (finite): it carries no tangent, so in Dual
// arithmetic the tangents come out as Σ w_k dv_k without cancellation. The weights are the shifted
// exponentials over z, not exp(v_k − log Σ exp(v)), whose argument would carry the absolute
// rounding of the log-sum-exp (1e-13 at 1000; see expr/log_sum_exp.hpp). w may be v (the weights
// then overwrite the values). Cost: n exps and n divisions.
template <class Real>
Real softmax_weights(const Real* v, Eigen::Index n, Eigen::Index stride, double shift, Real* w) {
  using std::exp;
  using std::log;
  Real z(0.0);
  for (Eigen::Index k = 0; k < n * stride; k += stride) {
    w[k] = exp(v[k] - shift);
    z += w[k];
  }
  for (Eigen::Index k = 0; k < n * stride; k += stride) w[k] = w[k] / z;
  return log(z);
}

// log Σ exp(v_k) of the n values at v as one statement; push(w) records its operands, given their
// partials, the softmax weights w. A constant when the largest value is not finite.
template <class Real, class Push>
Var<Real> log_sum_exp_statement(Tape<Real>& t, const Real* v, Eigen::Index n, Push&& push) {
  const Real& top = v[argmax(v, n, 1)];
  const double shift = value_of(top);
  if (!std::isfinite(shift)) return Var<Real>(top);
  RealMatrix<Real> w(n, 1);
  const Real total = shift + softmax_weights(v, n, 1, shift, w.data());
  const std::size_t begin = t.operand_count();
  push(w.data());
  return close_statement(t, begin, total);
}

// The log-sum-exps of the rows of a rows×cols matrix: ȳ_i goes to row i's coefficients, weighted
// by their softmax weights.
template <class Real>
struct RowwiseLogSumExpNode {
  MatrixOperand<Real> x;  // its values are not needed backward
  const Real* weights;    // rows×cols, column-major
  index_t out_first;

  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    const Real* w = weights;
    const Eigen::Index rows = x.rows;
    x.add_each(adj, [g, w, rows](Eigen::Index k) { return w[k] * g[k % rows]; });
  }
};

// The log-sum-exp of each row of the rows×cols values v (column-major) to out[i], and the rows'
// softmax weights to w (which may be v). A row whose largest value is not finite gets that value
// and zero weights: a constant, as log_sum_exp's statement is then.
template <class Real>
void rowwise_log_sum_exp_values(const Real* v, Eigen::Index rows, Eigen::Index cols, Real* w,
                                Real* out) {
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Real top = v[i + argmax(v + i, cols, rows) * rows];
    const double shift = value_of(top);
    if (std::isfinite(shift)) {
      out[i] = shift + softmax_weights(v + i, cols, rows, shift, w + i);
    } else {
      out[i] = top;
      for (Eigen::Index j = 0; j < cols; ++j) w[i + j * rows] = Real(0.0);
    }
  }
}
}  // namespace detail

// Σ m_ij.
template <class Derived>
auto sum(const Eigen::MatrixBase<Derived>& m) {
  if constexpr (!is_var_v<typename Derived::Scalar>) {
    return m.sum();
  } else {
    return detail::reduce<false>(m);
  }
}

// Σ m_ij².
template <class Derived>
auto squared_norm(const Eigen::MatrixBase<Derived>& m) {
  if constexpr (!is_var_v<typename Derived::Scalar>) {
    return m.squaredNorm();
  } else {
    return detail::reduce<true>(m);
  }
}

// Σ m_ij of a matrix variable.
template <class Real>
Var<Real> sum(const MatrixVar<Real>& m) {
  return detail::reduce<false>(m);
}
// Σ m_ij² of a matrix variable.
template <class Real>
Var<Real> squared_norm(const MatrixVar<Real>& m) {
  return detail::reduce<true>(m);
}

// Σ a_i b_i for vectors (or matrices of equal shape).
template <class DA, class DB>
auto dot(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  using SA = typename DA::Scalar;
  using SB = typename DB::Scalar;
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument("ngvi::ad::dot: shapes " + std::to_string(a.rows()) + "x" +
                                std::to_string(a.cols()) + " and " + std::to_string(b.rows()) +
                                "x" + std::to_string(b.cols()) + " differ");
  if constexpr (!detail::any_var_v<SA, SB>) {
    return a.derived().cwiseProduct(b.derived()).sum();
  } else {
    using Real = detail::common_real_t<SA, SB>;
    auto value = [](const auto& s) -> Real {
      if constexpr (is_var_v<std::decay_t<decltype(s)>>)
        return s.value();
      else
        return Real(s);
    };
    Tape<Real>& t = active_tape<Real>();
    Real total(0.0);
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      for (Eigen::Index i = 0; i < a.rows(); ++i)
        total += value(a.derived().coeff(i, j)) * value(b.derived().coeff(i, j));
    const std::size_t begin = t.operand_count();
    detail::push_coefficients(t, a, [&](Eigen::Index i, Eigen::Index j, Eigen::Index) {
      return value(b.derived().coeff(i, j));
    });
    detail::push_coefficients(t, b, [&](Eigen::Index i, Eigen::Index j, Eigen::Index) {
      return value(a.derived().coeff(i, j));
    });
    return detail::close_statement(t, begin, total);
  }
}

// Σ a_ij b_ij when either argument is a matrix variable: one statement with the coefficients
// as operands.
template <MatrixArgument A, MatrixArgument B>
requires(is_matrix_var_v<A> || is_matrix_var_v<B>) auto dot(const A& a, const B& b) {
  using Real = detail::common_real_t<detail::argument_scalar_t<A>, detail::argument_scalar_t<B>>;
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument("ngvi::ad::dot: shapes " + std::to_string(a.rows()) + "x" +
                                std::to_string(a.cols()) + " and " + std::to_string(b.rows()) +
                                "x" + std::to_string(b.cols()) + " differ");
  Tape<Real>& t = active_tape<Real>();
  const detail::MatrixOperand<Real> x = detail::operand_of(t, a);
  const detail::MatrixOperand<Real> y = detail::operand_of(t, b);
  Real total(0.0);
  for (Eigen::Index k = 0; k < x.size(); ++k) total += x.values[k] * y.values[k];
  if (x.active != y.active) {
    // One side is constant (a likelihood's targets): a fused node, with the statement's bits.
    auto* node = t.arena().template create<detail::ConstantDotNode<Real>>();
    node->x = x.active ? x : y;
    node->c = x.active ? y.values : x.values;
    node->out = t.new_index();
    t.push_fused(node);
    return Var<Real>::from_index(total, node->out, t);
  }
  const std::size_t begin = t.operand_count();
  detail::push_operand_coefficients(t, x, [&](Eigen::Index k) { return y.values[k]; });
  detail::push_operand_coefficients(t, y, [&](Eigen::Index k) { return x.values[k]; });
  return detail::close_statement(t, begin, total);
}

// log Σ exp(m_ij), computed stably; its partials are the softmax weights, formed from the
// max-shifted exponentials (detail::softmax_weights).
template <class Derived>
auto log_sum_exp(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  if (m.size() == 0) throw std::invalid_argument("ngvi::ad::log_sum_exp: empty argument");
  if constexpr (!is_var_v<S>) {
    const S mx = m.maxCoeff();
    if (!std::isfinite(value_of(mx))) return mx;
    return S(mx + std::log((m.array() - mx).exp().sum()));
  } else {
    using Real = tape_scalar_t<S>;
    Tape<Real>& t = active_tape<Real>();
    const detail::RealMatrix<Real> v = values(m);
    return detail::log_sum_exp_statement(t, v.data(), v.size(), [&](const Real* w) {
      detail::push_coefficients(t, m,
                                [w](Eigen::Index, Eigen::Index, Eigen::Index k) { return w[k]; });
    });
  }
}

// log Σ exp(m_ij) of a matrix variable (or its transpose view), its values read in place: the
// statement log_sum_exp records for an Eigen matrix of Var, with the same bits.
template <class X>
requires is_matrix_var_v<X>
auto log_sum_exp(const X& m) {
  using Real = typename std::remove_cvref_t<X>::real_type;
  if (m.size() == 0) throw std::invalid_argument("ngvi::ad::log_sum_exp: empty argument");
  Tape<Real>& t = active_tape<Real>();
  const detail::MatrixOperand<Real> x = detail::operand_of(t, m);
  return detail::log_sum_exp_statement(t, x.values, x.size(), [&](const Real* w) {
    detail::push_operand_coefficients(t, x, [w](Eigen::Index k) { return w[k]; });
  });
}

// log Σ_j exp(m_ij) for every row i of a B×K matrix (B examples' logits, one per row): the B×1
// column of the rows' log-sum-exps, as one fused node. A MatrixVar for an Eigen matrix of Var or a
// matrix variable (or its transpose view, read in place); a plain column for numbers. Each entry
// has the bits of log_sum_exp of its row (same shift, same weights, same order of the sum).
// Cost: forward B·K exps and divisions, backward one pass (m̄_ij += softmax_ij · ȳ_i); memory: the
// B·K weights.
template <MatrixArgument X>
auto rowwise_log_sum_exp(const X& m) {
  using S = detail::argument_scalar_t<X>;
  if (m.size() == 0)
    throw std::invalid_argument("ngvi::ad::rowwise_log_sum_exp: empty argument (a " +
                                std::to_string(m.rows()) + "x" + std::to_string(m.cols()) +
                                " matrix); expected at least one row and one column");
  if constexpr (!is_var_v<S>) {
    Eigen::Matrix<S, detail::rows_at_compile_time<X>(), 1> out(m.rows());
    for (Eigen::Index i = 0; i < m.rows(); ++i) out(i) = log_sum_exp(m.row(i));
    return out;
  } else {
    using Real = tape_scalar_t<S>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<detail::RowwiseLogSumExpNode<Real>>();
    // A handle's values are read where they are; an Eigen matrix's go straight into the weights'
    // array, which the weights then overwrite.
    node->x = detail::operand_of(t, m, false);
    const Eigen::Index rows = node->x.rows, cols = node->x.cols;
    Real* w = t.arena().template allocate_array<Real>(static_cast<std::size_t>(rows * cols));
    const Real* v = node->x.values;
    if constexpr (!is_matrix_var_v<X>) {
      Eigen::Index k = 0;
      for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < rows; ++i) w[k++] = m.derived().coeff(i, j).value();
      v = w;
    }
    Real* out = t.arena().template allocate_array<Real>(static_cast<std::size_t>(rows));
    detail::rowwise_log_sum_exp_values(v, rows, cols, w, out);
    node->weights = w;
    return detail::close_node(t, node, node->out_first, rows, 1, out, node->x.active);
  }
}

}  // namespace ngvi::ad
