// Reductions of matrices to a scalar, each recorded as one tape entry.
//
// sum(M), dot(a, b), squared_norm(M) and log_sum_exp(M) over Eigen matrices of double or
// Var<Real>; sum, dot and squared_norm also over ad::MatrixVar handles (matrix_var.hpp). sum and
// squared_norm are fused nodes whose reverse step is one vectorisable pass over the operand's
// adjoints (no per-coefficient operand records); dot and log_sum_exp are single statements whose
// operands are the coefficients (2n for dot when both sides are variables). The forward sums run in
// coefficient order, so no result depends on where the operands sit in memory. Cost: one pass
// forward, one pass backward.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

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
  const std::size_t begin = t.operand_count();
  detail::push_operand_coefficients(t, x, [&](Eigen::Index k) { return y.values[k]; });
  detail::push_operand_coefficients(t, y, [&](Eigen::Index k) { return x.values[k]; });
  return detail::close_statement(t, begin, total);
}

// log Σ exp(m_ij), computed stably; its partials are the softmax weights, formed from the
// max-shifted exponentials.
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
    using std::exp;
    using std::log;
    Tape<Real>& t = active_tape<Real>();
    const detail::RealMatrix<Real> v = values(m);
    Real mx = v(0);
    for (Eigen::Index i = 1; i < v.size(); ++i)
      if (value_of(v(i)) > value_of(mx)) mx = v(i);
    const double shift = value_of(mx);
    if (!std::isfinite(shift)) return Var<Real>(mx);
    // Weights exp(v − shift) / z, not exp(v − total): see expr/log_sum_exp.hpp (v − total
    // carries total's absolute rounding, 1e-13 at 1000).
    detail::RealMatrix<Real> e(v.rows(), v.cols());
    Real z(0.0);
    for (Eigen::Index i = 0; i < v.size(); ++i) {
      e(i) = exp(v(i) - shift);
      z += e(i);
    }
    const Real total = shift + log(z);
    const std::size_t begin = t.operand_count();
    detail::push_coefficients(
        t, m, [&](Eigen::Index i, Eigen::Index j, Eigen::Index) { return Real(e(i, j) / z); });
    return detail::close_statement(t, begin, total);
  }
}

}  // namespace ngvi::ad
