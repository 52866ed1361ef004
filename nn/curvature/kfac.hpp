// K-FAC: Kronecker factors of the curvature of each dense layer (Martens & Grosse 2015; Zhang
// et al. 2018, "Noisy Natural Gradient as Variational Inference", §2.3, Eqn. 2), and the
// block-diagonal matrix they stand for.
//
// For dense layer l with input aᵢ (in), augmented ãᵢ = (aᵢ, 1) so the bias joins the weights,
// and pre-activation zᵢ = W aᵢ + b (out), the layer's block of a curvature matrix is
// Σᵢ (δᵢδᵢᵀ ⊗ ãᵢãᵢᵀ) for per-example output-space vectors δᵢ, and K-FAC approximates it by
//     N · (S ⊗ A),   A = (1/N) Σᵢ ãᵢãᵢᵀ,   S = (1/N) Σᵢ E[δᵢδᵢᵀ],
// i.e. it assumes activations and pre-activation gradients independent, and layers
// independent of each other (block diagonal). The Kronecker order S ⊗ A matches θ's layout
// of [W | b] row by row (W out×in row-major, then b): entry ((r, c), (r', c')) of the block is
// N·S(r, r')·A(c, c'), where column c = in stands for the bias.
//
// Which S ("name each by what it is"):
//   KfacS::sampled_fisher   δ = ∂ℓ(fᵢ, ỹ)/∂zᵢ with targets ỹ ~ p(y | fᵢ) drawn from the model,
//                           averaged over `samples` draws: the S of K-FAC and noisy K-FAC
//                           (Zhang et al. 2018, Alg. 2), an unbiased estimate of the next one.
//   KfacS::expected_fisher  its exact expectation, E[δδᵀ] = Jzᵢᵀ F_L,i Jzᵢ with Jzᵢ = ∂fᵢ/∂zᵢ and
//                           F_L the likelihood's output Fisher (= H_L for canonical links):
//                           the Gauss-Newton factor, "KFLR" in BackPACK's terms. With one
//                           dense layer and one example, N·(S ⊗ A) is exactly the GGN block.
//   KfacS::empirical_fisher δ = ∂ℓ(fᵢ, yᵢ)/∂zᵢ at the observed targets.
//
// How the pieces are computed: A from one batched double forward pass (Sequential::trace, whose
// hook sees every dense layer's input). Since zᵢ = W aᵢ + b, ∂/∂zᵢ is
// ∂/∂b: δᵢ and Jzᵢ are the bias columns of the per-example gradient and of the output
// Jacobian Jᵢ, so every S comes from Jzᵢ and output-space quantities, by the Gauss-Newton's and
// the Monte-Carlo Fisher's sum (detail::jacobian_sandwich_sum) restricted to the bias columns.
// For Supervised<Sequential, L> those columns are the per-example δs of the batched route (one
// batched forward pass and one reverse sweep per output per block), read directly: the other
// columns of Jᵢ are never formed. The targets of sampled_fisher are those mc_fisher draws for
// the same seed and stream. So every dense layer needs a bias: a layer built with Bias::none is
// refused (require_kfac_biases).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/value_and_gradient.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/detail/jacobian_sandwich.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/mc_fisher.hpp>
#include <nn/curvature/options.hpp>
#include <nn/example_indices.hpp>
#include <nn/sequential.hpp>

namespace ngvi::nn {

// Which pre-activation second-moment matrix S is (see the file comment).
enum class KfacS {
  sampled_fisher,    // E over targets sampled from the model (K-FAC, noisy K-FAC), `samples` draws
  expected_fisher,   // its exact expectation Jzᵀ F_L Jz (the Gauss-Newton factor)
  empirical_fisher,  // at the observed targets
};

struct KfacOptions {
  // Which S factor (see the file comment). Default: K-FAC's, targets sampled from the model.
  KfacS s_factor = KfacS::sampled_fisher;
  // For sampled_fisher: draws per example (1, as K-FAC does per step), the seed and stream of
  // the per-example generators example_rng(seed, i, stream). Ignored otherwise.
  int samples = 1;
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
  // Threads, examples per task and the deterministic reduction of the sums over examples, as
  // in CurvatureOptions.
  int threads = 0;
  Eigen::Index grain = 16;
  Eigen::Index reduction_blocks = 16;
};

// The Kronecker factors of one dense layer.
struct KfacFactors {
  DenseSlot slot;             // the layer: sizes and the θ blocks of its weight and bias
  Eigen::MatrixXd A;          // (in+1)×(in+1): (1/N) Σ ããᵀ, bias entry last
  Eigen::MatrixXd S;          // out×out: (1/N) Σ E[δδᵀ]
  Eigen::Index examples = 0;  // N: the block approximated is N·(S ⊗ A)

  // θ index of entry (r, c) of the augmented [W | b] (c == in is the bias).
  Eigen::Index theta_index(Eigen::Index r, Eigen::Index c) const {
    return c < slot.in ? slot.weight.offset + r * slot.in + c : slot.bias.offset + r;
  }
  // N·(S ⊗ A), ((in+1)·out)², rows and columns in the order (r, c) ↦ r·(in+1) + c.
  // Cost: O(out²·(in+1)²).
  Eigen::MatrixXd block() const {
    const Eigen::Index a = A.rows(), s = S.rows();
    Eigen::MatrixXd K(a * s, a * s);
    for (Eigen::Index r = 0; r < s; ++r)
      for (Eigen::Index q = 0; q < s; ++q)
        K.block(r * a, q * a, a, a) = (static_cast<double>(examples) * S(r, q)) * A;
    return K;
  }
};

namespace detail {
template <class M>
concept SequentialModel = OutputLikelihoodModel<M> && requires(const M& m) {
  { m.net() } -> std::convertible_to<const Sequential&>;
  requires HasExampleRows<M> || HasDataRows<M>;
};
template <class M>
void require_sequential_model() {
  require_output_likelihood_model<M>();
  static_assert(
      SequentialModel<M>,
      "ngvi::nn::kfac_factors: K-FAC needs the model's dense layers: model.net() must be an "
      "nn::Sequential and its inputs model.input_rows(idx, buffer) or model.data().X "
      "(nn::Supervised<Sequential, Lik> has both)");
}
inline void check_kfac_samples(const KfacOptions& options) {
  if (options.s_factor == KfacS::sampled_fisher && options.samples < 1)
    throw std::invalid_argument(
        "ngvi::nn::kfac_factors: samples = " + std::to_string(options.samples) + ", expected >= 1");
}
}  // namespace detail

// Throws std::invalid_argument naming `who` and the first dense layer of `net` without a bias:
// K-FAC reads S from the bias columns (see the top of this file). Cost: O(layers).
inline void require_kfac_biases(const Sequential& net, const std::string& who) {
  for (std::size_t k = 0; k < net.dense_layers().size(); ++k)
    if (!net.dense_layers()[k].has_bias())
      throw std::invalid_argument(
          who + ": dense layer " + std::to_string(k) + " (" +
          describe(net.layers()[net.dense_layers()[k].layer]) +
          ") has no bias; K-FAC reads its S factor from the bias gradients, so every dense "
          "layer needs one");
}

namespace detail {
// The factors over the examples idx (already checked); N = |idx| in KfacFactors.
template <class Model>
std::vector<KfacFactors> kfac_factors(const Model& model, const Eigen::VectorXd& theta,
                                      ExampleIndices idx, const KfacOptions& options) {
  const Sequential& net = model.net();
  const std::vector<DenseSlot>& slots = net.dense_layers();
  const auto N = static_cast<Eigen::Index>(idx.size());
  std::vector<KfacFactors> out(slots.size());

  // A: layer inputs from one batched double forward pass (the network's trace, keeping only
  // each dense layer's input).
  Eigen::MatrixXd xbuf;
  std::vector<Eigen::MatrixXd> inputs;
  net.trace(theta, input_rows_of(model, idx, xbuf),
            [&inputs](std::size_t, const auto& in, const auto&) { inputs.emplace_back(in); });
  for (std::size_t l = 0; l < slots.size(); ++l) {
    KfacFactors& k = out[l];
    k.slot = slots[l];
    k.examples = N;
    Eigen::MatrixXd At(N, slots[l].in + 1);
    At.leftCols(slots[l].in) = inputs[l];
    At.col(slots[l].in).setOnes();
    k.A = Eigen::MatrixXd::Zero(At.cols(), At.cols());
    k.A.selfadjointView<Eigen::Lower>().rankUpdate(At.transpose());
    k.A.triangularView<Eigen::StrictlyUpper>() = k.A.transpose();
    if (N > 0) k.A /= static_cast<double>(N);
  }

  // S: the bias columns of every layer side by side, Jz = J[:, biases], and
  // Σᵢ Jzᵢᵀ Mᵢ Jzᵢ with Mᵢ = H_L,i, (1/S) Σₛ rₛrₛᵀ or rrᵀ.
  std::vector<Eigen::Index> bias_cols;
  for (const DenseSlot& s : slots)
    for (Eigen::Index r = 0; r < s.out; ++r) bias_cols.push_back(s.bias.offset + r);
  MonteCarloFisherOptions mc;
  mc.samples = options.samples;
  mc.seed = options.seed;
  mc.stream = options.stream;
  const Eigen::MatrixXd SS = jacobian_sandwich_sum(
      model, theta, idx, curvature_options(options), SandwichShape::full,
      [&](const Eigen::VectorXd& f, Eigen::Index i) -> Eigen::MatrixXd {
        switch (options.s_factor) {
          case KfacS::sampled_fisher:
            return mean_outer(sampled_output_gradients(model, f, i, mc), f.size());
          case KfacS::expected_fisher:
            return output_curvature(model, f, i, OutputCurvature::fisher);
          case KfacS::empirical_fisher:
            break;
        }
        const Eigen::VectorXd y = example_target(model, i);
        const auto& lik = model.likelihood();
        const Eigen::VectorXd r = ad::gradient([&](const auto& fv) { return lik.nll(fv, y); }, f);
        return r * r.transpose();
      },
      bias_cols);
  Eigen::Index at = 0;
  for (std::size_t l = 0; l < slots.size(); ++l) {
    out[l].S = SS.block(at, at, slots[l].out, slots[l].out);
    if (N > 0) out[l].S /= static_cast<double>(N);
    at += slots[l].out;
  }
  return out;
}

}  // namespace detail

// The K-FAC factors of every dense layer of model.net(), in layer order.
// Cost: one batched double forward pass (A) + per block of examples one batched forward pass
// and m reverse sweeps (the δs) + N·(m·Σout² + samples·m) flops for S, over the threads (for
// a model other than Supervised<Sequential, L>: nn's per-example Jacobians instead of the δs).
// Memory: per task a block's B·m·Σout bias columns (B·m·P Jacobians on the generic route) +
// O(Σ(in+1)² + (Σout)²·reduction_blocks).
template <class Model>
std::vector<KfacFactors> kfac_factors(const Model& model, const Eigen::VectorXd& theta,
                                      const KfacOptions& options = {}) {
  detail::require_sequential_model<Model>();
  detail::check_theta(model, theta, "kfac_factors");
  detail::check_kfac_samples(options);
  require_kfac_biases(model.net(), "ngvi::nn::kfac_factors");
  return detail::kfac_factors(model, theta, all_examples(model.num_examples()), options);
}
// The factors of the minibatch idx: A = (1/|idx|) Σ_{i ∈ idx} ããᵀ, S likewise, examples =
// |idx| (so N·(S ⊗ A) approximates the curvature summed over idx). Sampled targets come from
// each example's own stream example_rng(seed, i, stream) with its global index i. Throws for an
// empty idx or an index outside 0..N−1. Cost: as above with |idx| for N.
template <class Model>
std::vector<KfacFactors> kfac_factors(const Model& model, const Eigen::VectorXd& theta,
                                      ExampleIndices idx, const KfacOptions& options = {}) {
  detail::require_sequential_model<Model>();
  detail::check_theta(model, theta, "kfac_factors");
  detail::check_kfac_samples(options);
  require_kfac_biases(model.net(), "ngvi::nn::kfac_factors");
  check_example_indices(idx, model.num_examples(), "kfac_factors");
  return detail::kfac_factors(model, theta, idx, options);
}

// The P×P block-diagonal matrix Σ over layers of N·(S ⊗ A) placed at θ's indices; entries of
// parameters outside every dense layer (a likelihood's own) and between layers are 0.
// Cost: O(Σ ((in+1)·out)²) writes into a P×P zero matrix.
inline Eigen::MatrixXd kfac_matrix(const std::vector<KfacFactors>& factors,
                                   Eigen::Index num_params) {
  Eigen::MatrixXd F = Eigen::MatrixXd::Zero(num_params, num_params);
  for (const KfacFactors& k : factors) {
    const Eigen::MatrixXd B = k.block();
    const Eigen::Index a = k.A.rows(), s = k.S.rows();
    std::vector<Eigen::Index> idx(static_cast<std::size_t>(a * s));
    for (Eigen::Index r = 0; r < s; ++r)
      for (Eigen::Index c = 0; c < a; ++c)
        idx[static_cast<std::size_t>(r * a + c)] = k.theta_index(r, c);
    for (Eigen::Index u = 0; u < a * s; ++u) {
      const Eigen::Index pu = idx[static_cast<std::size_t>(u)];
      if (pu >= num_params)
        throw std::invalid_argument("ngvi::nn::kfac_matrix: a layer reaches θ index " +
                                    std::to_string(pu) + " but num_params is " +
                                    std::to_string(num_params));
      for (Eigen::Index v = 0; v < a * s; ++v) F(pu, idx[static_cast<std::size_t>(v)]) = B(u, v);
    }
  }
  return F;
}

// The diagonal of kfac_matrix: N·S(r, r)·A(c, c) at θ index (r, c). Cost: O(Σ (in+1)·out).
inline Eigen::VectorXd kfac_diagonal(const std::vector<KfacFactors>& factors,
                                     Eigen::Index num_params) {
  Eigen::VectorXd d = Eigen::VectorXd::Zero(num_params);
  for (const KfacFactors& k : factors)
    for (Eigen::Index r = 0; r < k.S.rows(); ++r)
      for (Eigen::Index c = 0; c < k.A.rows(); ++c)
        d(k.theta_index(r, c)) = static_cast<double>(k.examples) * k.S(r, r) * k.A(c, c);
  return d;
}

}  // namespace ngvi::nn
