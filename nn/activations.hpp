// Activations: coefficient-wise non-linearities between dense layers.
//
// Each activation maps a batch matrix (one example per row) of double or of Var<Real>, or an
// ad::MatrixVar, to a matrix of the same kind and shape. On Var each call records ONE fused tape
// entry (the engine's coefficient-wise nodes in autodiff/eigen/elementwise.hpp), not one statement
// per coefficient, so a 455×50 hidden layer costs one node forward and one vectorised pass in the
// reverse sweep. On double matrices the same vectorised kernels compute the values only.
// ReLU is expressed as Z ∘ 1[Z > 0] (a Hadamard product with a constant 0/1 mask), which is
// exactly its derivative almost everywhere and takes the subgradient 0 at 0, as PyTorch does;
// its second derivative is 0, which is what forward-over-reverse then reports.
#pragma once

#include <cmath>
#include <limits>
#include <string_view>

#include <Eigen/Core>

#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/num_traits.hpp>

namespace ngvi::nn {

// tanh(z).
struct Tanh {
  static constexpr std::string_view name = "tanh";
  // Cost: one pass over Z (one fused node on Var).
  template <ad::MatrixArgument M>
  static auto apply(const M& z) {
    return ad::tanh(z);
  }
};

// max(z, 0), derivative 1[z > 0]; NaN stays NaN.
struct Relu {
  static constexpr std::string_view name = "relu";
  // Cost: one pass over Z to build the mask, one fused node on Var.
  template <ad::MatrixArgument M>
  static auto apply(const M& z) {
    using S = ad::detail::argument_scalar_t<M>;
    Eigen::MatrixXd v;
    if constexpr (ad::is_matrix_var_v<M>)
      v = ad::values_of(z.value());
    else
      v = ad::values_of(z);
    // The mask carries NaN through (NaN·NaN = NaN) so a diverged network is not hidden.
    const Eigen::MatrixXd mask = v.unaryExpr([](double x) {
      return x > 0.0 ? 1.0 : (std::isnan(x) ? std::numeric_limits<double>::quiet_NaN() : 0.0);
    });
    if constexpr (ad::is_var_v<S>) {
      return ad::cwise_product(z, mask);
    } else {
      return Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>(z.cwiseProduct(mask.cast<S>()));
    }
  }
};

// The logistic sigmoid 1 / (1 + exp(−z)).
struct Sigmoid {
  static constexpr std::string_view name = "sigmoid";
  // Cost: one pass over Z (one fused node on Var).
  template <ad::MatrixArgument M>
  static auto apply(const M& z) {
    return ad::logistic(z);
  }
};

// log(1 + exp(z)), computed without overflow.
struct Softplus {
  static constexpr std::string_view name = "softplus";
  // Cost: one pass over Z (one fused node on Var).
  template <ad::MatrixArgument M>
  static auto apply(const M& z) {
    return ad::softplus(z);
  }
};

// z itself: records nothing (the output shares the input's tape variables).
struct Identity {
  static constexpr std::string_view name = "identity";
  // Cost: a copy of Z (of the handle for a MatrixVar; no tape entry).
  template <ad::MatrixArgument M>
  static auto apply(const M& z) {
    if constexpr (ad::is_matrix_var_v<M>)
      return ad::MatrixVar<typename M::real_type>(z);
    else
      return Eigen::Matrix<typename M::Scalar, Eigen::Dynamic, Eigen::Dynamic>(z);
  }
};

}  // namespace ngvi::nn
