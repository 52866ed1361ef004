// Sequential: a feed-forward network, a list of dense layers and activations applied in turn.
//
// The network owns no parameter values: it owns a ParameterLayout (for dense layer k the
// blocks "dense<k>.weight", out×in row-major, and "dense<k>.bias" unless the layer was built
// with Bias::none, in layer order; a likelihood's own parameters follow the network's) and reads
// its weights from whatever θ it is handed, as Eigen maps of θ's scalar type. So one network
// object serves double evaluation, gradients (Var<double>) and Hessians (Var<Dual>), and
// many threads can run it at once on their own tapes. Inputs are a batch with one example per
// row; the whole batch goes through each layer as one matrix operation (one GEMM, one fused
// tape node per layer and activation), which is what makes per-example gradients cheap.
//
// trace() is the network's one pass: forward(), forward_with_cache() and nn's batched
// per-example route (nn/per_example.hpp) all run it, with a hook that sees each dense layer's
// input and pre-activation Z. On the tape Z is one ad::MatrixVar of consecutive variables, so
// after a reverse sweep its adjoints (ad::Recording::adjoints_of) are ∂loss/∂Z — the
// per-example "δ" that BackPACK-style per-example gradients (δᵢ aᵢᵀ) and K-FAC's S factor are
// built from.
#pragma once

#include <functional>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Core>

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
  Block bias;    // out×1; empty (no entries, at weight.end()) for a layer with Bias::none
  bool has_bias() const { return bias.size() > 0; }
};

namespace detail {
// Sequential::trace's default hook: nothing.
struct NoTraceHook {
  template <class In, class Z>
  void operator()(std::size_t, const In&, const Z&) const {}
};
}  // namespace detail

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
          if (d.has_bias()) init_fan_in_uniform(theta, d.bias, rng, d.weight.cols);
          continue;
      }
      if (d.has_bias()) init_zeros(theta, d.bias);
    }
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

  // The network output (B×output_dim) for a batch X (B×input_dim, one example per row).
  // θ's first num_params() entries are the network's; further entries (a likelihood's own
  // parameters, say) are ignored. Cost: per dense layer one B×in×out GEMM; on Var, per layer
  // three fused tape nodes (product, bias, activation; two without a bias), whatever B is, and
  // one conversion of the output handle to an Eigen matrix of Var (trace() returns the handle
  // itself).
  template <class T>
  Matrix<T> forward(const Vector<T>& theta, const Eigen::Ref<const Eigen::MatrixXd>& X) const {
    return plain<T>(trace(theta, X));
  }

  // As forward(), also keeping each dense layer's input and pre-activation (see the top of
  // this file). Cost: as forward() plus copies of the cached matrices.
  template <class T>
  ForwardCache<T> forward_with_cache(const Vector<T>& theta,
                                     const Eigen::Ref<const Eigen::MatrixXd>& X) const {
    ForwardCache<T> cache;
    cache.output = plain<T>(trace(theta, X, [&cache](std::size_t, const auto& in, const auto& Z) {
      cache.inputs.push_back(plain<T>(in));
      cache.pre_activations.push_back(plain<T>(Z));
    }));
    return cache;
  }

  // The network's one pass over a batch X: returns its output, as the layers produced it — an
  // ad::MatrixVar on the tape (no per-coefficient Vars between the fused nodes), an Eigen
  // matrix on double. Each dense layer reads θ's blocks in place (ad::as_matrix of maps of θ:
  // on Var, handles of consecutive variables). Activations before the first dense layer act on
  // X in double. The first dense layer's pre-activation passes through lift (the identity by
  // default; the batched per-example route computes it with θ constant and lifts it onto the
  // tape there, ad::Recording::lift_matrix), and every later layer's result is of lift's
  // result's kind. on_dense(k, input, Z) is called for dense layer k with its input (X or an
  // earlier layer's result) and its pre-activation. Throws std::invalid_argument naming the
  // sizes if θ is too short or X's width is not input_dim(). Cost: per dense layer one
  // B×in×out GEMM; on the tape per layer three fused nodes (product, bias, activation; two
  // without a bias).
  template <class T, class OnDense = detail::NoTraceHook, class Lift = std::identity>
  auto trace(const Vector<T>& theta, const Eigen::Ref<const Eigen::MatrixXd>& X,
             OnDense&& on_dense = OnDense{}, Lift&& lift = Lift{}) const {
    check_forward(theta.size(), X.cols());
    const DenseSlot& first = dense_.front();
    Eigen::MatrixXd X0;  // X after the activations in front of the first dense layer
    for (std::size_t k = 0; k < first.layer; ++k)
      X0 = apply_activation(layers_[k], k == 0 ? Eigen::MatrixXd(X) : X0);
    const Eigen::Ref<const Eigen::MatrixXd> in =
        first.layer == 0 ? X : Eigen::Ref<const Eigen::MatrixXd>(X0);
    auto A = lift(dense(theta, first, in));
    using Handle = decltype(A);
    on_dense(std::size_t{0}, in, std::as_const(A));
    std::size_t next = 1;
    for (std::size_t k = first.layer + 1; k < layers_.size(); ++k) {
      if (std::holds_alternative<Dense>(layers_[k])) {
        Handle Z(dense(theta, dense_[next], A));
        on_dense(next++, std::as_const(A), std::as_const(Z));
        A = std::move(Z);
      } else {
        A = Handle(apply_activation(layers_[k], A));
      }
    }
    return A;
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
        if (d->has_bias())
          s.bias = layout_.add(prefix + ".bias", d->out, 1);
        else
          s.bias.offset = s.weight.end();
        dense_.push_back(s);
        width = d->out;
      }
    }
    if (dense_.empty())
      throw std::invalid_argument("ngvi::nn::Sequential: the network has no dense layer");
  }

  void check_forward(Eigen::Index theta_size, Eigen::Index x_cols) const {
    if (theta_size < num_params())
      throw std::invalid_argument("ngvi::nn::Sequential::forward: θ has " +
                                  std::to_string(theta_size) + " entries, the network needs " +
                                  std::to_string(num_params()));
    if (x_cols != input_dim())
      throw std::invalid_argument("ngvi::nn::Sequential::forward: the batch has " +
                                  std::to_string(x_cols) + " columns, the network expects " +
                                  std::to_string(input_dim()) + " inputs");
  }

  // Dense layer d on the batch A, with its weights read from θ in place: θ's row-major W
  // (out×in) read column-major is Wᵀ (in×out).
  template <class T, class MA>
  static auto dense(const Vector<T>& theta, const DenseSlot& d, const MA& A) {
    const Eigen::Map<const Matrix<T>> Wt(theta.data() + d.weight.offset, d.in, d.out);
    const Eigen::Map<const Vector<T>> b(theta.data() + d.bias.offset, d.has_bias() ? d.out : 0);
    if constexpr (ad::is_var_v<T>) {
      if (!d.has_bias()) return Dense::apply_transposed(A, ad::as_matrix(Wt));
      return Dense::apply_transposed(A, ad::as_matrix(Wt), ad::as_matrix(b).transpose());
    } else {
      if (!d.has_bias()) return Dense::apply_transposed(A, Wt);
      return Dense::apply_transposed(A, Wt, b.transpose());
    }
  }

  // An Eigen matrix of T holding a layer's result (a handle's variables, or constants).
  template <class T, class M>
  static Matrix<T> plain(const M& m) {
    if constexpr (ad::is_matrix_var_v<M>)
      return m.to_eigen();
    else
      return m.template cast<T>();
  }

  std::vector<Layer> layers_;
  std::vector<DenseSlot> dense_;
  ParameterLayout layout_;
};

}  // namespace ngvi::nn
