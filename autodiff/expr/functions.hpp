// The elementary functions on expressions: each returns a node, recorded when assigned.
//
// The functions are those of function_list.hpp, whose names follow <cmath> (plus square,
// logistic, log1p_exp/softplus, digamma, trigamma). Generic code calls them as ad::exp(x) on
// every scalar (elementary.hpp has the plain-number overloads, dual.hpp the Dual ones); code
// that writes `using std::exp; exp(x)` still picks these up by argument-dependent lookup when
// x is a Var expression.
#pragma once

#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/expr.hpp>
#include <autodiff/expr/function_list.hpp>
#include <autodiff/expr/nodes.hpp>

namespace ngvi::ad {

#define NGVI_AD_UNARY(name, Op)                              \
  template <class A, class R>                                \
  inline UnaryNode<fn::Op, A, R> name(const Expr<A, R>& a) { \
    return UnaryNode<fn::Op, A, R>(a.derived());             \
  }
NGVI_AD_UNARY_FUNCTIONS(NGVI_AD_UNARY)
#undef NGVI_AD_UNARY

#define NGVI_AD_BINARY(name, Op)                                                               \
  template <class A, class B, class R>                                                         \
  inline BinaryNode<fn::Op, A, B, R> name(const Expr<A, R>& a, const Expr<B, R>& b) {          \
    return BinaryNode<fn::Op, A, B, R>(a.derived(), b.derived());                              \
  }                                                                                            \
  template <class A, class R, ConstantFor<R> C>                                                \
  inline BinaryNode<fn::Op, A, Constant<R>, R> name(const Expr<A, R>& a, const C& c) {         \
    return BinaryNode<fn::Op, A, Constant<R>, R>(a.derived(), Constant<R>(static_cast<R>(c))); \
  }                                                                                            \
  template <class B, class R, ConstantFor<R> C>                                                \
  inline BinaryNode<fn::Op, Constant<R>, B, R> name(const C& c, const Expr<B, R>& b) {         \
    return BinaryNode<fn::Op, Constant<R>, B, R>(Constant<R>(static_cast<R>(c)), b.derived()); \
  }
NGVI_AD_BINARY_FUNCTIONS(NGVI_AD_BINARY)
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
