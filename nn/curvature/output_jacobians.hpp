// Output Jacobians Jᵢ = ∂fᵢ/∂θ (m×P) and outputs fᵢ, as the Gauss-Newton, the Monte-Carlo
// Fisher and K-FAC consume them.
//
// The per-example Jacobians come from nn::per_example_jacobians (nn/per_example.hpp): the
// batched BackPACK-style route for Supervised<Sequential, L> (one forward pass and m reverse
// sweeps per block of examples), the generic one (one recording and m reverse sweeps per
// example) for any other OutputModel; either way bitwise identical for any thread count. The
// outputs come from the model's batched outputs(θ) when it has one. example_output_jacobian is
// the single-example form, for callers that want one Jᵢ.
#pragma once

#include <concepts>

#include <Eigen/Core>

#include <autodiff/functional/jacobian.hpp>
#include <nn/curvature/concepts.hpp>
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

// All N Jacobians packed as in nn::per_example_jacobians, and all N outputs.
struct OutputsAndJacobians {
  ad::RowMatrixXd J;  // N·m × P; rows i·m .. i·m+m−1 are Jᵢ
  Eigen::MatrixXd F;  // N×m; row i is fᵢᵀ
  Eigen::Index m = 0;

  auto jacobian(Eigen::Index i) const { return J.middleRows(i * m, m); }
  Eigen::VectorXd output(Eigen::Index i) const { return F.row(i).transpose(); }
};

// All N outputs fᵢ as rows (N×m), in double: the model's batched outputs(θ) if it has one.
// Cost: one batched forward pass, or N single-example ones.
template <class Model>
Eigen::MatrixXd all_outputs(const Model& model, const Eigen::VectorXd& theta) {
  if constexpr (requires {
                  { model.outputs(theta) } -> std::convertible_to<Eigen::MatrixXd>;
                }) {
    return model.outputs(theta);
  } else {
    Eigen::MatrixXd F(model.num_examples(), model.output_dim());
    for (Eigen::Index i = 0; i < model.num_examples(); ++i)
      F.row(i) = Eigen::VectorXd(model.example_output(theta, i)).transpose();
    return F;
  }
}

// Cost: nn::per_example_jacobians + all_outputs. Memory N·m·P doubles.
template <class Model>
OutputsAndJacobians outputs_and_jacobians(const Model& model, const Eigen::VectorXd& theta,
                                          const ad::ParallelOptions& parallel) {
  OutputsAndJacobians r;
  r.m = model.output_dim();
  per_example_jacobians(model, theta, r.J, parallel);
  r.F = all_outputs(model, theta);
  return r;
}

}  // namespace detail
}  // namespace ngvi::nn
