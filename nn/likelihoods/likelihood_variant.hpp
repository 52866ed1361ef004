// LikelihoodVariant<L...>: a likelihood chosen at run time among the likelihoods L... — e.g. a
// command line's "--likelihood student-t" — with one model type for all of them.
//
// It holds one of L... (a std::variant) and forwards every member of the likelihood interface
// (likelihood.hpp) to the one it holds, so nn::Supervised<Net, LikelihoodVariant<L...>> is one
// model type whatever the likelihood, and every method, curvature and inference routine over it
// is compiled once instead of once per likelihood. Its numbers are bitwise those of the held
// likelihood: ℓ(f, y) = Lₖ.nll(f, y) for the k-th alternative. Members that only some likelihoods
// have (a regression predictive's predictive_variance, a classifier's number of classes) are not
// forwarded: reach them through visit() or get_if(), where the concrete type is known.
//
// Cost: one switch on the held alternative per call on top of the likelihood's own cost; the
// code of every alternative is compiled for each scalar type a caller uses.
#pragma once

#include <concepts>
#include <random>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <Eigen/Core>

#include <autodiff/eigen/matrix_var.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/parameters.hpp>

namespace ngvi::nn {

namespace detail {
// Lik (without reference and const) is one of L....
template <class Lik, class... L>
concept one_of = (std::same_as<std::remove_cvref_t<Lik>, L> || ...);
}  // namespace detail

template <Likelihood... L>
class LikelihoodVariant {
  static_assert(sizeof...(L) >= 1, "ngvi::nn::LikelihoodVariant: name at least one likelihood");

 public:
  static constexpr std::string_view name = "likelihood_variant";

  // Holds `likelihood`, one of L... (implicit, so a function taking the variant takes any of
  // them).
  template <detail::one_of<L...> Lik>
  LikelihoodVariant(Lik&& likelihood) : held_(std::forward<Lik>(likelihood)) {}

  // The held likelihood, as f(const Lₖ&); f's result for every alternative must convert to one
  // common type.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), held_);
  }
  // The held likelihood if it is an Lik, else nullptr.
  template <class Lik>
  const Lik* get_if() const {
    return std::get_if<Lik>(&held_);
  }
  template <class Lik>
  bool holds() const {
    return std::holds_alternative<Lik>(held_);
  }
  // The held alternative's static name (e.g. "student_t").
  std::string_view held_name() const {
    return visit([](const auto& lik) { return std::string_view(lik.name); });
  }

  int output_dim() const {
    return visit([](const auto& lik) { return lik.output_dim(); });
  }
  int net_output_dim() const {
    return visit([](const auto& lik) { return lik.net_output_dim(); });
  }
  int num_params() const {
    return visit([](const auto& lik) { return lik.num_params(); });
  }
  int target_dim() const {
    return visit([](const auto& lik) { return lik.target_dim(); });
  }
  void add_parameter_blocks(ParameterLayout& layout) const {
    visit([&](const auto& lik) { lik.add_parameter_blocks(layout); });
  }
  void init_parameters(Eigen::VectorXd& theta, const ParameterLayout& layout) const {
    visit([&](const auto& lik) { lik.init_parameters(theta, layout); });
  }

  // Cost: the held likelihood's nll.
  template <class T>
  T nll(const Eigen::Matrix<T, Eigen::Dynamic, 1>& f, const Eigen::VectorXd& y) const {
    return visit([&](const auto& lik) { return T(lik.nll(f, y)); });
  }
  // Cost: the held likelihood's batch_nll.
  template <ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
  T batch_nll(const FM& F, const Eigen::MatrixXd& Y) const {
    return visit([&](const auto& lik) { return T(lik.batch_nll(F, Y)); });
  }
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd& y) const {
    return visit([&](const auto& lik) -> Eigen::MatrixXd { return lik.output_hessian(f, y); });
  }
  Eigen::MatrixXd output_fisher(const Eigen::VectorXd& f) const {
    return visit([&](const auto& lik) -> Eigen::MatrixXd { return lik.output_fisher(f); });
  }
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    return visit([&](const auto& lik) -> Eigen::VectorXd { return lik.sample_target(f, rng); });
  }
  Eigen::VectorXd predictive_mean(const Eigen::VectorXd& f) const {
    return visit([&](const auto& lik) -> Eigen::VectorXd { return lik.predictive_mean(f); });
  }
  void check_targets(const Eigen::MatrixXd& Y) const {
    visit([&](const auto& lik) { lik.check_targets(Y); });
  }

 private:
  std::variant<L...> held_;
};

}  // namespace ngvi::nn
