// The batched pass of a Sequential network with a likelihood (BackPACK-style): a block of
// examples goes through each dense layer as one matrix, with θ entering the recording as
// constants, and one reverse sweep of the block's summed loss (or of one network output, seeded
// for every example at once) leaves in the adjoint of row i of each layer's pre-activation Z
// exactly example i's δᵢ = ∂ℓᵢ/∂zᵢ (or ∂fᵢₖ/∂zᵢ): example i touches only row i of Z. From the
// δs and each layer's inputs aᵢ every per-example quantity follows by outer products — a weight
// gradient δᵢaᵢᵀ, a bias gradient δᵢ. The per-example gradients and Jacobians (per_example.hpp)
// and the curvature sums (nn/curvature/) are built on this one interface: BatchedPass holds a
// block's pass, with_block_deltas and with_block_output_deltas run it and hand the δs to the
// caller while the block's recording is still open, write_dense_rows turns one example's δs
// into its row of the gradient or Jacobian. Each call records on the calling thread's tape and
// touches nothing shared, so callers can run blocks as parallel tasks.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/per_example.hpp>
#include <autodiff/functional/recording.hpp>
#include <nn/example_indices.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::nn {

using ad::RowMatrixXd;

// One block's batched forward pass with θ as constants (see the top of this file). Cost of
// holding one: the block's layer inputs and the pre-activation handles (B·Σ in doubles).
struct BatchedPass {
  std::vector<RowMatrixXd> inputs;         // per dense layer: input activations aᵢ (B×in)
  std::vector<ad::MatrixVar<double>> pre;  // per dense layer: pre-activations Z (B×out)
  ad::MatrixVar<double> eta;               // B×output_dim: network outputs | likelihood parameters

  // δ = ∂(seeded output)/∂Z of dense layer k, row-major B×out. Cost: one copy of Z's adjoints.
  RowMatrixXd delta(std::size_t k, const ad::Recording<double>& rec) const {
    return rec.adjoints_of<RowMatrixXd>(pre[k]);
  }
};

// The network's trace on the block's inputs Xb (one example per row) with θ constant: the
// first dense layer's pre-activation is lifted onto the tape as the first variables, and from
// there on the activations are one MatrixVar. The likelihood's parameters join the output as
// one tape variable per example (a gather node makes [output | parameters] one handle).
// Cost: one batched forward pass of the network on B rows (O(B·Σ in·out) flops, a few fused
// nodes per layer on the tape of rec).
template <BatchedSequentialModel M>
void batched_forward(const M& model, const Eigen::VectorXd& theta,
                     const Eigen::Ref<const Eigen::MatrixXd>& Xb, ad::Recording<double>& rec,
                     BatchedPass& pass) {
  pass.inputs.clear();
  pass.pre.clear();
  const ad::MatrixVar<double> F = model.net().trace(
      theta, Xb,
      [&pass](std::size_t, const auto& in, const ad::MatrixVar<double>& Z) {
        if constexpr (ad::is_matrix_var_v<decltype(in)>)
          pass.inputs.emplace_back(in.value());
        else
          pass.inputs.emplace_back(in);
        pass.pre.push_back(Z);
      },
      [&rec](const Eigen::MatrixXd& Z) { return rec.lift_matrix(Z); });
  const int np = model.likelihood().num_params();
  if (np == 0) {
    pass.eta = F;
    return;
  }
  ad::VarMatrix<double> eta(Xb.rows(), F.cols() + np);
  eta.leftCols(F.cols()) = F.to_eigen();
  for (int k = 0; k < np; ++k)
    eta.col(F.cols() + k) =
        rec.lift(Eigen::VectorXd::Constant(Xb.rows(), theta(model.likelihood_offset() + k)));
  pass.eta = ad::as_matrix(eta);
}

// Writes into `row` (P entries) the θ-gradient implied by the δs of example i of the block:
// dense weights δᵢaᵢᵀ, biases δᵢ (layers that have one); the caller fills the likelihood
// parameters. Cost: O(Σ in·out).
inline void write_dense_rows(const Sequential& net, const BatchedPass& pass,
                             const std::vector<RowMatrixXd>& deltas, Eigen::Index i, double* row) {
  for (std::size_t k = 0; k < deltas.size(); ++k) {
    const DenseSlot& d = net.dense_layers()[k];
    Eigen::Map<RowMajorMatrix<double>>(row + d.weight.offset, d.out, d.in).noalias() =
        deltas[k].row(i).transpose() * pass.inputs[k].row(i);
    if (d.has_bias()) Eigen::Map<Eigen::RowVectorXd>(row + d.bias.offset, d.out) = deltas[k].row(i);
  }
}

// One block of the batched route: the forward pass on the block's rows, one reverse sweep of
// Σᵢ ℓᵢ, and the δs of every dense layer; then use(pass, deltas, rec, Yb) with the block's
// targets Yb, while the block's recording rec (whose adjoints are those of Σᵢ ℓᵢ) is still open.
// Cost: one batched forward pass and one reverse sweep on the block's B rows.
template <BatchedSequentialModel M, class Use>
void with_block_deltas(const M& model, const Eigen::VectorXd& theta, ExampleIndices block,
                       Use&& use) {
  ad::Recording<double> rec;
  BatchedPass pass;
  Eigen::MatrixXd xbuf, ybuf;
  batched_forward(model, theta, input_rows_of(model, block, xbuf), rec, pass);
  const Eigen::MatrixXd Yb = target_rows_of(model, block, ybuf);
  rec.backward(model.likelihood().batch_nll(pass.eta, Yb));
  std::vector<RowMatrixXd> deltas;
  for (std::size_t k = 0; k < pass.pre.size(); ++k) deltas.push_back(pass.delta(k, rec));
  use(static_cast<const BatchedPass&>(pass), static_cast<const std::vector<RowMatrixXd>&>(deltas),
      static_cast<const ad::Recording<double>&>(rec), Yb);
}

// One block of the batched Jacobian route: the forward pass on the block's rows and one reverse
// sweep per network output k with output k of every example seeded at once, which leaves in
// deltas[k][l] = ∂f·ₖ/∂Z of dense layer l (B×out, row i for example i: the examples do not
// mix). Then use(pass, deltas) while the recording is still on the tape; the outputs are
// pass.eta.value(). Cost: one batched forward pass + net.output_dim() reverse sweeps.
template <BatchedSequentialModel M, class Use>
void with_block_output_deltas(const M& model, const Eigen::VectorXd& theta, ExampleIndices block,
                              Use&& use) {
  ad::Recording<double> rec;
  BatchedPass pass;
  Eigen::MatrixXd xbuf;
  batched_forward(model, theta, input_rows_of(model, block, xbuf), rec, pass);
  const Eigen::Index out = model.net().output_dim();
  std::vector<std::vector<RowMatrixXd>> deltas(static_cast<std::size_t>(out));
  for (Eigen::Index k = 0; k < out; ++k) {
    rec.backward(pass.eta.col(k));
    for (std::size_t l = 0; l < pass.pre.size(); ++l)
      deltas[static_cast<std::size_t>(k)].push_back(pass.delta(l, rec));
  }
  use(static_cast<const BatchedPass&>(pass),
      static_cast<const std::vector<std::vector<RowMatrixXd>>&>(deltas));
}

}  // namespace ngvi::nn
