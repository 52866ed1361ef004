// Expression-tree nodes: arithmetic, unary functions and binary functions.
//
// Operands are held by value (they are small: a Var is a value and an index), so an
// expression kept in an `auto` variable does not dangle. Partials with respect to constant
// operands are never computed: `if constexpr` on the operand count removes them.
#pragma once

#include <autodiff/core/config.hpp>
#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/expr.hpp>

namespace ngvi::ad {

template <class A, class Real>
struct NegNode : Expr<NegNode<A, Real>, Real> {
  static constexpr int n_operands = A::n_operands;
  A a;
  Real v;
  explicit NegNode(const A& a_) : a(a_), v(-a_.value()) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    a.push(t, -m);
  }
};

template <class A, class B, class Real>
struct AddNode : Expr<AddNode<A, B, Real>, Real> {
  static constexpr int n_operands = A::n_operands + B::n_operands;
  A a;
  B b;
  Real v;
  AddNode(const A& a_, const B& b_) : a(a_), b(b_), v(a_.value() + b_.value()) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    a.push(t, m);
    b.push(t, m);
  }
};

template <class A, class B, class Real>
struct SubNode : Expr<SubNode<A, B, Real>, Real> {
  static constexpr int n_operands = A::n_operands + B::n_operands;
  A a;
  B b;
  Real v;
  SubNode(const A& a_, const B& b_) : a(a_), b(b_), v(a_.value() - b_.value()) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    a.push(t, m);
    if constexpr (B::n_operands > 0) b.push(t, -m);
  }
};

template <class A, class B, class Real>
struct MulNode : Expr<MulNode<A, B, Real>, Real> {
  static constexpr int n_operands = A::n_operands + B::n_operands;
  A a;
  B b;
  Real v;
  MulNode(const A& a_, const B& b_) : a(a_), b(b_), v(a_.value() * b_.value()) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    if constexpr (A::n_operands > 0) a.push(t, m * b.value());
    if constexpr (B::n_operands > 0) b.push(t, m * a.value());
  }
};

template <class A, class B, class Real>
struct DivNode : Expr<DivNode<A, B, Real>, Real> {
  static constexpr int n_operands = A::n_operands + B::n_operands;
  A a;
  B b;
  Real v;
  DivNode(const A& a_, const B& b_) : a(a_), b(b_), v(a_.value() / b_.value()) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    const Real mi = m / b.value();
    if constexpr (A::n_operands > 0) a.push(t, mi);
    if constexpr (B::n_operands > 0) b.push(t, -(mi * v));
  }
};

// f(a) for an elementary function Op (see elementary.hpp).
template <class Op, class A, class Real>
struct UnaryNode : Expr<UnaryNode<Op, A, Real>, Real> {
  static constexpr int n_operands = A::n_operands;
  A a;
  Real v;
  explicit UnaryNode(const A& a_) : a(a_), v(eval(a_.value())) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    a.push(t, m * Op::df(a.value(), v));
  }

 private:
  static Real eval(const Real& x) {
    if constexpr (checked_mode) {
      if (!Op::in_domain(value_of(x))) detail::throw_domain<Op>(value_of(x));
    }
    return Op::f(x);
  }
};

// f(a, b) for a binary elementary function Op.
template <class Op, class A, class B, class Real>
struct BinaryNode : Expr<BinaryNode<Op, A, B, Real>, Real> {
  static constexpr int n_operands = A::n_operands + B::n_operands;
  A a;
  B b;
  Real v;
  BinaryNode(const A& a_, const B& b_) : a(a_), b(b_), v(eval(a_.value(), b_.value())) {}
  const Real& value() const { return v; }
  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    if constexpr (A::n_operands > 0) a.push(t, m * Op::d1(a.value(), b.value(), v));
    if constexpr (B::n_operands > 0) b.push(t, m * Op::d2(a.value(), b.value(), v));
  }

 private:
  static Real eval(const Real& x, const Real& y) {
    if constexpr (checked_mode) {
      if (!Op::in_domain(value_of(x), value_of(y)))
        detail::throw_domain<Op>(value_of(x), value_of(y));
    }
    return Op::f(x, y);
  }
};

}  // namespace ngvi::ad
