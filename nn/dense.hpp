// Dense: the fully connected layer y = x Wᵀ + b, applied to a whole batch at once.
// (Operands may be Eigen matrices or ad::MatrixVar handles; see autodiff/eigen/matrix_var.hpp.)
//
// A batch X holds one example per ROW (B×in), so the layer computes Z = X Wᵀ + 1 bᵀ (B×out).
// W is out×in and stored row-major in θ followed by b (out), which is the layout of the
// peers' reference networks and of PyTorch's nn.Linear. On Var operands the layer records two
// fused nodes — a matrix product (ad::matmul) and a broadcast bias add (ad::add_rowwise) — so
// its cost on the tape is independent of the batch size in entries, and the reverse sweep is
// two GEMMs. The output Z of add_rowwise occupies consecutive tape indices in column-major
// order, which is what lets the per-example and K-FAC code read ∂loss/∂Z as one matrix.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/eigen/broadcast.hpp>
#include <autodiff/eigen/matmul.hpp>
#include <autodiff/eigen/matrix_var.hpp>

namespace ngvi::nn {

// How Sequential::init draws a dense layer's weights (biases start at 0, except under
// fan_in_uniform).
enum class Init {
  automatic,       // He normal if the next layer is a Relu, else Glorot uniform
  glorot_uniform,  // U(±sqrt(6 / (in + out)))
  glorot_normal,   // N(0, 2 / (in + out))
  he_normal,       // N(0, 2 / in)
  he_uniform,      // U(±sqrt(6 / in))
  zeros,           // all zero (e.g. a last layer that starts at the prior mean)
  // U(±1/sqrt(in)) for the weights AND the bias: PyTorch nn.Linear's default, the start of the
  // PyTorch VI references; `ngvi uci` and `ngvi fit` use it (docs/uci.md).
  fan_in_uniform,
};

struct Dense {
  Eigen::Index in = 0;
  Eigen::Index out = 0;
  Init init = Init::automatic;

  Dense(Eigen::Index in_features, Eigen::Index out_features, Init how = Init::automatic)
      : in(in_features), out(out_features), init(how) {
    if (in <= 0 || out <= 0)
      throw std::invalid_argument("ngvi::nn::Dense: sizes must be positive, got in = " +
                                  std::to_string(in) + ", out = " + std::to_string(out));
  }

  Eigen::Index num_params() const { return in * out + out; }

  // Z = X Wᵀ + 1 bᵀ for a batch X (B×in), weights W (out×in) and bias b (out), each of
  // double or Var<Real> in any combination. Cost: one B×in×out GEMM forward; on Var, two fused
  // nodes and up to three GEMMs in the reverse sweep.
  template <ad::MatrixArgument MX, ad::MatrixArgument MW, ad::MatrixArgument MB>
  static auto apply(const MX& X, const MW& W, const MB& b) {
    return apply_transposed(X, W.transpose(), b);
  }

  // The same with Wᵀ (in×out) given instead of W: θ's row-major W read column-major is Wᵀ, so
  // for Var θ this is the form whose weights are one handle of consecutive variables without a
  // copy or an index list (see Sequential). Cost: as apply().
  template <ad::MatrixArgument MX, ad::MatrixArgument MWt, ad::MatrixArgument MB>
  static auto apply_transposed(const MX& X, const MWt& Wt, const MB& b) {
    if (X.cols() != Wt.rows())
      throw std::invalid_argument("ngvi::nn::Dense: input batch has " + std::to_string(X.cols()) +
                                  " columns but the layer expects " + std::to_string(Wt.rows()) +
                                  " inputs");
    return ad::add_rowwise(ad::matmul(X, Wt), b);
  }
};

}  // namespace ngvi::nn
