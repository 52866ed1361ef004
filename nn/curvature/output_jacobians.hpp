// Output Jacobians Jᵢ = ∂fᵢ/∂θ and outputs fᵢ of single examples or lists of examples.
//
// The curvature sums (Gauss-Newton, Monte-Carlo Fisher, K-FAC) take their Jacobians block by
// block from nn's per-example route (nn/curvature/detail/jacobian_sandwich.hpp);
// example_output_jacobian is the single-example form, for callers that want one Jᵢ, and
// outputs_at the outputs of a list of examples (all N, or a minibatch; see
// nn/example_indices.hpp), from the model's batched batch_output(θ, idx) when it has one.
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

}  // namespace detail
}  // namespace ngvi::nn
