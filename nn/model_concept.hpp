// SeparableModel: what the per-example, curvature and inference code needs from a model.
//
// A separable model has N examples and P parameters and a loss that is a sum of per-example
// terms, L(θ) = Σᵢ ℓᵢ(θ), with ℓᵢ computable for any scalar type (double, Var<double>, and
// Var<Dual<double, K>> for Hessians). Supervised(net, likelihood, data) is one; any user
// type with the same three members is another, and CallableModel wraps a plain generic
// callable loss(theta, i) — a hand-written hierarchical regression, say — into one.
// require_separable_model<M>() turns a missing member into a plain-English compile error
// instead of a page of template diagnostics.
#pragma once

#include <concepts>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include <autodiff/core/var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <nn/parameters.hpp>

namespace ngvi::nn {

namespace detail {
template <class M>
concept has_num_examples = requires(const M& m) {
  { m.num_examples() } -> std::convertible_to<Eigen::Index>;
};
template <class M>
concept has_num_params = requires(const M& m) {
  { m.num_params() } -> std::convertible_to<Eigen::Index>;
};
template <class M>
concept has_double_loss = requires(const M& m, const Eigen::VectorXd& th, Eigen::Index i) {
  { m.example_loss(th, i) } -> std::convertible_to<double>;
};
template <class M>
concept has_var_loss = requires(const M& m, const ad::VarVector<double>& th, Eigen::Index i) {
  { m.example_loss(th, i) } -> std::convertible_to<ad::Var<double>>;
};
}  // namespace detail

template <class M>
concept SeparableModel = detail::has_num_examples<M> && detail::has_num_params<M> &&
    detail::has_double_loss<M> && detail::has_var_loss<M>;

// Models that also expose their per-example output f_i (the likelihood's input), which the
// output Jacobians and the Gauss-Newton matrix need.
template <class M>
concept OutputModel = SeparableModel<M> &&
    requires(const M& m, const Eigen::VectorXd& th, const ad::VarVector<double>& tv,
             Eigen::Index i) {
  { m.output_dim() } -> std::convertible_to<Eigen::Index>;
  { m.example_output(th, i) } -> std::convertible_to<Eigen::VectorXd>;
  { m.example_output(tv, i) } -> std::convertible_to<ad::VarVector<double>>;
};

// Call inside a template taking a model: each missing member gets its own message.
template <class M>
constexpr bool require_separable_model() {
  static_assert(detail::has_num_examples<M>,
                "ngvi: a model needs `Eigen::Index num_examples() const` (the number of terms ℓᵢ "
                "of its loss)");
  static_assert(detail::has_num_params<M>,
                "ngvi: a model needs `Eigen::Index num_params() const` (the length of θ)");
  static_assert(detail::has_double_loss<M>,
                "ngvi: a model needs `example_loss(theta, i)` callable with an Eigen::VectorXd θ "
                "and an example "
                "index, returning the example's loss; write it as a template over the scalar: "
                "template <class T> T example_loss(const Eigen::Matrix<T, -1, 1>& theta, "
                "Eigen::Index i) const");
  static_assert(
      detail::has_var_loss<M>,
      "ngvi: `example_loss(theta, i)` must also accept θ as an Eigen vector of "
      "ngvi::ad::Var<double> and "
      "return a Var<double>: make it a template over the scalar type T instead of using double");
  return true;
}

// The one check that a parameter vector θ fits a model: throws std::invalid_argument unless
// theta_size == num_params. `who` is the qualified name of the calling function and `argument`
// the name of the vector there, so the message names both and both sizes ("ngvi::vi::laplace:
// theta has 3 entries, expected 4 (one per model parameter)"). Every entry point taking a θ
// (or an initial θ under another name) calls this, in nn/ and inference/.
inline void check_theta_size(Eigen::Index theta_size, Eigen::Index num_params, std::string_view who,
                             std::string_view argument = "theta") {
  if (theta_size != num_params)
    throw std::invalid_argument(std::string(who) + ": " + std::string(argument) + " has " +
                                std::to_string(theta_size) + " entries, expected " +
                                std::to_string(num_params) + " (one per model parameter)");
}

// A SeparableModel made of a callable loss(theta, i) generic in the scalar, N and P.
// Cost of each member: that of the callable.
template <class F>
class CallableModel {
 public:
  CallableModel(F loss, Eigen::Index num_examples, Eigen::Index num_params)
      : CallableModel(std::move(loss), num_examples, single_block(num_params)) {}
  // With named blocks (their total size is P).
  CallableModel(F loss, Eigen::Index num_examples, ParameterLayout layout)
      : loss_(std::move(loss)), n_(num_examples), layout_(std::move(layout)) {
    if (num_examples < 0)
      throw std::invalid_argument("ngvi::nn::CallableModel: negative number of examples");
  }

  Eigen::Index num_examples() const { return n_; }
  Eigen::Index num_params() const { return layout_.size(); }
  const ParameterLayout& layout() const { return layout_; }

  // ℓᵢ(θ).
  template <class T>
  T example_loss(const Eigen::Matrix<T, Eigen::Dynamic, 1>& theta, Eigen::Index i) const {
    check(theta.size(), i);
    return T(loss_(theta, i));
  }
  // Σᵢ ℓᵢ(θ) in example order. Cost: N calls of the loss.
  template <class T>
  T total_loss(const Eigen::Matrix<T, Eigen::Dynamic, 1>& theta) const {
    T total(0.0);
    for (Eigen::Index i = 0; i < n_; ++i) total += example_loss(theta, i);
    return total;
  }
  const F& loss() const { return loss_; }

 private:
  static ParameterLayout single_block(Eigen::Index p) {
    ParameterLayout l;
    l.add("theta", p, 1);
    return l;
  }
  void check(Eigen::Index theta_size, Eigen::Index i) const {
    check_theta_size(theta_size, layout_.size(), "ngvi::nn::CallableModel::example_loss");
    if (i < 0 || i >= n_)
      throw std::out_of_range("ngvi::nn::CallableModel: example " + std::to_string(i) +
                              " outside 0.." + std::to_string(n_ - 1));
  }

  F loss_;
  Eigen::Index n_;
  ParameterLayout layout_;
};

// make_model(loss, N, P): a CallableModel, checked against SeparableModel at compile time.
template <class F>
CallableModel<F> make_model(F loss, Eigen::Index num_examples, Eigen::Index num_params) {
  static_assert(require_separable_model<CallableModel<F>>());
  return CallableModel<F>(std::move(loss), num_examples, num_params);
}
template <class F>
CallableModel<F> make_model(F loss, Eigen::Index num_examples, ParameterLayout layout) {
  static_assert(require_separable_model<CallableModel<F>>());
  return CallableModel<F>(std::move(loss), num_examples, std::move(layout));
}

}  // namespace ngvi::nn
