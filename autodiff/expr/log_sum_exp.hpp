// n-ary log_sum_exp of scalars: log(exp(a) + exp(b) + ...), stable, one statement.
//
// Works for double, Dual and Var arguments (and expressions of Vars); its partials are the
// softmax weights exp(a_i − result). For a whole Eigen vector use eigen/reductions.hpp.
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
           ((std::is_arithmetic_v<Ts> || std::is_same_v<Ts, T>) && ...))
T log_sum_exp(const T& a, const Ts&... rest) {
  using std::exp;
  using std::log;
  const std::array<T, 1 + sizeof...(Ts)> xs{a, T(rest)...};
  T mx = xs[0];
  for (const T& x : xs)
    if (value_of(x) > value_of(mx)) mx = x;
  if (!std::isfinite(value_of(mx))) return mx;
  T z(0.0);
  for (const T& x : xs) z += exp(x - mx);
  return mx + log(z);
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
  if (!std::isfinite(value_of(mx))) return Var<R>(mx);
  R z(0.0);
  for (const Var<R>& x : xs) z += exp(x.value() - mx);
  const R total = mx + log(z);
  Tape<R>& t = active_tape<R>();
  t.reserve_operands(xs.size());
  const std::size_t begin = t.operand_count();
  for (const Var<R>& x : xs) x.push(t, R(exp(x.value() - total)));
  if (t.operand_count() == begin) return Var<R>(total);
  return Var<R>::from_index(total, t.push_statement(), t);
}

}  // namespace ngvi::ad
