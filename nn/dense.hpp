// Dense: the fully connected layer y = x Wᵀ + b, or y = x Wᵀ without a bias, applied to a whole
// batch at once. (Operands may be Eigen matrices or ad::MatrixVar handles of any scalar type;
// see autodiff/eigen/matrix_var.hpp.)
//
// A batch X holds one example per ROW (B×in), so the layer computes Z = X Wᵀ + 1 bᵀ (B×out).
// Parameter order: W is out×in and stored row-major in θ (entry (o, j) at o·in + j), followed by
// b (out entries) unless the layer is built with Bias::none — the layout of the peers' reference
// networks and of PyTorch's nn.Linear (whose bias=False is Bias::none). In a Sequential the
// layers' blocks follow each other in layer order ("dense<k>.weight", "dense<k>.bias"). On Var
// operands the layer records one fused node — ad::affine, the product with the bias added
// (ad::matmul without a bias) — so its cost on the tape is independent of the batch size in
// entries, and the reverse sweep is two GEMMs and the bias's column sums. The output Z
// occupies consecutive tape indices in column-major order, which is what lets the per-example
// and K-FAC code read ∂loss/∂Z as one matrix.
#pragma once

#include <stdexcept>
#include <string>

#include <Eigen/Core>

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

// Whether a dense layer adds a learned bias b (the default) or not: Dense(50, 1, Bias::none).
enum class Bias { learned, none };

struct Dense {
  Eigen::Index in = 0;
  Eigen::Index out = 0;
  Init init = Init::automatic;
  Bias bias = Bias::learned;

  // E.g. Dense(13, 50), Dense(13, 50, Init::he_normal), Dense(50, 1, Bias::none),
  // Dense(50, 1, Init::zeros, Bias::none). Throws std::invalid_argument unless in, out > 0.
  Dense(Eigen::Index in_features, Eigen::Index out_features, Init how = Init::automatic,
        Bias with = Bias::learned)
      : in(in_features), out(out_features), init(how), bias(with) {
    if (in <= 0 || out <= 0)
      throw std::invalid_argument("ngvi::nn::Dense: sizes must be positive, got in = " +
                                  std::to_string(in) + ", out = " + std::to_string(out));
  }
  Dense(Eigen::Index in_features, Eigen::Index out_features, Bias with)
      : Dense(in_features, out_features, Init::automatic, with) {}

  bool has_bias() const { return bias == Bias::learned; }
  // in·out weights, plus out biases unless Bias::none.
  Eigen::Index num_params() const { return in * out + (has_bias() ? out : 0); }

  // Z = X Wᵀ + 1 bᵀ for a batch X (B×in), weights W (out×in) and bias b (out), each of
  // double or Var<Real> in any combination. Cost: one B×in×out GEMM forward; on Var, one fused
  // node and up to two GEMMs and one pass over Z̄ in the reverse sweep.
  template <ad::MatrixArgument MX, ad::MatrixArgument MW, ad::MatrixArgument MB>
  static auto apply(const MX& X, const MW& W, const MB& b) {
    return apply_transposed(X, W.transpose(), b);
  }
  // Z = X Wᵀ, the layer without a bias. Cost: one B×in×out GEMM forward; on Var, one fused node
  // and up to two GEMMs in the reverse sweep.
  template <ad::MatrixArgument MX, ad::MatrixArgument MW>
  static auto apply(const MX& X, const MW& W) {
    return apply_transposed(X, W.transpose());
  }

  // The same with Wᵀ (in×out) given instead of W: θ's row-major W read column-major is Wᵀ, so
  // for Var θ this is the form whose weights are one handle of consecutive variables without a
  // copy or an index list (see Sequential). Cost: as apply().
  template <ad::MatrixArgument MX, ad::MatrixArgument MWt, ad::MatrixArgument MB>
  static auto apply_transposed(const MX& X, const MWt& Wt, const MB& b) {
    check_inputs(X, Wt);
    return ad::affine(X, Wt, b);
  }
  template <ad::MatrixArgument MX, ad::MatrixArgument MWt>
  static auto apply_transposed(const MX& X, const MWt& Wt) {
    check_inputs(X, Wt);
    return ad::matmul(X, Wt);
  }

 private:
  template <class MX, class MWt>
  static void check_inputs(const MX& X, const MWt& Wt) {
    if (X.cols() != Wt.rows())
      throw std::invalid_argument("ngvi::nn::Dense: input batch has " + std::to_string(X.cols()) +
                                  " columns but the layer expects " + std::to_string(Wt.rows()) +
                                  " inputs");
  }
};

}  // namespace ngvi::nn
