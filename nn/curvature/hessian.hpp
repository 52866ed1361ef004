// The exact Hessian of the total loss L(θ) = Σᵢ ℓᵢ(θ), the reference the approximations in
// this folder are measured against.
//
// Two routes: exact_hessian records the whole sum once per block of 8 directions and runs
// forward-over-reverse (ad::hessian), through the model's batched total_loss if it has one;
// exact_hessian_by_examples sums the per-example Hessians ∇²ℓᵢ (forward-over-reverse on each
// example, TBB-parallel) in a fixed order, never holding more than reduction_blocks P×P matrices
// (nn::per_example_hessians returns all N of them, for callers that need them individually). They
// agree to rounding. Both are exact (no finite differences) and may be indefinite for a non-convex
// loss. Dense P×P: for the small P this library is meant for.
#pragma once

#include <concepts>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/functional/hessian.hpp>
#include <nn/curvature/concepts.hpp>
#include <nn/curvature/detail/blocked_sum.hpp>
#include <nn/curvature/options.hpp>

namespace ngvi::nn {

namespace detail {
// L(θ) = Σᵢ ℓᵢ(θ) for any scalar: the model's own batched total_loss(θ) when it has one
// (nn::Supervised runs the whole batch through each layer as one fused node), else the
// per-example terms summed in example order.
template <class Model>
auto total_loss(const Model& model) {
  return [&model](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    if constexpr (requires {
                    { model.total_loss(th) } -> std::convertible_to<T>;
                  }) {
      return T(model.total_loss(th));
    } else {
      T sum(0.0);
      for (Eigen::Index i = 0; i < model.num_examples(); ++i) sum = sum + model.example_loss(th, i);
      return sum;
    }
  };
}
}  // namespace detail

// ∇²L(θ), P×P, symmetric. Writes L(θ) and ∇L(θ) when the pointers are given.
// Cost: ⌈P/8⌉ recordings of the whole loss + reverse sweeps in Dual<double, 8> arithmetic,
// on the calling thread (about 10-20 gradient evaluations per 8 parameters).
template <class Model>
Eigen::MatrixXd exact_hessian(const Model& model, const Eigen::VectorXd& theta,
                              double* value = nullptr, Eigen::VectorXd* gradient = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "exact_hessian");
  return ad::hessian(detail::total_loss(model), theta, value, gradient);
}

// The diagonal of ∇²L(θ). Cost: that of exact_hessian (the diagonal of a Hessian costs as much
// as the Hessian in forward-over-reverse mode).
template <class Model>
Eigen::VectorXd exact_hessian_diagonal(const Model& model, const Eigen::VectorXd& theta) {
  return exact_hessian(model, theta).diagonal();
}

// Σᵢ ∇²ℓᵢ(θ), summed in the fixed block order of CurvatureOptions (bitwise identical for any
// thread count). Memory: reduction_blocks·P² doubles of scratch, never N·P².
// Cost: N·⌈P/8⌉ single-example dual recordings + sweeps, spread over the threads.
template <class Model>
Eigen::MatrixXd exact_hessian_by_examples(const Model& model, const Eigen::VectorXd& theta,
                                          const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "exact_hessian_by_examples");
  const Eigen::Index P = theta.size();
  return detail::symmetrised(detail::blocked_sum(
      model.num_examples(), P, P, options, [&](Eigen::Index i, Eigen::MatrixXd& acc) {
        acc += ad::hessian([&](const auto& th) { return model.example_loss(th, i); }, theta);
      }));
}

}  // namespace ngvi::nn
