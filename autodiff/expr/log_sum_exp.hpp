// n-ary log_sum_exp of scalars: log(exp(a) + exp(b) + ...), stable, one statement.
//
// Works for double, Dual and Var arguments (and expressions of Vars); its partials are the
// softmax weights. Everything is shifted by m, the largest argument's plain double value, and
// the weights are formed as w_i = exp(a_i − m) / z with z = Σ exp(a_j − m), never as
// exp(a_i − result): result = m + log z is large where the arguments are (beyond 709 exp
// overflows), and a_i − result then loses the absolute rounding of result, about 1e-13 at
// 1000, which would cost the gradient and Hessian 2.5 digits. The shift is a constant (no
// tangent), so in Dual arithmetic the tangents come out as Σ w_i da_i without cancellation.
// For a whole Eigen vector use eigen/reductions.hpp.
#pragma once

#include <array>
#include <cmath>
#include <type_traits>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/dual.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/expr/expr.hpp>

namespace ngvi::ad {

// Scalars (double or Dual): returns the same type.
template <class T, class... Ts>
requires((std::is_arithmetic_v<T> || is_dual<T>::value) &&
         ((std::is_arithmetic_v<Ts> || std::is_same_v<Ts, T>)&&...)) T
    log_sum_exp(const T& a, const Ts&... rest) {
  using std::exp;
  using std::log;
  const std::array<T, 1 + sizeof...(Ts)> xs{a, T(rest)...};
  T mx = xs[0];
  for (const T& x : xs)
    if (value_of(x) > value_of(mx)) mx = x;
  const double m = value_of(mx);
  if (!std::isfinite(m)) return mx;
  T z(0.0);
  for (const T& x : xs) z += exp(x - m);
  return m + log(z);
}

// Expressions of Var<Real> (and numbers): one statement with one operand per argument.
template <class A, class R, class... Ts>
Var<R> log_sum_exp(const Expr<A, R>& a, const Ts&... rest) {
  using std::exp;
  using std::log;
  const std::array<Var<R>, 1 + sizeof...(Ts)> xs{Var<R>(a.derived()), Var<R>(rest)...};
  R mx = xs[0].value();
  for (const Var<R>& x : xs)
    if (value_of(x.value()) > value_of(mx)) mx = x.value();
  const double m = value_of(mx);
  if (!std::isfinite(m)) return Var<R>(mx);
  std::array<R, 1 + sizeof...(Ts)> e;
  R z(0.0);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    e[i] = exp(xs[i].value() - m);
    z += e[i];
  }
  const R total = m + log(z);
  Tape<R>& t = active_tape<R>();
  t.reserve_operands(xs.size());
  const std::size_t begin = t.operand_count();
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i].push(t, R(e[i] / z));
  if (t.operand_count() == begin) return Var<R>(total);
  return Var<R>::from_index(total, t.push_statement(), t);
}

}  // namespace ngvi::ad
