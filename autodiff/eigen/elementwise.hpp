// Coefficient-wise functions of whole matrices, each recorded as one fused node.
//
// tanh(M), exp(M), log1p_exp(M), ... (every unary function of expr/function_list.hpp) apply an
// elementary function to every coefficient of an Eigen matrix of double or Var<Real>; cwise_product
// / cwise_sum / cwise_difference combine two matrices of the same shape. On Var<double> the values
// and derivatives are computed by vectorised kernels and the reverse step is one vectorisable
// multiply-add loop over the block (MatrixOperand::add_each). Both give the same bits wherever the
// operands and the adjoints sit in memory: the kernels work on aligned copies
// (vectorised_math.hpp), the reverse step computes each coefficient by one expression. Cost:
// forward one pass over the coefficients (plus the function), reverse one pass; memory: the operand
// values and the derivatives.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/vectorised_math.hpp>
#include <autodiff/expr/elementary.hpp>
#include <autodiff/expr/function_list.hpp>

namespace ngvi::ad {

namespace detail {

template <class Real>
struct UnaryElementwiseNode {
  MatrixOperand<Real> x;
  const Real* derivative;
  index_t out_first;

  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    const Real* d = derivative;
    x.add_each(adj, [g, d](Eigen::Index k) { return d[k] * g[k]; });
  }
};

// Kind: 0 sum, 1 difference, 2 product.
template <class Real, int Kind>
struct BinaryElementwiseNode {
  MatrixOperand<Real> a;
  MatrixOperand<Real> b;
  index_t out_first;

  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    if constexpr (Kind == 0) {
      a.add_each(adj, [g](Eigen::Index k) { return g[k]; });
      b.add_each(adj, [g](Eigen::Index k) { return g[k]; });
    } else if constexpr (Kind == 1) {
      a.add_each(adj, [g](Eigen::Index k) { return g[k]; });
      b.add_each(adj, [g](Eigen::Index k) { return -g[k]; });
    } else {
      const Real* av = a.values;
      const Real* bv = b.values;
      a.add_each(adj, [g, bv](Eigen::Index k) { return g[k] * bv[k]; });
      b.add_each(adj, [g, av](Eigen::Index k) { return g[k] * av[k]; });
    }
  }
};

// In place: f holds the dual inputs on entry and f(x) on exit; d receives f'(x) as duals.
// Values and derivatives come from the vectorised double kernels; the tangents follow from
// the chain rule: f(x).d_k = f'·x.d_k and f'(x).d_k = f''·x.d_k.
template <class Op, int K>
void dual_elementwise(Dual<double, K>* f, Dual<double, K>* d, Eigen::Index n) {
  constexpr Eigen::Index chunk = math_chunk;
  double xv[chunk], fv[chunk], d1[chunk], d2[chunk];
  for (Eigen::Index s = 0; s < n; s += chunk) {
    const Eigen::Index len = std::min(chunk, n - s);
    for (Eigen::Index i = 0; i < len; ++i) xv[i] = f[s + i].v;
    eval_with_two_derivatives<Op>(xv, fv, d1, d2, len);
    for (Eigen::Index i = 0; i < len; ++i) {
      Dual<double, K>& fi = f[s + i];
      Dual<double, K>& di = d[s + i];
      di.v = d1[i];
      for (int k = 0; k < K; ++k) {
        di.d[k] = d2[i] * fi.d[k];
        fi.d[k] *= d1[i];
      }
      fi.v = fv[i];
    }
  }
}

template <class Op, class Derived>
auto elementwise(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  constexpr int Rows = Derived::RowsAtCompileTime;
  constexpr int Cols = Derived::ColsAtCompileTime;
  if constexpr (!is_var_v<S>) {
    Eigen::Matrix<S, Rows, Cols> out(m.rows(), m.cols());
    if constexpr (std::is_same_v<S, double>) {
      const Eigen::Matrix<double, Rows, Cols> in = m;
      eval_value<Op>(in.data(), out.data(), in.size());
    } else {
      for (Eigen::Index j = 0; j < m.cols(); ++j)
        for (Eigen::Index i = 0; i < m.rows(); ++i) out(i, j) = Op::f(m.derived().coeff(i, j));
    }
    return out;
  } else {
    using Real = tape_scalar_t<S>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<UnaryElementwiseNode<Real>>();
    // The reverse step needs only the derivatives: the input values go straight into the
    // output buffer, which the function then overwrites.
    node->x = save_operand(t, m, false);
    const Eigen::Index n = node->x.size();
    Real* f = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
    Real* d = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
    {
      Eigen::Index k = 0;
      for (Eigen::Index j = 0; j < m.cols(); ++j)
        for (Eigen::Index i = 0; i < m.rows(); ++i) f[k++] = m.derived().coeff(i, j).value();
    }
    if constexpr (checked_mode) {
      for (Eigen::Index i = 0; i < n; ++i)
        if (!Op::in_domain(value_of(f[i]))) throw_domain<Op>(value_of(f[i]));
    }
    if constexpr (std::is_same_v<Real, double>) {
      eval_with_derivative<Op>(f, f, d, n);
    } else if constexpr (is_double_dual<Real>::value && has_vectorised_kernel<Op>) {
      dual_elementwise<Op>(f, d, n);
    } else {
      for (Eigen::Index i = 0; i < n; ++i) {
        const Real x = f[i];
        f[i] = Op::f(x);
        d[i] = Op::df(x, f[i]);
      }
    }
    node->derivative = d;
    const Eigen::Map<const RealMatrix<Real>> fv(f, node->x.rows, node->x.cols);
    if (!node->x.active) return Eigen::Matrix<Var<Real>, Rows, Cols>(fv.template cast<Var<Real>>());
    node->out_first = t.new_indices(static_cast<std::size_t>(n));
    t.push_fused(node);
    return make_output<Rows, Cols>(t, node->out_first, fv);
  }
}

template <int Kind, class DA, class DB>
auto binary_elementwise(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b,
                        const char* name) {
  using SA = typename DA::Scalar;
  using SB = typename DB::Scalar;
  constexpr int Rows = DA::RowsAtCompileTime;
  constexpr int Cols = DA::ColsAtCompileTime;
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument(std::string("ngvi::ad::") + name + ": shapes " +
                                std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                                " and " + std::to_string(b.rows()) + "x" +
                                std::to_string(b.cols()) + " differ");
  if constexpr (!any_var_v<SA, SB>) {
    using S = typename Eigen::ScalarBinaryOpTraits<SA, SB>::ReturnType;
    if constexpr (Kind == 0)
      return Eigen::Matrix<S, Rows, Cols>(a.derived() + b.derived());
    else if constexpr (Kind == 1)
      return Eigen::Matrix<S, Rows, Cols>(a.derived() - b.derived());
    else
      return Eigen::Matrix<S, Rows, Cols>(a.derived().cwiseProduct(b.derived()));
  } else {
    using Real = common_real_t<SA, SB>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<BinaryElementwiseNode<Real, Kind>>();
    node->a = save_operand(t, a);
    node->b = save_operand(t, b);
    const auto av = node->a.value_map().array();
    const auto bv = node->b.value_map().array();
    RealMatrix<Real> out;
    if constexpr (Kind == 0)
      out = (av + bv).matrix();
    else if constexpr (Kind == 1)
      out = (av - bv).matrix();
    else
      out = (av * bv).matrix();
    if (!node->a.active && !node->b.active)
      return Eigen::Matrix<Var<Real>, Rows, Cols>(out.template cast<Var<Real>>());
    node->out_first = t.new_indices(static_cast<std::size_t>(out.size()));
    t.push_fused(node);
    return make_output<Rows, Cols>(t, node->out_first, out);
  }
}

}  // namespace detail

#define NGVI_AD_ELEMENTWISE(name, Op)              \
  template <class Derived>                         \
  auto name(const Eigen::MatrixBase<Derived>& m) { \
    return detail::elementwise<fn::Op>(m);         \
  }
NGVI_AD_UNARY_FUNCTIONS(NGVI_AD_ELEMENTWISE)
#undef NGVI_AD_ELEMENTWISE

// a + b, coefficient-wise, as one node.
template <class DA, class DB>
auto cwise_sum(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  return detail::binary_elementwise<0>(a, b, "cwise_sum");
}
// a − b, coefficient-wise, as one node.
template <class DA, class DB>
auto cwise_difference(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  return detail::binary_elementwise<1>(a, b, "cwise_difference");
}
// a ∘ b (Hadamard product), as one node.
template <class DA, class DB>
auto cwise_product(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  return detail::binary_elementwise<2>(a, b, "cwise_product");
}

}  // namespace ngvi::ad
