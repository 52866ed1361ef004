// Coefficient-wise functions of whole matrices, each recorded as one fused node.
//
// tanh(M), exp(M), log1p_exp(M), ... (every unary function of expr/function_list.hpp) apply an
// elementary function to every coefficient of an Eigen matrix of double or Var<Real>, or of an
// ad::MatrixVar (matrix_var.hpp; the result is then one too); cwise_product / cwise_sum /
// cwise_difference combine two matrices of the same shape, and scale(M, s) multiplies a
// MatrixVar by a number. On Var<double> the values
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
#include <autodiff/eigen/matrix_var.hpp>
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
    x.add_each(adj, [g, d](Eigen::Index k) { return lane_product(d[k], g[k]); });
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
      a.add_each(adj, [g, bv](Eigen::Index k) { return lane_product(g[k], bv[k]); });
      b.add_each(adj, [g, av](Eigen::Index k) { return lane_product(g[k], av[k]); });
    }
  }
};

// f = f(x) and d = f'(x) as duals for n dual inputs x (f may be x itself, the in-place case).
// Values and derivatives come from the vectorised double kernels; the tangents follow from
// the chain rule: f(x).d_k = f'·x.d_k and f'(x).d_k = f''·x.d_k. Cost: one pass reading x and
// writing f and d (memory-bound on the tangents: no copy of x first).
template <class Op, int K>
void dual_elementwise(const Dual<double, K>* x, Dual<double, K>* f, Dual<double, K>* d,
                      Eigen::Index n) {
  constexpr Eigen::Index chunk = math_chunk;
  double xv[chunk], fv[chunk], d1[chunk], d2[chunk];
  for (Eigen::Index s = 0; s < n; s += chunk) {
    const Eigen::Index len = std::min(chunk, n - s);
    for (Eigen::Index i = 0; i < len; ++i) xv[i] = x[s + i].v;
    eval_with_two_derivatives<Op>(xv, fv, d1, d2, len);
    for (Eigen::Index i = 0; i < len; ++i) {
      double t[K];
      for (int k = 0; k < K; ++k) t[k] = x[s + i].d[k];
      Dual<double, K>& fi = f[s + i];
      Dual<double, K>& di = d[s + i];
      di.v = d1[i];
      for (int k = 0; k < K; ++k) {
        di.d[k] = d2[i] * t[k];
        fi.d[k] = t[k] * d1[i];
      }
      fi.v = fv[i];
    }
  }
}

// The node of f applied to every coefficient of operand x, whose values are x_values: f(x)
// goes to the arena array f (which may be x_values itself, the in-place case).
template <class Op, class Real>
MatrixVar<Real> elementwise_node(Tape<Real>& t, const MatrixOperand<Real>& x, const Real* x_values,
                                 Real* f) {
  const Eigen::Index n = x.size();
  Real* d = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
  if constexpr (checked_mode) {
    for (Eigen::Index i = 0; i < n; ++i)
      if (!Op::in_domain(value_of(x_values[i]))) throw_domain<Op>(value_of(x_values[i]));
  }
  if constexpr (std::is_same_v<Real, double>) {
    eval_with_derivative<Op>(x_values, f, d, n);
  } else if constexpr (is_double_dual<Real>::value && has_vectorised_kernel<Op>) {
    dual_elementwise<Op>(x_values, f, d, n);
  } else {
    if (f != x_values) std::copy_n(x_values, n, f);
    for (Eigen::Index i = 0; i < n; ++i) {
      const Real v = f[i];
      f[i] = Op::f(v);
      d[i] = Op::df(v, f[i]);
    }
  }
  auto* node = t.arena().template create<UnaryElementwiseNode<Real>>();
  node->x = x;
  node->derivative = d;
  return close_node(t, node, node->out_first, x.rows, x.cols, f, x.active);
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
    // The reverse step needs only the derivatives: the input values go straight into the
    // output buffer, which the function then overwrites.
    const MatrixOperand<Real> x = save_operand(t, m, false);
    Real* f = t.arena().template allocate_array<Real>(static_cast<std::size_t>(x.size()));
    Eigen::Index k = 0;
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      for (Eigen::Index i = 0; i < m.rows(); ++i) f[k++] = m.derived().coeff(i, j).value();
    return elementwise_node<Op>(t, x, f, f).template to_eigen<Rows, Cols>();
  }
}

template <class Op, class Real>
MatrixVar<Real> elementwise_handle(const MatrixVar<Real>& m) {
  Tape<Real>& t = active_tape<Real>();
  const MatrixOperand<Real> x = operand_of(t, m);
  // The handle's values stay where they are: the kernel reads them and writes f(x) to a fresh
  // array, with no copy of the operand.
  Real* f = t.arena().template allocate_array<Real>(static_cast<std::size_t>(x.size()));
  return elementwise_node<Op>(t, x, m.value_data(), f);
}

template <class Real>
struct ScaleNode {
  MatrixOperand<Real> x;
  double s;
  index_t out_first;

  void reverse(Real* adj) const {
    const Real* g = adj + out_first;
    const double factor = s;
    x.add_each(adj, [g, factor](Eigen::Index k) { return g[k] * factor; });
  }
};

template <int Kind, class A, class B>
auto binary_elementwise(const A& a, const B& b, const char* name) {
  using SA = argument_scalar_t<A>;
  using SB = argument_scalar_t<B>;
  constexpr int Rows = rows_at_compile_time<A>();
  constexpr int Cols = cols_at_compile_time<A>();
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument(std::string("ngvi::ad::") + name + ": shapes " +
                                std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                                " and " + std::to_string(b.rows()) + "x" +
                                std::to_string(b.cols()) + " differ");
  if constexpr (!any_var_v<SA, SB>) {
    using S = typename Eigen::ScalarBinaryOpTraits<SA, SB>::ReturnType;
    if constexpr (Kind == 0)
      return Eigen::Matrix<S, Rows, Cols>(a + b);
    else if constexpr (Kind == 1)
      return Eigen::Matrix<S, Rows, Cols>(a - b);
    else
      return Eigen::Matrix<S, Rows, Cols>(a.cwiseProduct(b));
  } else {
    using Real = common_real_t<SA, SB>;
    constexpr bool as_handle = is_matrix_var_v<A> || is_matrix_var_v<B>;
    Tape<Real>& t = active_tape<Real>();
    auto* node = t.arena().template create<BinaryElementwiseNode<Real, Kind>>();
    node->a = operand_of(t, a);
    node->b = operand_of(t, b);
    const Eigen::Index n = node->a.size();
    const Real* av = node->a.values;
    const Real* bv = node->b.values;
    Real* out = t.arena().template allocate_array<Real>(static_cast<std::size_t>(n));
    // Sums and differences in place (copy, then += or −=), as broadcast_add does: no Dual
    // temporary through the stack.
    for (Eigen::Index k = 0; k < n; ++k) {
      if constexpr (Kind == 2) {
        out[k] = av[k] * bv[k];
      } else {
        out[k] = av[k];
        if constexpr (Kind == 0)
          out[k] += bv[k];
        else
          out[k] -= bv[k];
      }
    }
    return node_result<as_handle, Rows, Cols>(close_node(
        t, node, node->out_first, a.rows(), a.cols(), out, node->a.active || node->b.active));
  }
}

}  // namespace detail

#define NGVI_AD_ELEMENTWISE(name, Op)              \
  template <class Derived>                         \
  auto name(const Eigen::MatrixBase<Derived>& m) { \
    return detail::elementwise<fn::Op>(m);         \
  }                                                \
  template <class Real>                            \
  MatrixVar<Real> name(const MatrixVar<Real>& m) { \
    return detail::elementwise_handle<fn::Op>(m);  \
  }
NGVI_AD_UNARY_FUNCTIONS(NGVI_AD_ELEMENTWISE)
#undef NGVI_AD_ELEMENTWISE

// a + b, coefficient-wise, as one node.
template <MatrixArgument A, MatrixArgument B>
auto cwise_sum(const A& a, const B& b) {
  return detail::binary_elementwise<0>(a, b, "cwise_sum");
}
// a − b, coefficient-wise, as one node.
template <MatrixArgument A, MatrixArgument B>
auto cwise_difference(const A& a, const B& b) {
  return detail::binary_elementwise<1>(a, b, "cwise_difference");
}
// a ∘ b (Hadamard product), as one node.
template <MatrixArgument A, MatrixArgument B>
auto cwise_product(const A& a, const B& b) {
  return detail::binary_elementwise<2>(a, b, "cwise_product");
}

// s·m for a matrix variable, as one node. Cost: one pass forward, one pass backward.
template <class Real>
MatrixVar<Real> scale(const MatrixVar<Real>& m, double s) {
  Tape<Real>& t = active_tape<Real>();
  const detail::MatrixOperand<Real> x = detail::operand_of(t, m);
  Real* out = t.arena().template allocate_array<Real>(static_cast<std::size_t>(x.size()));
  for (Eigen::Index k = 0; k < x.size(); ++k) out[k] = x.values[k] * s;
  auto* node = t.arena().template create<detail::ScaleNode<Real>>();
  node->x = x;
  node->s = s;
  return detail::close_node(t, node, node->out_first, x.rows, x.cols, out, x.active);
}

}  // namespace ngvi::ad
