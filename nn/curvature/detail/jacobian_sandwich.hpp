// jacobian_sandwich_sum: Σᵢ Jᵢᵀ Mᵢ Jᵢ over a list of examples, the one sum behind the
// generalized Gauss-Newton (Mᵢ = H_L,i), the Monte-Carlo Fisher (Mᵢ = (1/S) Σₛ rᵢₛrᵢₛᵀ) and
// K-FAC's S factor (Jᵢ restricted to the bias columns), full or diagonal.
//
// Jᵢ = ∂fᵢ/∂θ is example i's m×P output Jacobian and Mᵢ = output_matrix(fᵢ, i) an m×m matrix in
// output space (i the example's global index), which may be indefinite. The examples are cut into
// the fixed blocks of blocked_range_sum (their boundaries depend on |idx| and CurvatureOptions,
// never on the thread count; block sums are added in block order), and each block is one task:
//  * its Jacobians come from nn's per-example route on the block, run as one task
//    (nn/per_example.hpp, nn/batched_pass.hpp: for a BatchedSequentialModel such as
//    Supervised<Sequential, L> one batched forward pass and one reverse sweep per network output,
//    BackPACK-style; for any other OutputModel one recording per example), stacked as Jb (B·m × P),
//    with the outputs fᵢ the Jacobians were taken at; when only some columns are wanted (K-FAC's S
//    factor wants the biases'), the batched route builds just those columns from the δs (a bias
//    column of Jᵢ's row k is δᵢₖ, a weight column δᵢₖ·aᵢ, a likelihood parameter's a unit entry) —
//    the same numbers as the columns of the full Jb, without its B·m·P entries;
//  * full: Jbᵀ (M Jb) with M block-diagonal, one matrix product per block;
//  * diagonal: the column sums of Jb ∘ (M Jb) — except on the batched route, which never forms
//    Jb: dense layer l's weight columns of Jᵢ's row k are δᵢₖaᵢᵀ (δᵢₖ = ∂fᵢₖ/∂zᵢ, aᵢ the layer's
//    input), so Σᵢ Σₖq Mᵢ(k,q) (δᵢₖaᵢᵀ)∘(δᵢqaᵢᵀ) = Eᵀ(A∘A) with row i of E the vector
//    Σₖq Mᵢ(k,q) δᵢₖ∘δᵢq; the bias entries are E's column sums and a likelihood parameter's
//    entry, whose Jacobian row is a unit vector, is Σᵢ Mᵢ(k,k) (BackPACK's diagonal GGN, with M
//    used as it is rather than factored, so an indefinite H_L needs no special case).
#pragma once

#include <span>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>
#include <nn/batched_pass.hpp>
#include <nn/curvature/detail/blocked_sum.hpp>
#include <nn/curvature/options.hpp>
#include <nn/example_indices.hpp>
#include <nn/per_example.hpp>
#include <nn/supervised.hpp>

namespace ngvi::nn::detail {

enum class SandwichShape {
  full,      // Σᵢ Jᵢᵀ Mᵢ Jᵢ, symmetrised
  diagonal,  // its diagonal, as a column
};

// The columns `columns` of the block's stacked Jacobians Jb (B·m × C, row i·m + k = ∂fᵢₖ/∂θ)
// from the batched route's δs, and the outputs F (B×m) they were taken at. Entry by entry the
// same numbers as those columns of jacobians_batched's Jb (one product δ·a per weight entry).
// Cost: one batched forward pass + net.output_dim() reverse sweeps + O(B·m·C).
template <BatchedSequentialModel Model>
void batched_jacobian_columns(const Model& model, const Eigen::VectorXd& theta,
                              ExampleIndices block, std::span<const Eigen::Index> columns,
                              RowMatrixXd& J, Eigen::MatrixXd& F) {
  const auto B = static_cast<Eigen::Index>(block.size());
  const auto C = static_cast<Eigen::Index>(columns.size());
  const Eigen::Index out = model.net().output_dim(), m = model.output_dim();
  const Eigen::Index lik = model.likelihood_offset();
  const std::vector<DenseSlot>& slots = model.net().dense_layers();
  // Where column c comes from: dense layer `layer` (or −1 for a likelihood parameter), the
  // unit r of its output and, for a weight, the input unit `input` (−1 for the bias).
  struct Source {
    int layer = -1;
    Eigen::Index r = 0, input = -1;
  };
  std::vector<Source> source(static_cast<std::size_t>(C));
  for (Eigen::Index c = 0; c < C; ++c) {
    const Eigen::Index p = columns[static_cast<std::size_t>(c)];
    Source& s = source[static_cast<std::size_t>(c)];
    s.r = p - lik;
    for (std::size_t l = 0; l < slots.size(); ++l) {
      const DenseSlot& d = slots[l];
      if (p >= d.weight.offset && p < d.weight.offset + d.out * d.in)
        s = Source{static_cast<int>(l), (p - d.weight.offset) / d.in, (p - d.weight.offset) % d.in};
      else if (d.has_bias() && p >= d.bias.offset && p < d.bias.offset + d.out)
        s = Source{static_cast<int>(l), p - d.bias.offset, -1};
    }
  }
  J.setZero(B * m, C);
  nn::with_block_output_deltas(
      model, theta, block,
      [&](const BatchedPass& pass, const std::vector<std::vector<RowMatrixXd>>& deltas) {
        F = pass.eta.value();
        for (Eigen::Index c = 0; c < C; ++c) {
          const Source& s = source[static_cast<std::size_t>(c)];
          for (Eigen::Index i = 0; i < B; ++i) {
            if (s.layer < 0) {
              if (s.r >= 0 && out + s.r < m) J(i * m + out + s.r, c) = 1.0;
              continue;
            }
            const auto l = static_cast<std::size_t>(s.layer);
            for (Eigen::Index k = 0; k < out; ++k) {
              const double delta = deltas[static_cast<std::size_t>(k)][l](i, s.r);
              J(i * m + k, c) = s.input < 0 ? delta : delta * pass.inputs[l](i, s.input);
            }
          }
        }
      });
}

// The batched diagonal of one block (see the file comment) added to acc (P×1).
template <BatchedSequentialModel Model, class OutputMatrix>
void add_batched_sandwich_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                   ExampleIndices block, OutputMatrix& output_matrix,
                                   Eigen::MatrixXd& acc) {
  nn::with_block_output_deltas(
      model, theta, block,
      [&](const BatchedPass& pass, const std::vector<std::vector<RowMatrixXd>>& deltas) {
        const Eigen::MatrixXd F = pass.eta.value();
        const auto B = static_cast<Eigen::Index>(block.size());
        const Eigen::Index out = model.net().output_dim(), K = F.cols();
        const std::vector<DenseSlot>& slots = model.net().dense_layers();
        // Row i of E[l] is Σ_kq M_i(k, q) δ_ik ∘ δ_iq on dense layer l; one M_i alive at a time.
        std::vector<RowMatrixXd> E;
        for (const DenseSlot& d : slots) E.push_back(RowMatrixXd::Zero(B, d.out));
        Eigen::VectorXd f(K), parameter_terms = Eigen::VectorXd::Zero(K - out);
        for (Eigen::Index i = 0; i < B; ++i) {
          f = F.row(i).transpose();
          const Eigen::MatrixXd Mi = output_matrix(f, block[static_cast<std::size_t>(i)]);
          for (std::size_t l = 0; l < slots.size(); ++l)
            for (Eigen::Index k = 0; k < out; ++k)
              for (Eigen::Index q = 0; q < out; ++q)
                E[l].row(i) +=
                    Mi(k, q) * deltas[static_cast<std::size_t>(k)][l].row(i).cwiseProduct(
                                   deltas[static_cast<std::size_t>(q)][l].row(i));
          for (Eigen::Index k = out; k < K; ++k) parameter_terms(k - out) += Mi(k, k);
        }
        for (std::size_t l = 0; l < slots.size(); ++l) {
          const DenseSlot& d = slots[l];
          Eigen::Map<RowMajorMatrix<double>>(acc.data() + d.weight.offset, d.out, d.in).noalias() +=
              E[l].transpose() * pass.inputs[l].cwiseAbs2();
          if (d.has_bias())
            acc.col(0).segment(d.bias.offset, d.out) += E[l].colwise().sum().transpose();
        }
        for (Eigen::Index k = out; k < K; ++k)
          acc(model.likelihood_offset() + (k - out), 0) += parameter_terms(k - out);
      });
}

// Σ_k J_{idx[k]}ᵀ M_{idx[k]} J_{idx[k]} over the examples idx (already checked), restricted to
// the θ columns `columns` (all P when empty): full (C×C, exactly symmetric) or its diagonal
// (C×1), C the number of columns. output_matrix(f, i) is called once per example, from the
// worker threads. Memory: per task B·m·P doubles (B the block size), none on the batched
// diagonal route; reduction_blocks·C² for a full sum.
// Cost: the per-example Jacobian route + per block B·m²·C flops for M Jb and B·m·C² for the
// product (full) or B·m·C (diagonal); the batched diagonal B·(m²·Σout + Σ in·out) per block.
template <class Model, class OutputMatrix>
Eigen::MatrixXd jacobian_sandwich_sum(const Model& model, const Eigen::VectorXd& theta,
                                      ExampleIndices idx, const CurvatureOptions& options,
                                      SandwichShape shape, OutputMatrix&& output_matrix,
                                      std::span<const Eigen::Index> columns = {}) {
  const Eigen::Index m = model.output_dim();
  const Eigen::Index C = columns.empty() ? theta.size() : static_cast<Eigen::Index>(columns.size());
  const bool full = shape == SandwichShape::full;
  Eigen::MatrixXd sum = blocked_range_sum(
      static_cast<Eigen::Index>(idx.size()), C, full ? C : 1, options,
      [&](Eigen::Index begin, Eigen::Index end, Eigen::MatrixXd& acc) {
        const Eigen::Index B = end - begin;
        const ExampleIndices block =
            idx.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(B));
        RowMatrixXd J;
        Eigen::MatrixXd F;
        bool restricted = false;
        if constexpr (BatchedSequentialModel<Model>) {
          if (!full && columns.empty()) {
            add_batched_sandwich_diagonal(model, theta, block, output_matrix, acc);
            return;
          }
          if (!columns.empty()) {
            batched_jacobian_columns(model, theta, block, columns, J, F);
            restricted = true;
          }
        }
        if (!restricted)
          nn::per_example_jacobians(model, theta, block, J,
                                    ad::ParallelOptions{.threads = 1, .grain = B}, &F);
        if (!restricted && !columns.empty()) {
          RowMatrixXd Jc(J.rows(), C);
          for (Eigen::Index c = 0; c < C; ++c)
            Jc.col(c) = J.col(columns[static_cast<std::size_t>(c)]);
          J.swap(Jc);
        }
        RowMatrixXd MJ(J.rows(), C);
        Eigen::VectorXd f(F.cols());
        for (Eigen::Index k = 0; k < B; ++k) {
          f = F.row(k).transpose();
          MJ.middleRows(k * m, m).noalias() =
              output_matrix(f, block[static_cast<std::size_t>(k)]) * J.middleRows(k * m, m);
        }
        if (full)
          acc.noalias() += J.transpose() * MJ;
        else
          acc.col(0) += J.cwiseProduct(MJ).colwise().sum().transpose();
      });
  return full ? symmetrised(sum) : sum;
}

}  // namespace ngvi::nn::detail
