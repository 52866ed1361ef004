// Output Jacobians Jᵢ = ∂fᵢ/∂θ (m×P) and outputs fᵢ, as the Gauss-Newton, the Monte-Carlo
// Fisher and K-FAC consume them.
//
// The per-example Jacobians come from nn::per_example_jacobians (nn/per_example.hpp): the
// batched BackPACK-style route for Supervised<Sequential, L> (one forward pass and m reverse
// sweeps per block of examples), the generic one (one recording and m reverse sweeps per
// example) for any other OutputModel; either way bitwise identical for any thread count. The
// outputs come from the model's batched batch_output(θ, idx) when it has one. Both are taken
// for a list of examples idx (all N, or a minibatch; see nn/example_indices.hpp).
// example_output_jacobian is the single-example form, for callers that want one Jᵢ.
#pragma once

#include <concepts>

#include <Eigen/Core>

#include <autodiff/functional/jacobian.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/example_indices.hpp>
#include <nn/per_example.hpp>

namespace ngvi::nn {

// Jᵢ = ∂fᵢ/∂θ at theta (m×P); writes fᵢ into output if given.
// Cost: one recording of fᵢ + m reverse sweeps.
template <class Model>
Eigen::MatrixXd example_output_jacobian(const Model& model, const Eigen::VectorXd& theta,
                                        Eigen::Index i, Eigen::VectorXd* output = nullptr) {
  detail::require_output_likelihood_model<Model>();
  detail::check_theta(model, theta, "example_output_jacobian");
  return ad::jacobian([&](const auto& th) { return model.example_output(th, i); }, theta, output);
}

namespace detail {

// Output Jacobians packed as in nn::per_example_jacobians, and the outputs, of a list of examples.
struct OutputsAndJacobians {
  ad::RowMatrixXd J;  // n·m × P; rows k·m .. k·m+m−1 are the k-th example's J
  Eigen::MatrixXd F;  // n×m; row k is its fᵀ
  Eigen::Index m = 0;

  // Jᵢ and fᵢ of the k-th example of the list they were computed for.
  auto jacobian(Eigen::Index k) const { return J.middleRows(k * m, m); }
  Eigen::VectorXd output(Eigen::Index k) const { return F.row(k).transpose(); }
};

// The outputs f_{idx[k]} as rows (|idx|×m), in double: the model's batched
// batch_output(θ, idx) if it has one, else one example_output per index.
// Cost: one batched forward pass over |idx| rows, or |idx| single-example ones.
template <class Model>
Eigen::MatrixXd outputs_at(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx) {
  if (idx.empty()) return Eigen::MatrixXd(0, model.output_dim());
  if constexpr (requires {
                  { model.batch_output(theta, idx) } -> std::convertible_to<Eigen::MatrixXd>;
                }) {
    return model.batch_output(theta, idx);
  } else {
    Eigen::MatrixXd F(static_cast<Eigen::Index>(idx.size()), model.output_dim());
    for (std::size_t k = 0; k < idx.size(); ++k)
      F.row(static_cast<Eigen::Index>(k)) =
          Eigen::VectorXd(model.example_output(theta, idx[k])).transpose();
    return F;
  }
}

// The Jacobians and outputs of the examples idx (already checked): block k of J and row k of F
// are example idx[k]. Cost: nn::per_example_jacobians on idx + outputs_at.
// Memory |idx|·m·P doubles.
template <class Model>
OutputsAndJacobians outputs_and_jacobians(const Model& model, const Eigen::VectorXd& theta,
                                          ExampleIndices idx, const ad::ParallelOptions& parallel) {
  OutputsAndJacobians r;
  r.m = model.output_dim();
  jacobians(model, theta, idx, r.J, parallel);
  r.F = outputs_at(model, theta, idx);
  return r;
}

}  // namespace detail
}  // namespace ngvi::nn
