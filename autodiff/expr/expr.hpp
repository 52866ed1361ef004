// The expression-template base and the constant leaf.
//
// An arithmetic expression over variables builds a tree of small value objects; nothing is
// recorded until the tree is assigned to a Var. Every node caches its value when it is built
// and knows how to push the partials of the whole expression with respect to its leaves,
// scaled by a multiplier handed down from the root (the chain rule, applied at compile time).
// So `y = log(1 + exp(a * b)) + s * s` records one statement with three operands.
//
// A node type N provides:
//   static constexpr int n_operands;   upper bound on the leaves it pushes
//   const Real& value() const;
//   template <class TapeT> void push(TapeT&, const Real& multiplier) const;
#pragma once

#include <concepts>
#include <type_traits>

#include <autodiff/core/scalar_traits.hpp>

namespace ngvi::ad {

template <class Derived, class Real>
struct Expr {
  using real_type = Real;
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
};

// A plain number inside an expression: contributes its value and no operands.
template <class Real>
struct Constant : Expr<Constant<Real>, Real> {
  static constexpr int n_operands = 0;
  Real v;
  explicit Constant(const Real& c) : v(c) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT&, const Real&) const {}
};

// Numbers that may stand beside an expression of scalar Real: any arithmetic type, and Real
// itself (e.g. a Dual constant next to a Var<Dual>).
template <class C, class Real>
concept ConstantFor = std::is_arithmetic_v<C> || std::same_as<C, Real>;

}  // namespace ngvi::ad
