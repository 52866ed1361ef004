// The exact Hessian of the total loss L(θ) = Σᵢ ℓᵢ(θ), the reference the approximations in
// this folder are measured against.
//
// Two routes: exact_hessian records the whole sum once per block of 8 directions and runs
// forward-over-reverse (ad::hessian, the blocks over the threads), through the model's batched
// total_loss if it has one;
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
#include <nn/example_indices.hpp>

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

// Σ_{i ∈ idx} ℓᵢ(θ) for any scalar: the model's own batched batch_loss(θ, idx) when it has one,
// else the per-example terms summed in the order of idx. idx must outlive the callable.
template <class Model>
auto batch_loss(const Model& model, ExampleIndices idx) {
  return [&model, idx](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    if constexpr (requires {
                    { model.batch_loss(th, idx) } -> std::convertible_to<T>;
                  }) {
      return T(model.batch_loss(th, idx));
    } else {
      T sum(0.0);
      for (const Eigen::Index i : idx) sum = sum + model.example_loss(th, i);
      return sum;
    }
  };
}

// Σ_k ∇²ℓ_{idx[k]}(θ) in the fixed block order of options (idx already checked).
template <class Model>
Eigen::MatrixXd hessian_by_examples(const Model& model, const Eigen::VectorXd& theta,
                                    ExampleIndices idx, const CurvatureOptions& options) {
  const Eigen::Index P = theta.size();
  return symmetrised(blocked_sum(
      static_cast<Eigen::Index>(idx.size()), P, P, options,
      [&](Eigen::Index k, Eigen::MatrixXd& acc) {
        const Eigen::Index i = idx[static_cast<std::size_t>(k)];
        acc += ad::hessian([&](const auto& th) { return model.example_loss(th, i); }, theta);
      }));
}
}  // namespace detail

// ∇²L(θ), P×P, symmetric. Writes L(θ) and ∇L(θ) when the pointers are given. The ⌈P/8⌉
// sweeps run on options.threads threads, options.grain Hessian columns (rounded up to whole
// sweeps) per task; the result is the same bits for any thread count. reduction_blocks is not
// used: no column is a sum over tasks.
// Cost: ⌈P/8⌉ recordings of the whole loss + reverse sweeps in Dual<double, 8> arithmetic
// (about 10-20 gradient evaluations per 8 parameters), over the threads.
template <class Model>
Eigen::MatrixXd exact_hessian(const Model& model, const Eigen::VectorXd& theta,
                              const CurvatureOptions& options = {}, double* value = nullptr,
                              Eigen::VectorXd* gradient = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "exact_hessian");
  return ad::hessian(detail::total_loss(model), theta, ad::parallel_options(options), value,
                     gradient);
}

// The diagonal of ∇²L(θ). Cost: that of exact_hessian (the diagonal of a Hessian costs as much
// as the Hessian in forward-over-reverse mode).
template <class Model>
Eigen::VectorXd exact_hessian_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                       const CurvatureOptions& options = {}) {
  return exact_hessian(model, theta, options).diagonal();
}

// The minibatch form Σ_{i ∈ idx} ∇²ℓᵢ(θ) (a sum; repeated indices count repeatedly), recorded
// once per block of 8 directions through the model's batched batch_loss(θ, idx) if it has one.
// Writes Σ_{i ∈ idx} ℓᵢ and its gradient when the pointers are given. Throws for an empty idx
// or an index outside 0..N−1. Cost: ⌈P/8⌉ recordings of the batch loss over |idx| examples +
// reverse sweeps in Dual<double, 8> arithmetic, over the threads as above.
template <class Model>
Eigen::MatrixXd exact_hessian(const Model& model, const Eigen::VectorXd& theta, ExampleIndices idx,
                              const CurvatureOptions& options = {}, double* value = nullptr,
                              Eigen::VectorXd* gradient = nullptr) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "exact_hessian");
  check_example_indices(idx, model.num_examples(), "exact_hessian");
  return ad::hessian(detail::batch_loss(model, idx), theta, ad::parallel_options(options), value,
                     gradient);
}

// The diagonal of the minibatch exact_hessian. Cost: that of exact_hessian on idx.
template <class Model>
Eigen::VectorXd exact_hessian_diagonal(const Model& model, const Eigen::VectorXd& theta,
                                       ExampleIndices idx, const CurvatureOptions& options = {}) {
  return exact_hessian(model, theta, idx, options).diagonal();
}

// Σᵢ ∇²ℓᵢ(θ), summed in the fixed block order of CurvatureOptions (bitwise identical for any
// thread count). Memory: reduction_blocks·P² doubles of scratch, never N·P².
// Cost: N·⌈P/8⌉ single-example dual recordings + sweeps, spread over the threads.
template <class Model>
Eigen::MatrixXd exact_hessian_by_examples(const Model& model, const Eigen::VectorXd& theta,
                                          const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "exact_hessian_by_examples");
  return detail::hessian_by_examples(model, theta, all_examples(model.num_examples()), options);
}

// The minibatch form Σ_{i ∈ idx} ∇²ℓᵢ(θ), summed example by example (an independent route to
// exact_hessian on idx). Throws for an empty idx or an index outside 0..N−1. Cost: as above
// with |idx| for N.
template <class Model>
Eigen::MatrixXd exact_hessian_by_examples(const Model& model, const Eigen::VectorXd& theta,
                                          ExampleIndices idx,
                                          const CurvatureOptions& options = {}) {
  detail::require_separable_loss_model<Model>();
  detail::check_theta(model, theta, "exact_hessian_by_examples");
  check_example_indices(idx, model.num_examples(), "exact_hessian_by_examples");
  return detail::hessian_by_examples(model, theta, idx, options);
}

}  // namespace ngvi::nn
