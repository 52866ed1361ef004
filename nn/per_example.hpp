// Per-example quantities of a separable model: gradients ∇ℓᵢ, output Jacobians ∂fᵢ/∂θ and
// Hessians ∇²ℓᵢ, computed in parallel with oneTBB, for all N examples or for a minibatch
// ExampleIndices idx (row k is example idx[k]; see nn/example_indices.hpp).
//
// Two routes compute the N×P per-example gradient matrix G (row i = ∇ℓᵢ(θ)ᵀ):
//
// * generic (any SeparableModel): ngvi::ad::per_example_gradients over model.example_loss —
//   one recording and one reverse sweep per example on the worker's own tape.
// * batched (a BatchedSequentialModel such as Supervised<Sequential, L>, BackPACK-style; see
//   nn/supervised.hpp): one forward pass (Sequential::trace) and ONE reverse
//   sweep per block of examples, the block going through each layer as a matrix
//   (nn/batched_pass.hpp). Because
//   the batch loss is Σᵢ ℓᵢ and example i only touches row i of every layer's pre-activation
//   Z, the adjoint of row i of Z is exactly ∂ℓᵢ/∂zᵢ =: δᵢ. The weight gradient of example i
//   is then the outer product δᵢ aᵢᵀ with the layer's input aᵢ, and its bias gradient δᵢ;
//   the likelihood's own parameters get one tape variable per example, whose adjoint is that
//   example's partial. θ itself enters the recording as constants, so the reverse sweep only
//   propagates δ through the activations and never forms the (summed) weight gradients.
//   Exact — it agrees with the generic route to rounding — and several times faster.
//
// Parallelism: examples are cut into fixed blocks of options.grain, independent of the
// thread count (ad::parallel_blocks runs them on a cached arena of options.threads); each TBB task
// records its block on its thread's tape and writes only its rows. Every number therefore comes
// from the same operations in the same order whatever the number of threads: results are bitwise
// identical for 1, 2 or 7 threads. Reductions over examples sum in a fixed order for the same
// reason: squared_column_mean each column in example order, the batched moments (the squares of
// per_example_gradients, add_gradient_sums_and_squares) block by block in block order.
#pragma once

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/per_example.hpp>
#include <autodiff/functional/recording.hpp>
#include <nn/batched_pass.hpp>
#include <nn/example_indices.hpp>
#include <nn/model_concept.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::nn {

using ad::ParallelOptions;
using ad::RowMatrixXd;

namespace detail {

// Columns b0 … b0+w−1 of add_column_sums, with accumulators of Acc's kind.
template <class Acc>
void add_column_block_sums(const RowMatrixXd& G, Eigen::Index b0, Eigen::Index w,
                           Eigen::VectorXd* sum, Eigen::VectorXd& squares) {
  Acc s = Acc::Zero(w), q = Acc::Zero(w);
  for (Eigen::Index n = 0; n < G.rows(); ++n) {
    const auto row = G.row(n).segment(b0, w).transpose().array();
    if (sum) s += row;
    q += row.square();
  }
  if (sum) sum->segment(b0, w) += s.matrix();
  squares.segment(b0, w) += q.matrix();
}

// Adds Σᵢ G(i, p) to sum(p) (when sum is given) and Σᵢ G(i, p)² to squares(p), for every column
// p, in one pass over G; each column in row order, columns in blocks of 256 (two 2 KiB
// accumulators, in L1; a full block's are of fixed size, which lets the compiler unroll the
// row loop: ~15 % faster on 455×751) split over options.threads threads. Every column's sums
// are the same operations in the same order whichever kind of block it falls in.
inline void add_column_sums(const RowMatrixXd& G, Eigen::VectorXd* sum, Eigen::VectorXd& squares,
                            const ParallelOptions& options) {
  constexpr Eigen::Index block = 256;
  ParallelOptions cols = options;
  cols.grain = block;
  ad::parallel_blocks(G.cols(), cols, [&](Eigen::Index p0, Eigen::Index p1) {
    for (Eigen::Index b0 = p0; b0 < p1; b0 += block) {
      const Eigen::Index w = std::min(block, p1 - b0);
      if (w == block)
        add_column_block_sums<Eigen::Array<double, block, 1>>(G, b0, w, sum, squares);
      else
        add_column_block_sums<Eigen::Array<double, Eigen::Dynamic, 1, 0, block, 1>>(G, b0, w, sum,
                                                                                    squares);
    }
  });
}

// ---- the routes, on the examples idx (indices already checked) ------------------------------

// Generic route: row k of G is ∇ℓ_{idx[k]}, losses(k) = ℓ_{idx[k]}.
template <class M>
void gradients_generic(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                       ExampleIndices idx, RowMatrixXd& G, const ParallelOptions& options,
                       Eigen::VectorXd* losses) {
  static_assert(require_separable_model<M>());
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::nn::per_example_gradients");
  ad::per_example_gradients(
      [&model, idx](const auto& th, Eigen::Index k) {
        return model.example_loss(th, idx[static_cast<std::size_t>(k)]);
      },
      theta, static_cast<Eigen::Index>(idx.size()), G, options, losses);
}

// The moments of one block of B examples of the batched route, written into s (if given) and q
// (P entries each): for every dense layer Σᵢ δᵢaᵢᵀ = DᵀA and Σᵢ (δᵢaᵢᵀ)² = (D∘D)ᵀ(A∘A) (D: the
// block's δs, A: its inputs; biases Σᵢ δᵢ and Σᵢ δᵢ²), and the likelihood parameters'
// per-example partials summed directly. Cost: O(B·Σ in·out) flops, two small products a layer.
template <BatchedSequentialModel M>
void block_moments(const M& model, const BatchedPass& pass, const std::vector<RowMatrixXd>& deltas,
                   const ad::Recording<double>& rec, Eigen::Index B, Eigen::VectorXd* s,
                   Eigen::VectorXd& q) {
  using Map = Eigen::Map<RowMajorMatrix<double>>;
  for (std::size_t k = 0; k < deltas.size(); ++k) {
    const DenseSlot& d = model.net().dense_layers()[k];
    const RowMatrixXd& D = deltas[k];
    const RowMatrixXd& A = pass.inputs[k];
    if (s) {
      Map(s->data() + d.weight.offset, d.out, d.in).noalias() = D.transpose() * A;
      if (d.has_bias()) s->segment(d.bias.offset, d.out) = D.colwise().sum().transpose();
    }
    Map(q.data() + d.weight.offset, d.out, d.in).noalias() =
        D.cwiseAbs2().transpose() * A.cwiseAbs2();
    if (d.has_bias()) q.segment(d.bias.offset, d.out) = D.cwiseAbs2().colwise().sum().transpose();
  }
  const Eigen::Index out = model.net().output_dim();
  for (int k = 0; k < model.likelihood().num_params(); ++k) {
    double sk = 0.0, qk = 0.0;
    for (Eigen::Index i = 0; i < B; ++i) {
      const double g = rec.adjoint(pass.eta(i, out + k));
      sk += g;
      qk += g * g;
    }
    if (s) (*s)(model.likelihood_offset() + k) = sk;
    q(model.likelihood_offset() + k) = qk;
  }
}

// Batched route: per block of idx one forward pass on the block's rows and one reverse sweep.
// With squares, also Σ_k G(k, p)² for every column p as the blocks' moments (block_moments)
// added in block order: formed while each block's δs are at hand, not by a second pass over G.
template <BatchedSequentialModel M>
void gradients_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta_in,
                       ExampleIndices idx, RowMatrixXd& G, const ParallelOptions& options,
                       Eigen::VectorXd* losses, Eigen::VectorXd* squares = nullptr) {
  nn::check_theta_size(theta_in.size(), model.num_params(), "ngvi::nn::per_example_gradients");
  const Eigen::VectorXd theta = theta_in;
  const auto n = static_cast<Eigen::Index>(idx.size());
  const Eigen::Index P = model.num_params();
  G.resize(n, P);
  if (losses) losses->resize(n);
  const auto& lik = model.likelihood();
  const int np = lik.num_params();
  const Eigen::Index out = model.net().output_dim();
  const Eigen::Index grain = std::max<Eigen::Index>(options.grain, 1);
  std::vector<Eigen::VectorXd> block_squares(
      squares ? static_cast<std::size_t>((n + grain - 1) / grain) : 0);
  ad::parallel_blocks(n, options, [&](Eigen::Index begin, Eigen::Index end) {
    const ExampleIndices block =
        idx.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
    with_block_deltas(model, theta, block,
                      [&](const BatchedPass& pass, const std::vector<RowMatrixXd>& deltas,
                          const ad::Recording<double>& rec, const Eigen::MatrixXd& Yb) {
                        const Eigen::Index B = end - begin;
                        for (Eigen::Index i = 0; i < B; ++i) {
                          double* row = G.row(begin + i).data();
                          write_dense_rows(model.net(), pass, deltas, i, row);
                          for (int k = 0; k < np; ++k)
                            row[model.likelihood_offset() + k] = rec.adjoint(pass.eta(i, out + k));
                        }
                        if (squares) {
                          Eigen::VectorXd& q =
                              block_squares[static_cast<std::size_t>(begin / grain)];
                          q.resize(P);
                          block_moments(model, pass, deltas, rec, B, nullptr, q);
                        }
                        if (losses) {
                          const Eigen::MatrixXd F = pass.eta.value();
                          for (Eigen::Index i = 0; i < B; ++i)
                            (*losses)(begin + i) = lik.nll(Eigen::VectorXd(F.row(i).transpose()),
                                                           Eigen::VectorXd(Yb.row(i).transpose()));
                        }
                      });
  });
  if (squares) {
    squares->setZero(P);
    for (const Eigen::VectorXd& q : block_squares) *squares += q;
  }
}

// Batched route of the gradient moments: per block the moments of block_moments, without the
// rows of G. The block sums are added in block order, so the result does not depend on the
// thread count. sum may be null (the empirical-Fisher diagonal needs only the squares).
template <BatchedSequentialModel M>
void gradient_moments_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta_in,
                              ExampleIndices idx, Eigen::VectorXd* sum, Eigen::VectorXd& squares,
                              const ParallelOptions& options) {
  const Eigen::VectorXd theta = theta_in;
  const auto n = static_cast<Eigen::Index>(idx.size());
  const Eigen::Index P = model.num_params();
  const Eigen::Index grain = std::max<Eigen::Index>(options.grain, 1);
  std::vector<Eigen::VectorXd> block_sum(static_cast<std::size_t>((n + grain - 1) / grain)),
      block_squares(block_sum.size());
  ad::parallel_blocks(n, options, [&](Eigen::Index begin, Eigen::Index end) {
    const ExampleIndices block =
        idx.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
    Eigen::VectorXd& s = block_sum[static_cast<std::size_t>(begin / grain)];
    Eigen::VectorXd& q = block_squares[static_cast<std::size_t>(begin / grain)];
    if (sum) s.resize(P);
    q.resize(P);
    with_block_deltas(model, theta, block,
                      [&](const BatchedPass& pass, const std::vector<RowMatrixXd>& deltas,
                          const ad::Recording<double>& rec, const Eigen::MatrixXd&) {
                        block_moments(model, pass, deltas, rec, end - begin, sum ? &s : nullptr, q);
                      });
  });
  for (std::size_t b = 0; b < block_sum.size(); ++b) {
    if (sum) *sum += block_sum[b];
    squares += block_squares[b];
  }
}

// Generic route: rows k·K … k·K+K−1 of J are J_{idx[k]}; row k of *outputs (if given) is
// f_{idx[k]}ᵀ, the values the Jacobian was taken at.
template <class M>
void jacobians_generic(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                       ExampleIndices idx, RowMatrixXd& J, const ParallelOptions& options,
                       Eigen::MatrixXd* outputs = nullptr) {
  static_assert(require_separable_model<M>());
  static_assert(OutputModel<M>,
                "ngvi::nn::per_example_jacobians: the model needs output_dim() and "
                "example_output(theta, i) generic in the scalar (as Supervised has)");
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::nn::per_example_jacobians");
  const auto n = static_cast<Eigen::Index>(idx.size());
  const Eigen::Index P = model.num_params(), K = model.output_dim();
  J.resize(n * K, P);
  if (outputs) outputs->resize(n, K);
  ad::parallel_blocks(n, options, [&](Eigen::Index begin, Eigen::Index end) {
    ad::Recording<double> rec;
    const ad::VarVector<double> th = rec.inputs(theta);
    const auto after_inputs = rec.mark();
    for (Eigen::Index i = begin; i < end; ++i) {
      const ad::VarVector<double> f = model.example_output(th, idx[static_cast<std::size_t>(i)]);
      if (outputs)
        for (Eigen::Index k = 0; k < K; ++k) (*outputs)(i, k) = f(k).value();
      for (Eigen::Index k = 0; k < K; ++k) {
        if (rec.backward(f(k)))
          J.row(i * K + k) = rec.adjoints(th).transpose();
        else
          J.row(i * K + k).setZero();
      }
      rec.rewind(after_inputs);
    }
  });
}

// Batched route: per block with_block_output_deltas, then outer products as for gradients; the
// likelihood parameters' rows are unit vectors. Outputs as for jacobians_generic.
template <BatchedSequentialModel M>
void jacobians_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta_in,
                       ExampleIndices idx, RowMatrixXd& J, const ParallelOptions& options,
                       Eigen::MatrixXd* outputs = nullptr) {
  nn::check_theta_size(theta_in.size(), model.num_params(), "ngvi::nn::per_example_jacobians");
  const Eigen::VectorXd theta = theta_in;
  const auto n = static_cast<Eigen::Index>(idx.size());
  const Eigen::Index P = model.num_params(), K = model.output_dim();
  const Eigen::Index out = model.net().output_dim();
  J.resize(n * K, P);
  if (outputs) outputs->resize(n, K);
  ad::parallel_blocks(n, options, [&](Eigen::Index begin, Eigen::Index end) {
    const ExampleIndices block =
        idx.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
    with_block_output_deltas(
        model, theta, block,
        [&](const BatchedPass& pass, const std::vector<std::vector<RowMatrixXd>>& deltas) {
          const Eigen::Index B = end - begin;
          if (outputs) outputs->middleRows(begin, B) = pass.eta.value();
          for (Eigen::Index k = 0; k < K; ++k) {
            for (Eigen::Index i = 0; i < B; ++i) {
              auto row = J.row((begin + i) * K + k);
              if (k < out) {
                write_dense_rows(model.net(), pass, deltas[static_cast<std::size_t>(k)], i,
                                 row.data());
                row.tail(P - model.likelihood_offset()).setZero();
              } else {
                row.setZero();
                row(model.likelihood_offset() + (k - out)) = 1.0;
              }
            }
          }
        });
  });
}

// The route for M: batched for a BatchedSequentialModel, generic otherwise (idx checked).
// With squares, also Σ_k G(k, p)² for every column p: the batched route's block moments, or one
// pass over G (add_column_sums) on the generic route.
template <class M>
void gradients(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta, ExampleIndices idx,
               RowMatrixXd& G, const ParallelOptions& options, Eigen::VectorXd* losses,
               Eigen::VectorXd* squares = nullptr) {
  if constexpr (BatchedSequentialModel<M>) {
    gradients_batched(model, theta, idx, G, options, losses, squares);
  } else {
    gradients_generic(model, theta, idx, G, options, losses);
    if (squares) {
      squares->setZero(G.cols());
      add_column_sums(G, nullptr, *squares, options);
    }
  }
}
template <class M>
void jacobians(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta, ExampleIndices idx,
               RowMatrixXd& J, const ParallelOptions& options, Eigen::MatrixXd* outputs = nullptr) {
  if constexpr (BatchedSequentialModel<M>)
    jacobians_batched(model, theta, idx, J, options, outputs);
  else
    jacobians_generic(model, theta, idx, J, options, outputs);
}

}  // namespace detail

// ---- per-example gradients ------------------------------------------------------------------

// ∇ℓᵢ(θ) for every example by the generic route (any SeparableModel), into row i of G (N×P);
// ℓᵢ(θ) into losses(i) if given. Cost: N single-example recordings and reverse sweeps,
// spread over options.threads threads.
template <class M>
void per_example_gradients_generic(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   RowMatrixXd& G, const ParallelOptions& options = {},
                                   Eigen::VectorXd* losses = nullptr) {
  detail::gradients_generic(model, theta, all_examples(model.num_examples()), G, options, losses);
}
// The same for the examples idx: row k of G (|idx|×P) is ∇ℓ_{idx[k]}. Cost: |idx| recordings.
template <class M>
void per_example_gradients_generic(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   ExampleIndices idx, RowMatrixXd& G,
                                   const ParallelOptions& options = {},
                                   Eigen::VectorXd* losses = nullptr) {
  check_example_indices(idx, model.num_examples(), "per_example_gradients");
  detail::gradients_generic(model, theta, idx, G, options, losses);
}

// The same by the batched (BackPACK-style) route for a Sequential network with a likelihood.
// Cost: per block of options.grain examples one batched forward pass and one reverse sweep
// (a few fused nodes per layer, θ constant), then one outer product per example and dense
// layer: O(N·P) writes plus O(N·Σ in·out) flops, spread over options.threads threads.
template <BatchedSequentialModel M>
void per_example_gradients_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   RowMatrixXd& G, const ParallelOptions& options = {},
                                   Eigen::VectorXd* losses = nullptr) {
  detail::gradients_batched(model, theta, all_examples(model.num_examples()), G, options, losses);
}
// The same for the examples idx (row k of G is example idx[k]); a block of consecutive
// indices is read in place, any other block's rows are gathered first. Cost: as above with
// |idx| for N, plus O(|idx|·(D + K)) copies for the gathers.
template <BatchedSequentialModel M>
void per_example_gradients_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   ExampleIndices idx, RowMatrixXd& G,
                                   const ParallelOptions& options = {},
                                   Eigen::VectorXd* losses = nullptr) {
  check_example_indices(idx, model.num_examples(), "per_example_gradients");
  detail::gradients_batched(model, theta, idx, G, options, losses);
}

// ∇ℓᵢ(θ) for every example into row i of G (N×P), ℓᵢ into losses(i) if given: the batched
// route for a BatchedSequentialModel (Supervised<Sequential, L>), the generic one for every
// other SeparableModel. With squares, also Σᵢ G(i, p)² for every column p (the empirical-Fisher
// diagonal; divide by N for squared_column_mean's): on the batched route from each block's δs
// and layer inputs, (D∘D)ᵀ(A∘A) a layer, while the block is at hand — no second pass over G,
// equal to squared_column_mean's sums to rounding — on the generic route by one pass over G.
// The same bits for any thread count either way.
// Cost: see the two routes above; squares add O(N·Σ in·out) flops (batched) or O(N·P) (generic).
template <class M>
void per_example_gradients(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           RowMatrixXd& G, const ParallelOptions& options = {},
                           Eigen::VectorXd* losses = nullptr, Eigen::VectorXd* squares = nullptr) {
  detail::gradients(model, theta, all_examples(model.num_examples()), G, options, losses, squares);
}
// The minibatch form: row k of G (|idx|×P) is ∇ℓ_{idx[k]}(θ), losses(k) = ℓ_{idx[k]}(θ),
// squares Σ_k G(k, p)². Throws for an empty idx or an index outside 0..N−1. Cost: that of the
// route with |idx| for N.
template <class M>
void per_example_gradients(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           ExampleIndices idx, RowMatrixXd& G, const ParallelOptions& options = {},
                           Eigen::VectorXd* losses = nullptr, Eigen::VectorXd* squares = nullptr) {
  check_example_indices(idx, model.num_examples(), "per_example_gradients");
  detail::gradients(model, theta, idx, G, options, losses, squares);
}

// (1/N) Σᵢ G(i, p)² for every column p — the VOGN / empirical-Fisher diagonal from the
// per-example gradients. Each column is summed in row order, so the result does not depend
// on the thread count. Cost: O(N·P), columns split over options.threads threads.
inline Eigen::VectorXd squared_column_mean(const RowMatrixXd& G,
                                           const ParallelOptions& options = {}) {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(G.cols());
  if (G.rows() == 0) return out;
  detail::add_column_sums(G, nullptr, out, options);
  return out / static_cast<double>(G.rows());
}

// Adds Σᵢ G(i, p) to sum(p) and Σᵢ G(i, p)² to squares(p) for every column p: a minibatch's
// gradient and empirical-Fisher diagonal from its per-example gradients in one pass over G (as
// squared_column_mean, each column in row order: the same bits for any thread count). Throws
// std::invalid_argument if sum or squares does not have G.cols() entries. Cost: O(N·P).
inline void add_column_sums_and_squares(const RowMatrixXd& G, Eigen::VectorXd& sum,
                                        Eigen::VectorXd& squares,
                                        const ParallelOptions& options = {}) {
  if (sum.size() != G.cols() || squares.size() != G.cols())
    throw std::invalid_argument("ngvi::nn::add_column_sums_and_squares: G has " +
                                std::to_string(G.cols()) + " columns, sum has " +
                                std::to_string(sum.size()) + " entries and squares " +
                                std::to_string(squares.size()));
  detail::add_column_sums(G, &sum, squares, options);
}

// Adds Σ_k ∇ℓ_{idx[k]}(θ) to sum and Σ_k ∇ℓ_{idx[k]}(θ)² (elementwise) to squares: a minibatch's
// gradient and its empirical-Fisher diagonal (VOGN's ĝ and ĉ) without the |idx|×P matrix of
// per-example gradients. For a BatchedSequentialModel by the batched route's moments (the
// sums of outer products δᵢaᵢᵀ and of their squares as two small products per dense layer and
// block, as BackPACK's SumGradSquared); for any other SeparableModel from per_example_gradients
// and add_column_sums_and_squares. The same bits for any thread count. Throws
// std::invalid_argument for a θ, sum or squares of the wrong size and as check_example_indices.
// Cost: batched, per block of options.grain examples one forward pass and one reverse sweep plus
// O(B·Σ in·out) flops — no O(|idx|·P) writes; generic, that of per_example_gradients.
template <class M>
void add_gradient_sums_and_squares(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   ExampleIndices idx, Eigen::VectorXd& sum,
                                   Eigen::VectorXd& squares, const ParallelOptions& options = {}) {
  check_example_indices(idx, model.num_examples(), "add_gradient_sums_and_squares");
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::nn::add_gradient_sums_and_squares");
  const Eigen::Index P = model.num_params();
  if (sum.size() != P || squares.size() != P)
    throw std::invalid_argument("ngvi::nn::add_gradient_sums_and_squares: the model has " +
                                std::to_string(P) + " parameters, sum has " +
                                std::to_string(sum.size()) + " entries and squares " +
                                std::to_string(squares.size()));
  if constexpr (BatchedSequentialModel<M>) {
    detail::gradient_moments_batched(model, theta, idx, &sum, squares, options);
  } else {
    RowMatrixXd G;
    detail::gradients(model, theta, idx, G, options, nullptr);
    add_column_sums_and_squares(G, sum, squares, options);
  }
}

// Adds Σ_k ∇ℓ_{idx[k]}(θ)² (elementwise) to squares: add_gradient_sums_and_squares without the
// sums, for the empirical-Fisher diagonal (on the batched route the sums' products are skipped).
// The same bits for any thread count. Throws as add_gradient_sums_and_squares. Cost: that of
// add_gradient_sums_and_squares, less one small product per dense layer and block.
template <class M>
void add_gradient_squares(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                          ExampleIndices idx, Eigen::VectorXd& squares,
                          const ParallelOptions& options = {}) {
  check_example_indices(idx, model.num_examples(), "add_gradient_squares");
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::nn::add_gradient_squares");
  if (squares.size() != model.num_params())
    throw std::invalid_argument("ngvi::nn::add_gradient_squares: the model has " +
                                std::to_string(model.num_params()) + " parameters, squares has " +
                                std::to_string(squares.size()) + " entries");
  if constexpr (BatchedSequentialModel<M>) {
    detail::gradient_moments_batched(model, theta, idx, nullptr, squares, options);
  } else {
    RowMatrixXd G;
    detail::gradients(model, theta, idx, G, options, nullptr);
    detail::add_column_sums(G, nullptr, squares, options);
  }
}

// ---- output Jacobians -----------------------------------------------------------------------

// Row (i·K + k) of J (N·K × P, K = model.output_dim()) is ∂fᵢₖ/∂θ: J's rows for example i
// form the K×P Jacobian Jᵢ (see jacobian_block). Generic route for any OutputModel.
// Cost: N single-example recordings, each with K reverse sweeps.
template <class M>
void per_example_jacobians_generic(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   RowMatrixXd& J, const ParallelOptions& options = {}) {
  detail::jacobians_generic(model, theta, all_examples(model.num_examples()), J, options);
}
// The same for the examples idx: J is |idx|·K × P, block k is J_{idx[k]}. Cost: |idx| recordings.
template <class M>
void per_example_jacobians_generic(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   ExampleIndices idx, RowMatrixXd& J,
                                   const ParallelOptions& options = {}) {
  check_example_indices(idx, model.num_examples(), "per_example_jacobians");
  detail::jacobians_generic(model, theta, idx, J, options);
}

// The batched route for a BatchedSequentialModel: per block one forward pass and K reverse
// sweeps (output k of every example seeded at once), then outer products as for gradients.
// Cost: O(N·K·P) writes plus K times the batched-gradient sweeps.
template <BatchedSequentialModel M>
void per_example_jacobians_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   RowMatrixXd& J, const ParallelOptions& options = {}) {
  detail::jacobians_batched(model, theta, all_examples(model.num_examples()), J, options);
}
// The same for the examples idx (block k of J is J_{idx[k]}). Cost: as above with |idx| for N.
template <BatchedSequentialModel M>
void per_example_jacobians_batched(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                   ExampleIndices idx, RowMatrixXd& J,
                                   const ParallelOptions& options = {}) {
  check_example_indices(idx, model.num_examples(), "per_example_jacobians");
  detail::jacobians_batched(model, theta, idx, J, options);
}

// Per-example output Jacobians, batched route when available. See the two routes above.
template <class M>
void per_example_jacobians(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           RowMatrixXd& J, const ParallelOptions& options = {}) {
  detail::jacobians(model, theta, all_examples(model.num_examples()), J, options);
}
// The minibatch form: J is |idx|·K × P, block k is J_{idx[k]}. Throws for an empty idx or an
// index outside 0..N−1. Cost: that of the route with |idx| for N.
// With outputs, row k of *outputs is f_{idx[k]}(θ)ᵀ, the values the Jacobian was taken at.
template <class M>
void per_example_jacobians(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           ExampleIndices idx, RowMatrixXd& J, const ParallelOptions& options = {},
                           Eigen::MatrixXd* outputs = nullptr) {
  check_example_indices(idx, model.num_examples(), "per_example_jacobians");
  detail::jacobians(model, theta, idx, J, options, outputs);
}

// Jᵢ (K×P) inside the packed matrix of per_example_jacobians. Cost: O(1), a view.
inline auto jacobian_block(const RowMatrixXd& J, Eigen::Index i, Eigen::Index K) {
  return J.middleRows(i * K, K);
}

// ---- per-example Hessians -------------------------------------------------------------------

// ∇²ℓ_{idx[k]}(θ) (P×P) into hessians[k] for every k, by forward-over-reverse on
// model.example_loss. For small P only. Throws for an empty idx or an index outside 0..N−1.
// Cost: |idx|·⌈P/K⌉ dual recordings and sweeps, spread over options.threads threads; memory
// |idx|·P² doubles.
template <int K = 8, class M>
void per_example_hessians(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                          ExampleIndices idx, std::vector<Eigen::MatrixXd>& hessians,
                          const ParallelOptions& options = {}) {
  static_assert(require_separable_model<M>());
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::nn::per_example_hessians");
  check_example_indices(idx, model.num_examples(), "per_example_hessians");
  ad::per_example_hessians<K>(
      [&model, idx](const auto& th, Eigen::Index k) {
        return model.example_loss(th, idx[static_cast<std::size_t>(k)]);
      },
      theta, static_cast<Eigen::Index>(idx.size()), hessians, options);
}

// ∇²ℓᵢ(θ) (P×P) for every example into hessians[i]. Cost: as above with N for |idx|; memory
// N·P² doubles.
template <int K = 8, class M>
void per_example_hessians(const M& model, const Eigen::Ref<const Eigen::VectorXd>& theta,
                          std::vector<Eigen::MatrixXd>& hessians,
                          const ParallelOptions& options = {}) {
  static_assert(require_separable_model<M>());
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::nn::per_example_hessians");
  ad::per_example_hessians<K>(
      [&model](const auto& th, Eigen::Index i) { return model.example_loss(th, i); }, theta,
      model.num_examples(), hessians, options);
}

}  // namespace ngvi::nn
