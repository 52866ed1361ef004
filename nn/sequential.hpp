// Sequential: a feed-forward network, a list of dense layers and activations applied in turn.
//
// The network owns no parameter values: it owns a ParameterLayout (for dense layer k the
// blocks "dense<k>.weight", out×in row-major, and "dense<k>.bias", in layer order) and reads
// its weights from whatever θ it is handed, as Eigen maps of θ's scalar type. So one network
// object serves double evaluation, gradients (Var<double>) and Hessians (Var<Dual>), and
// many threads can run it at once on their own tapes. Inputs are a batch with one example per
// row; the whole batch goes through each layer as one matrix operation (one GEMM, one fused
// tape node per layer and activation), which is what makes per-example gradients cheap.
//
// forward_with_cache also returns, for each dense layer, its input activations and its
// pre-activation output Z. With T = Var<double>, Z's entries are consecutive tape variables,
// so after a reverse sweep adjoints_of(Z, tape) is ∂loss/∂Z — the per-example "δ" that
// BackPACK-style per-example gradients (δᵢ aᵢᵀ) and K-FAC's S factor are built from.
#pragma once

#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include <autodiff/core/tape.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <nn/layer.hpp>
#include <nn/parameters.hpp>

namespace ngvi::nn {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

// What forward_with_cache keeps for each dense layer k of a batch of B examples.
template <class T>
struct ForwardCache {
  std::vector<Matrix<T>> inputs;           // B×in_k: the layer's input activations a
  std::vector<Matrix<T>> pre_activations;  // B×out_k: z = a Wᵀ + b
  Matrix<T> output;                        // B×out: the network output
};

// A dense layer's place in the network and in θ.
struct DenseSlot {
  std::size_t layer = 0;  // position in Sequential::layers()
  Eigen::Index in = 0, out = 0;
  Block weight;  // out×in, row-major
  Block bias;    // out×1
};

class Sequential {
 public:
  // E.g. Sequential net{Dense(13, 50), Tanh{}, Dense(50, 1)}. Throws std::invalid_argument if
  // there is no dense layer or consecutive dense layers' sizes do not chain.
  Sequential(std::initializer_list<Layer> layers) : Sequential(std::vector<Layer>(layers)) {}
  explicit Sequential(std::vector<Layer> layers) : layers_(std::move(layers)) { build(); }

  // widths = {in, h1, ..., out}: Dense layers with `activation` between them, linear output,
  // every dense layer initialised by `how`.
  // E.g. Sequential::mlp({13, 50, 1}, Tanh{}) == Sequential{Dense(13,50), Tanh{}, Dense(50,1)}.
  static Sequential mlp(const std::vector<Eigen::Index>& widths, const Layer& activation,
                        Init how = Init::automatic) {
    if (widths.size() < 2)
      throw std::invalid_argument(
          "ngvi::nn::Sequential::mlp: need at least input and output widths");
    if (std::holds_alternative<Dense>(activation))
      throw std::invalid_argument(
          "ngvi::nn::Sequential::mlp: the activation must not be a Dense layer");
    std::vector<Layer> layers;
    for (std::size_t k = 0; k + 1 < widths.size(); ++k) {
      if (k > 0) layers.push_back(activation);
      layers.push_back(Dense(widths[k], widths[k + 1], how));
    }
    return Sequential(std::move(layers));
  }

  const std::vector<Layer>& layers() const { return layers_; }
  const std::vector<DenseSlot>& dense_layers() const { return dense_; }
  const ParameterLayout& layout() const { return layout_; }
  Eigen::Index num_params() const { return layout_.size(); }
  Eigen::Index input_dim() const { return dense_.front().in; }
  Eigen::Index output_dim() const { return dense_.back().out; }

  // "dense(13->50) tanh dense(50->1)".
  std::string describe() const {
    std::string s;
    for (const Layer& l : layers_) s += (s.empty() ? "" : " ") + nn::describe(l);
    return s;
  }

  // Resizes θ to num_params() and draws each dense layer's weights by its Init (biases 0, but
  // for fan_in_uniform: drawn after the layer's weights). Cost: O(P) draws from rng.
  void init(Eigen::VectorXd& theta, std::mt19937_64& rng) const {
    theta.setZero(num_params());
    for (const DenseSlot& d : dense_) {
      Init how = std::get<Dense>(layers_[d.layer]).init;
      if (how == Init::automatic) {
        const bool relu_next =
            d.layer + 1 < layers_.size() && std::holds_alternative<Relu>(layers_[d.layer + 1]);
        how = relu_next ? Init::he_normal : Init::glorot_uniform;
      }
      switch (how) {
        case Init::glorot_uniform:
          init_glorot_uniform(theta, d.weight, rng);
          break;
        case Init::glorot_normal:
          init_glorot_normal(theta, d.weight, rng);
          break;
        case Init::he_normal:
          init_he_normal(theta, d.weight, rng);
          break;
        case Init::he_uniform:
          init_he_uniform(theta, d.weight, rng);
          break;
        case Init::zeros:
        case Init::automatic:
          init_zeros(theta, d.weight);
          break;
        case Init::fan_in_uniform:
          init_fan_in_uniform(theta, d.weight, rng, d.weight.cols);
          init_fan_in_uniform(theta, d.bias, rng, d.weight.cols);
          continue;
      }
      init_zeros(theta, d.bias);
    }
  }

  // The network output (B×output_dim) for a batch X (B×input_dim, one example per row).
  // θ's first num_params() entries are the network's; further entries (a likelihood's own
  // parameters, say) are ignored. Cost: per dense layer one B×in×out GEMM; on Var, per layer
  // three fused tape nodes (product, bias, activation), whatever B is.
  template <class T>
  Matrix<T> forward(const Vector<T>& theta, const Eigen::Ref<const Eigen::MatrixXd>& X) const {
    return run<T>(theta, X, nullptr);
  }

  // As forward(), also keeping each dense layer's input and pre-activation (see the top of
  // this file). Cost: as forward() plus copies of the cached matrices.
  template <class T>
  ForwardCache<T> forward_with_cache(const Vector<T>& theta,
                                     const Eigen::Ref<const Eigen::MatrixXd>& X) const {
    ForwardCache<T> cache;
    cache.output = run<T>(theta, X, &cache);
    return cache;
  }

  // Applies layer `k` (an activation) to a batch (an Eigen matrix or an ad::MatrixVar), for
  // code that walks the layers itself; the result is of the batch's kind.
  template <ad::MatrixArgument M>
  static auto apply_activation(const Layer& layer, const M& A) {
    using Out = std::conditional_t<ad::is_matrix_var_v<M>, M, Matrix<typename M::Scalar>>;
    return std::visit(
        [&](const auto& l) -> Out {
          using L = std::decay_t<decltype(l)>;
          if constexpr (std::is_same_v<L, Dense>) {
            throw std::logic_error(
                "ngvi::nn::Sequential::apply_activation called on a dense layer");
          } else {
            return Out(L::apply(A));
          }
        },
        layer);
  }

 private:
  void build() {
    Eigen::Index width = -1;
    for (std::size_t k = 0; k < layers_.size(); ++k) {
      if (const Dense* d = std::get_if<Dense>(&layers_[k])) {
        if (width >= 0 && d->in != width)
          throw std::invalid_argument(
              "ngvi::nn::Sequential: layer " + std::to_string(k) + " (" + nn::describe(layers_[k]) +
              ") expects " + std::to_string(d->in) + " inputs but the previous dense layer has " +
              std::to_string(width) + " outputs");
        const std::string prefix = "dense" + std::to_string(dense_.size());
        DenseSlot s;
        s.layer = k;
        s.in = d->in;
        s.out = d->out;
        s.weight = layout_.add(prefix + ".weight", d->out, d->in);
        s.bias = layout_.add(prefix + ".bias", d->out, 1);
        dense_.push_back(s);
        width = d->out;
      }
    }
    if (dense_.empty())
      throw std::invalid_argument("ngvi::nn::Sequential: the network has no dense layer");
  }

  template <class T>
  Matrix<T> run(const Vector<T>& theta, const Eigen::Ref<const Eigen::MatrixXd>& X,
                ForwardCache<T>* cache) const {
    if (theta.size() < num_params())
      throw std::invalid_argument("ngvi::nn::Sequential::forward: θ has " +
                                  std::to_string(theta.size()) + " entries, the network needs " +
                                  std::to_string(num_params()));
    if (X.cols() != input_dim())
      throw std::invalid_argument("ngvi::nn::Sequential::forward: the batch has " +
                                  std::to_string(X.cols()) + " columns, the network expects " +
                                  std::to_string(input_dim()) + " inputs");
    // On Var<Real> the activations are one ad::MatrixVar handle from layer to layer (no
    // per-coefficient Vars between the fused nodes); on double, plain Eigen matrices.
    using Handle = decltype(ad::as_matrix(std::declval<Matrix<T>>()));
    auto to_plain = [](const Handle& H) -> Matrix<T> {
      if constexpr (ad::is_matrix_var_v<Handle>)
        return H.to_eigen();
      else
        return H;
    };
    Handle A;
    bool at_input = true;  // A not yet set: the current activations are X itself (double)
    std::size_t next_dense = 0;
    for (std::size_t k = 0; k < layers_.size(); ++k) {
      if (std::holds_alternative<Dense>(layers_[k])) {
        const DenseSlot& d = dense_[next_dense++];
        // θ's row-major W (out×in) read column-major is Wᵀ (in×out).
        const auto Wt =
            ad::as_matrix(Eigen::Map<const Matrix<T>>(theta.data() + d.weight.offset, d.in, d.out));
        const auto b =
            ad::as_matrix(Eigen::Map<const Vector<T>>(theta.data() + d.bias.offset, d.out));
        Handle Z = at_input ? Handle(Dense::apply_transposed(X, Wt, b.transpose()))
                            : Handle(Dense::apply_transposed(A, Wt, b.transpose()));
        if (cache) {
          cache->inputs.push_back(at_input ? Matrix<T>(X.template cast<T>()) : to_plain(A));
          cache->pre_activations.push_back(to_plain(Z));
        }
        A = std::move(Z);
      } else {
        A = at_input ? Handle(apply_activation(layers_[k], X.template cast<T>().eval()))
                     : apply_activation(layers_[k], A);
      }
      at_input = false;
    }
    return to_plain(A);
  }

  std::vector<Layer> layers_;
  std::vector<DenseSlot> dense_;
  ParameterLayout layout_;
};

// The adjoints of a matrix of Vars after a reverse sweep on tape t (0 for constants).
// Cost: O(size), one gather.
template <class Real>
Matrix<Real> adjoints_of(const Matrix<ad::Var<Real>>& M, const ad::Tape<Real>& t) {
  Matrix<Real> out(M.rows(), M.cols());
  for (Eigen::Index j = 0; j < M.cols(); ++j)
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      out(i, j) = M(i, j).is_active() ? t.adjoint(M(i, j).index()) : Real(0.0);
  return out;
}

}  // namespace ngvi::nn
