// Eigen integration: NumTraits for Var<Real> and Dual<T, K>.
//
// With these, Eigen::Matrix<Var<double>, ...> works in ordinary Eigen code (sums, products,
// norms, coefficient-wise maps): every scalar operation Eigen performs is recorded as a
// statement. Mixed double/Var expressions are allowed and yield Var. For speed on larger
// matrices, use the fused nodes (matmul.hpp, elementwise.hpp, reductions.hpp), which record
// a whole matrix operation as one tape entry.
#pragma once

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>

namespace Eigen {

template <class R>
struct NumTraits<ngvi::ad::Var<R>> : NumTraits<double> {
  typedef ngvi::ad::Var<R> Real;
  typedef ngvi::ad::Var<R> NonInteger;
  typedef ngvi::ad::Var<R> Nested;
  typedef ngvi::ad::Var<R> Literal;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 1,
    AddCost = 4,
    MulCost = 4
  };
};

template <class T, int K>
struct NumTraits<ngvi::ad::Dual<T, K>> : NumTraits<double> {
  typedef ngvi::ad::Dual<T, K> Real;
  typedef ngvi::ad::Dual<T, K> NonInteger;
  typedef ngvi::ad::Dual<T, K> Nested;
  typedef ngvi::ad::Dual<T, K> Literal;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = K + 1,
    AddCost = K + 1,
    MulCost = 2 * K + 1
  };
};

template <class R, class BinaryOp>
struct ScalarBinaryOpTraits<ngvi::ad::Var<R>, double, BinaryOp> {
  typedef ngvi::ad::Var<R> ReturnType;
};
template <class R, class BinaryOp>
struct ScalarBinaryOpTraits<double, ngvi::ad::Var<R>, BinaryOp> {
  typedef ngvi::ad::Var<R> ReturnType;
};
template <class T, int K, class BinaryOp>
struct ScalarBinaryOpTraits<ngvi::ad::Dual<T, K>, double, BinaryOp> {
  typedef ngvi::ad::Dual<T, K> ReturnType;
};
template <class T, int K, class BinaryOp>
struct ScalarBinaryOpTraits<double, ngvi::ad::Dual<T, K>, BinaryOp> {
  typedef ngvi::ad::Dual<T, K> ReturnType;
};

}  // namespace Eigen

namespace ngvi::ad {

template <class Real, int Rows = Eigen::Dynamic, int Cols = Eigen::Dynamic>
using VarMatrix = Eigen::Matrix<Var<Real>, Rows, Cols>;
template <class Real>
using VarVector = Eigen::Matrix<Var<Real>, Eigen::Dynamic, 1>;

// The tape scalar of an Eigen scalar: double for double, Real for Var<Real>.
template <class S>
struct tape_scalar {
  using type = S;
};
template <class Real>
struct tape_scalar<Var<Real>> {
  using type = Real;
};
template <class S>
using tape_scalar_t = typename tape_scalar<S>::type;

// Values of a matrix of Vars (or a copy of a plain matrix), in the tape scalar.
template <class Derived>
auto values(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  if constexpr (is_var_v<S>) {
    return m.unaryExpr([](const S& v) { return v.value(); }).eval();
  } else {
    return m.eval();
  }
}

// Plain double values of a matrix of Vars, Duals or doubles.
template <class Derived>
Eigen::Matrix<double, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime> values_of(
    const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  return m.unaryExpr([](const S& v) { return value_of(v); });
}

}  // namespace ngvi::ad
