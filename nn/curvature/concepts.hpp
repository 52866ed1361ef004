// What the curvature routines ask of a model, as concepts with plain-English messages.
//
// Two levels, so that a hand-written model gets as much as it can provide:
//  * nn::SeparableModel (nn/model_concept.hpp) — a separable loss Σᵢ ℓᵢ(θ): num_examples(),
//    num_params() and example_loss(θ, i) generic in the scalar. Enough for the exact Hessian
//    (and its per-example sum) and for the empirical Fisher; CallableModel makes one from a
//    generic callable.
//  * OutputLikelihoodModel — additionally nn::OutputModel's output_dim() and example_output(θ, i)
//    (the network output fᵢ, generic in the scalar) and a likelihood() with output_dim(),
//    output_hessian(f, y) = ∂²ℓ/∂f², sample_target(f, rng) and nll(f, y); the target yᵢ is read
//    from data().Y.row(i). Needed by the generalized Gauss-Newton and the Monte-Carlo true Fisher,
//    which are built from ℓ as a function of f.
// nn::Supervised<Net, Likelihood> satisfies both; so does any user type with those members.
// K-FAC (kfac.hpp) further needs net() to be a Sequential, for its dense layers.
#pragma once

#include <concepts>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::nn {

template <class L>
concept OutputLikelihood = requires(const L& lik, const Eigen::VectorXd& f,
                                    const Eigen::VectorXd& y, std::mt19937_64& rng) {
  { lik.output_dim() } -> std::convertible_to<Eigen::Index>;
  { lik.output_hessian(f, y) } -> std::convertible_to<Eigen::MatrixXd>;
  { lik.sample_target(f, rng) } -> std::convertible_to<Eigen::VectorXd>;
  { lik.nll(f, y) } -> std::convertible_to<double>;
};

template <class M>
concept OutputLikelihoodModel = OutputModel<M> && requires(const M& m) {
  m.likelihood();
  m.data().Y;
} && OutputLikelihood<std::remove_cvref_t<decltype(std::declval<const M&>().likelihood())>>;

namespace detail {

template <class M>
void require_separable_loss_model() {
  static_assert(require_separable_model<M>());
}

template <class M>
void require_output_likelihood_model() {
  static_assert(require_separable_model<M>());
  static_assert(
      OutputLikelihoodModel<M>,
      "ngvi::nn curvature: the Gauss-Newton and Monte-Carlo Fisher need the network output "
      "and the likelihood separately: the model must also have output_dim(), a generic "
      "example_output(theta, i) returning an Eigen vector, data().Y (one target per "
      "row) and likelihood() with output_dim(), output_hessian(f, y), "
      "sample_target(f, rng) and a generic nll(f, y) (nn::Supervised has them)");
}

// Throws unless theta has num_params() entries; `who` names the calling function.
template <class M>
void check_theta(const M& model, const Eigen::VectorXd& theta, const char* who) {
  nn::check_theta_size(theta.size(), model.num_params(), std::string("ngvi::nn::") + who);
}

// Target yᵢ of example i as a column vector: model.target(i) where the model has it (a model
// holding a window of the data translates i), else row i of data().Y.
template <class M>
Eigen::VectorXd example_target(const M& model, Eigen::Index i) {
  if constexpr (requires { model.target(i); })
    return model.target(i);
  else
    return model.data().Y.row(i).transpose();
}

}  // namespace detail
}  // namespace ngvi::nn
