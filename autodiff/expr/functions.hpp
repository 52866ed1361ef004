// The elementary functions on expressions: each returns a node, recorded when assigned.
//
// Names follow <cmath> (plus square, logistic, log1p_exp/softplus, digamma, trigamma), so
// generic code that writes `using std::exp; exp(x)` picks these up by argument-dependent
// lookup when x is a Var expression.
#pragma once

#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/expr.hpp>
#include <autodiff/expr/nodes.hpp>

namespace ngvi::ad {

#define NGVI_AD_UNARY(name, Op)                                   \
  template <class A, class R>                                     \
  inline UnaryNode<fn::Op, A, R> name(const Expr<A, R>& a) {      \
    return UnaryNode<fn::Op, A, R>(a.derived());                  \
  }
NGVI_AD_UNARY(exp, Exp)
NGVI_AD_UNARY(expm1, Expm1)
NGVI_AD_UNARY(log, Log)
NGVI_AD_UNARY(log1p, Log1p)
NGVI_AD_UNARY(log2, Log2)
NGVI_AD_UNARY(log10, Log10)
NGVI_AD_UNARY(sqrt, Sqrt)
NGVI_AD_UNARY(cbrt, Cbrt)
NGVI_AD_UNARY(square, Square)
NGVI_AD_UNARY(abs, Abs)
NGVI_AD_UNARY(fabs, Abs)
NGVI_AD_UNARY(sin, Sin)
NGVI_AD_UNARY(cos, Cos)
NGVI_AD_UNARY(tan, Tan)
NGVI_AD_UNARY(asin, Asin)
NGVI_AD_UNARY(acos, Acos)
NGVI_AD_UNARY(atan, Atan)
NGVI_AD_UNARY(sinh, Sinh)
NGVI_AD_UNARY(cosh, Cosh)
NGVI_AD_UNARY(tanh, Tanh)
NGVI_AD_UNARY(asinh, Asinh)
NGVI_AD_UNARY(acosh, Acosh)
NGVI_AD_UNARY(atanh, Atanh)
NGVI_AD_UNARY(erf, Erf)
NGVI_AD_UNARY(erfc, Erfc)
NGVI_AD_UNARY(lgamma, Lgamma)
NGVI_AD_UNARY(tgamma, Tgamma)
NGVI_AD_UNARY(digamma, Digamma)
NGVI_AD_UNARY(trigamma, Trigamma)
NGVI_AD_UNARY(logistic, Logistic)
NGVI_AD_UNARY(log1p_exp, Log1pExp)
NGVI_AD_UNARY(softplus, Log1pExp)
#undef NGVI_AD_UNARY

#define NGVI_AD_BINARY(name, Op)                                                              \
  template <class A, class B, class R>                                                        \
  inline BinaryNode<fn::Op, A, B, R> name(const Expr<A, R>& a, const Expr<B, R>& b) {         \
    return BinaryNode<fn::Op, A, B, R>(a.derived(), b.derived());                             \
  }                                                                                           \
  template <class A, class R, ConstantFor<R> C>                                               \
  inline BinaryNode<fn::Op, A, Constant<R>, R> name(const Expr<A, R>& a, const C& c) {        \
    return BinaryNode<fn::Op, A, Constant<R>, R>(a.derived(), Constant<R>(static_cast<R>(c))); \
  }                                                                                           \
  template <class B, class R, ConstantFor<R> C>                                               \
  inline BinaryNode<fn::Op, Constant<R>, B, R> name(const C& c, const Expr<B, R>& b) {        \
    return BinaryNode<fn::Op, Constant<R>, B, R>(Constant<R>(static_cast<R>(c)), b.derived()); \
  }
NGVI_AD_BINARY(pow, Pow)
NGVI_AD_BINARY(atan2, Atan2)
NGVI_AD_BINARY(hypot, Hypot)
NGVI_AD_BINARY(fmin, Fmin)
NGVI_AD_BINARY(fmax, Fmax)
#undef NGVI_AD_BINARY

template <class A, class R>
inline bool isfinite(const Expr<A, R>& a) {
  return std::isfinite(value_of(a.derived().value()));
}
template <class A, class R>
inline bool isnan(const Expr<A, R>& a) {
  return std::isnan(value_of(a.derived().value()));
}
template <class A, class R>
inline bool isinf(const Expr<A, R>& a) {
  return std::isinf(value_of(a.derived().value()));
}

}  // namespace ngvi::ad
