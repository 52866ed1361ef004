// Arithmetic operators and comparisons on expressions.
//
// Var∘Var, Var∘number and number∘Var for + − × ÷, unary minus and the compound assignments;
// comparisons look at values only, so a branch in user code follows the primal computation
// (the derivative is that of the branch taken).
#pragma once

#include <autodiff/core/var.hpp>
#include <autodiff/expr/expr.hpp>
#include <autodiff/expr/nodes.hpp>

namespace ngvi::ad {

template <class A, class R>
inline NegNode<A, R> operator-(const Expr<A, R>& a) {
  return NegNode<A, R>(a.derived());
}
template <class A, class R>
inline const A& operator+(const Expr<A, R>& a) {
  return a.derived();
}

#define NGVI_AD_ARITHMETIC(op, Node)                                             \
  template <class A, class B, class R>                                           \
  inline Node<A, B, R> operator op(const Expr<A, R>& a, const Expr<B, R>& b) {   \
    return Node<A, B, R>(a.derived(), b.derived());                              \
  }                                                                              \
  template <class A, class R, ConstantFor<R> C>                                  \
  inline Node<A, Constant<R>, R> operator op(const Expr<A, R>& a, const C& c) {  \
    return Node<A, Constant<R>, R>(a.derived(), Constant<R>(static_cast<R>(c))); \
  }                                                                              \
  template <class B, class R, ConstantFor<R> C>                                  \
  inline Node<Constant<R>, B, R> operator op(const C& c, const Expr<B, R>& b) {  \
    return Node<Constant<R>, B, R>(Constant<R>(static_cast<R>(c)), b.derived()); \
  }
NGVI_AD_ARITHMETIC(+, AddNode)
NGVI_AD_ARITHMETIC(-, SubNode)
NGVI_AD_ARITHMETIC(*, MulNode)
NGVI_AD_ARITHMETIC(/, DivNode)
#undef NGVI_AD_ARITHMETIC

#define NGVI_AD_COMPOUND(op, opeq)                                     \
  template <class Real>                                                \
  template <class E>                                                   \
  inline Var<Real>& Var<Real>::operator opeq(const Expr<E, Real>& e) { \
    return *this = *this op e;                                         \
  }                                                                    \
  template <class Real>                                                \
  template <ConstantFor<Real> C>                                       \
  inline Var<Real>& Var<Real>::operator opeq(const C& c) {             \
    return *this = *this op c;                                         \
  }
NGVI_AD_COMPOUND(+, +=)
NGVI_AD_COMPOUND(-, -=)
NGVI_AD_COMPOUND(*, *=)
NGVI_AD_COMPOUND(/, /=)
#undef NGVI_AD_COMPOUND

#define NGVI_AD_COMPARE(op)                                                \
  template <class A, class B, class R>                                     \
  inline bool operator op(const Expr<A, R>& a, const Expr<B, R>& b) {      \
    return value_of(a.derived().value()) op value_of(b.derived().value()); \
  }                                                                        \
  template <class A, class R, ConstantFor<R> C>                            \
  inline bool operator op(const Expr<A, R>& a, const C& c) {               \
    return value_of(a.derived().value()) op value_of(static_cast<R>(c));   \
  }                                                                        \
  template <class B, class R, ConstantFor<R> C>                            \
  inline bool operator op(const C& c, const Expr<B, R>& b) {               \
    return value_of(static_cast<R>(c)) op value_of(b.derived().value());   \
  }
NGVI_AD_COMPARE(==)
NGVI_AD_COMPARE(!=)
NGVI_AD_COMPARE(<)
NGVI_AD_COMPARE(<=)
NGVI_AD_COMPARE(>)
NGVI_AD_COMPARE(>=)
#undef NGVI_AD_COMPARE

}  // namespace ngvi::ad
