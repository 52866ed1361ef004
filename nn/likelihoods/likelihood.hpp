// What every likelihood provides, and helpers they share.
//
// A likelihood turns the vector f that a model produces for one example into the negative
// log-likelihood ℓ(f, y) = −log p(y | f) of that example's target y, with all constants
// (so log-likelihoods compare with published tables). Its interface:
//
//   int output_dim()        length of f. f is the network's output followed by the
//                           likelihood's own parameters, if it has any (see below).
//   int net_output_dim()    how many entries of f the network supplies.
//   int num_params()        the likelihood's own parameters (output_dim − net_output_dim).
//   int target_dim()        length of y.
//   add_parameter_blocks(layout), init_parameters(theta, layout)
//                           register and initialise those parameters as blocks of θ.
//   T nll(f, y)             ℓ for one example, generic in the scalar T.
//   T batch_nll(F, Y)       Σᵢ ℓ(Fᵢ, Yᵢ) over the rows of F (B×output_dim), with fused nodes;
//                           F an Eigen matrix (double, Var) or an ad::MatrixVar, which is
//                           what Sequential::trace returns and the batched route passes.
//   output_hessian(f, y)    ∂²ℓ/∂f² in closed form: the H_L of the Gauss-Newton Jᵀ H_L J.
//   output_fisher(f)        E_{y~p(y|f)}[∂²ℓ/∂f²] = Fisher information of f; equals
//                           output_hessian for the canonical-link likelihoods; PSD always.
//   sample_target(f, rng)   a draw y ~ p(y | f) (for the Monte-Carlo Fisher).
//   predictive_mean(f)      E[y | f].
//   predictive_variance(f)  Var[y | f] per target entry — only the Gaussian (regression)
//                           likelihoods have it; the regression predictive of ngvi::vi uses it.
//   check_targets(Y)        throws std::invalid_argument naming the first bad target.
//
// Likelihood parameters (GaussianLearnedNoise's log-precision) live in θ after the network's
// blocks; Supervised appends them to the network output, so to the likelihood they are just
// more entries of f. This keeps one code path for everything downstream: the output Jacobian
// of f w.r.t. θ has an identity column for each such parameter, and J ᵀ H_L J then contains
// their exact curvature. Note that for the learned-noise and heteroscedastic Gaussians the
// exact H_L is indefinite away from the optimum (the mean/log-scale cross term); use
// output_fisher for a PSD Gauss-Newton-type matrix there.
//
// The dimensions, the shape checks and the no-parameter defaults are the same for every
// likelihood and live in LikelihoodBase (likelihood_base.hpp), which the likelihoods derive from.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include <Eigen/Core>

#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <nn/parameters.hpp>

namespace ngvi::nn {

template <class L>
concept Likelihood = requires(const L& lik, const Eigen::VectorXd& f, const Eigen::VectorXd& y,
                              const Eigen::MatrixXd& F, const Eigen::MatrixXd& Y,
                              const ad::VarVector<double>& fv, const ad::VarMatrix<double>& Fv,
                              const ad::MatrixVar<double>& Fh, std::mt19937_64& rng,
                              ParameterLayout& layout, Eigen::VectorXd& theta) {
  { lik.output_dim() } -> std::convertible_to<int>;
  { lik.net_output_dim() } -> std::convertible_to<int>;
  { lik.num_params() } -> std::convertible_to<int>;
  { lik.target_dim() } -> std::convertible_to<int>;
  lik.add_parameter_blocks(layout);
  lik.init_parameters(theta, std::as_const(layout));
  { lik.nll(f, y) } -> std::convertible_to<double>;
  { lik.nll(fv, y) } -> std::convertible_to<ad::Var<double>>;
  { lik.batch_nll(F, Y) } -> std::convertible_to<double>;
  { lik.batch_nll(Fv, Y) } -> std::convertible_to<ad::Var<double>>;
  { lik.batch_nll(Fh, Y) } -> std::convertible_to<ad::Var<double>>;
  { lik.output_hessian(f, y) } -> std::convertible_to<Eigen::MatrixXd>;
  { lik.output_fisher(f) } -> std::convertible_to<Eigen::MatrixXd>;
  { lik.sample_target(f, rng) } -> std::convertible_to<Eigen::VectorXd>;
  { lik.predictive_mean(f) } -> std::convertible_to<Eigen::VectorXd>;
  lik.check_targets(Y);
};

namespace detail {

inline constexpr double half_log_2pi = 0.91893853320467274178032973640562;

// Σ rows of nll, one per-example recording each (for likelihoods whose batch form has no
// better fused expression); F an Eigen matrix or an ad::MatrixVar.
// Cost: B calls of nll plus one sum statement.
template <class Lik, ad::MatrixArgument FM, class T = ad::detail::argument_scalar_t<FM>>
T sum_of_rows(const Lik& lik, const FM& F, const Eigen::MatrixXd& Y) {
  Eigen::Matrix<T, Eigen::Dynamic, 1> terms(F.rows());
  Eigen::Matrix<T, Eigen::Dynamic, 1> f(F.cols());
  for (Eigen::Index i = 0; i < F.rows(); ++i) {
    for (Eigen::Index k = 0; k < F.cols(); ++k) f(k) = F(i, k);
    terms(i) = lik.nll(f, Y.row(i).transpose().eval());
  }
  return T(ad::sum(terms));
}

inline std::string target_error(const char* who, Eigen::Index row, Eigen::Index col, double value,
                                const std::string& expected) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return std::string("ngvi::nn::") + who + ": target in row " + std::to_string(row) + ", column " +
         std::to_string(col) + " is " + buf + ", expected " + expected;
}

}  // namespace detail
}  // namespace ngvi::nn
