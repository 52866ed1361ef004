// minibatch_loss_and_gradient: Σ_{i∈B} ℓᵢ(θ) and its gradient by one reverse sweep.
//
// The methods that need only the minibatch gradient at a sampled θ — IVON, Bayes-by-backprop,
// noisy K-FAC's mean update — call this instead of forming per-example gradients. A model with
// a batched loss (nn::Supervised::batch_loss(theta, idx), a few fused tape entries per layer for
// the whole minibatch, reading the rows of idx) is recorded through it; any other separable model
// through the sum of its example_loss over idx on one tape. Either way it is one recording and
// one reverse sweep on the calling thread, so the result does not depend on the thread count.
// Returns SUMS over the batch (divide by |B| for the mean ĝ of von.hpp and vogn.hpp). The form
// with a BatchReducer (batch_reducer.hpp) records each of the reducer's fixed blocks of the batch
// on its own tape instead — the blocks on `parallel`'s threads, or on other MPI ranks — and adds
// the block sums in block order; with no reducer it is exactly the one-recording form.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/core/var.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/batch_reducer.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

// Σ_{i∈batch} ℓᵢ(θ), with grad set to its gradient. Throws std::invalid_argument for an empty
// batch or a θ of the wrong length, std::out_of_range for an index outside 0..N−1.
// Cost: one forward recording of the batch's loss and one reverse sweep (batched for models
// with batch_loss, else |B| example_loss recordings on one tape).
template <class Model>
double minibatch_loss_and_gradient(const Model& model, const Eigen::VectorXd& theta,
                                   std::span<const Eigen::Index> batch, Eigen::VectorXd& grad) {
  static_assert(nn::require_separable_model<Model>());
  if (batch.empty())
    throw std::invalid_argument("ngvi::vi::minibatch_loss_and_gradient: the minibatch is empty");
  nn::check_theta_size(theta.size(), model.num_params(), "ngvi::vi::minibatch_loss_and_gradient");
  for (const Eigen::Index i : batch)
    if (i < 0 || i >= model.num_examples())
      throw std::out_of_range("ngvi::vi::minibatch_loss_and_gradient: example index " +
                              std::to_string(i) + " is outside 0.." +
                              std::to_string(model.num_examples() - 1));
  if constexpr (requires(const ad::VarVector<double>& t) {
                  { model.batch_loss(t, batch) } -> std::convertible_to<ad::Var<double>>;
                }) {
    return ad::value_and_gradient([&](const auto& t) { return model.batch_loss(t, batch); }, theta,
                                  grad);
  } else {
    return ad::value_and_gradient(
        [&](const auto& t) {
          ad::Var<double> sum(0.0);
          for (const Eigen::Index i : batch) sum += model.example_loss(t, i);
          return sum;
        },
        theta, grad);
  }
}

// Σ_{i∈batch} ℓᵢ(θ) and its gradient, summed by `reducer` (header); nullptr: the form above.
// Throws as the form above. Cost: one recording and reverse sweep per block of the reducer.
template <class Model>
double minibatch_loss_and_gradient(const Model& model, const Eigen::VectorXd& theta,
                                   std::span<const Eigen::Index> batch, const BatchReducer* reducer,
                                   const ad::ParallelOptions& parallel, Eigen::VectorXd& grad) {
  if (reducer == nullptr) return minibatch_loss_and_gradient(model, theta, batch, grad);
  const Eigen::Index p = theta.size();
  const Eigen::VectorXd sums =
      reducer->sum(batch, p + 1, parallel,
                   [&](std::span<const Eigen::Index> examples, const ad::ParallelOptions&,
                       Eigen::VectorXd& acc) {
                     Eigen::VectorXd g;
                     acc(0) += minibatch_loss_and_gradient(model, theta, examples, g);
                     acc.tail(p) += g;
                   });
  grad = sums.tail(p);
  return sums(0);
}

}  // namespace ngvi::vi
