// Models for the curvature tests.
//
// make_supervised builds the library's own nn::Supervised(Sequential MLP, likelihood, data) on
// synthetic data whose targets are drawn from the model itself, and a test point θ away from
// the generating parameters (so residuals are realistic, neither zero nor pure noise).
//
// DenseModel is a second, hand-written implementation of the same kind of model — a dense
// tanh network with a Gaussian (fixed precision), Bernoulli-logit or softmax-categorical
// likelihood, written directly in scalar code, independent of nn/'s layers, likelihoods and
// fused nodes — with exactly the members the curvature routines ask of a model
// (nn/curvature/concepts.hpp). Its parameter layout is Sequential's (layer by layer, W
// out×in row-major, then b), so the two can be compared at the same θ.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/likelihoods.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace ngvi::test {

using std::exp;
using std::log;
using std::tanh;

// ℓ = τ/2 (y − f)² − ½ log τ + ½ log 2π, per output; H_L = τ I.
struct GaussianFixed {
  double tau = 1.0;
  Eigen::Index dim = 1;
  Eigen::Index output_dim() const { return dim; }
  template <class T>
  T nll(const Eigen::Matrix<T, -1, 1>& f, const Eigen::VectorXd& y) const {
    T s(0.0);
    for (Eigen::Index k = 0; k < dim; ++k) {
      const T r = f(k) - y(k);
      s = s + 0.5 * tau * r * r;
    }
    return s + static_cast<double>(dim) * 0.5 * (std::log(2.0 * M_PI) - std::log(tau));
  }
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd&, const Eigen::VectorXd&) const {
    return tau * Eigen::MatrixXd::Identity(dim, dim);
  }
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    std::normal_distribution<double> n(0.0, 1.0);
    Eigen::VectorXd y(dim);
    for (Eigen::Index k = 0; k < dim; ++k) y(k) = f(k) + n(rng) / std::sqrt(tau);
    return y;
  }
};

// ℓ = log(1 + eᶠ) − y f, y ∈ {0, 1}; H_L = σ(f)(1 − σ(f)).
struct BernoulliLogit {
  Eigen::Index output_dim() const { return 1; }
  template <class T>
  T nll(const Eigen::Matrix<T, -1, 1>& f, const Eigen::VectorXd& y) const {
    using ngvi::ad::softplus;
    return T(softplus(f(0)) - y(0) * f(0));
  }
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd&) const {
    const double p = 1.0 / (1.0 + std::exp(-f(0)));
    return Eigen::MatrixXd::Constant(1, 1, p * (1.0 - p));
  }
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    const double p = 1.0 / (1.0 + std::exp(-f(0)));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    return Eigen::VectorXd::Constant(1, u(rng) < p ? 1.0 : 0.0);
  }
};

// ℓ = log Σₖ e^{fₖ} − f_y, y(0) the class index; H_L = diag(p) − ppᵀ.
struct SoftmaxCategorical {
  Eigen::Index classes = 3;
  Eigen::Index output_dim() const { return classes; }
  template <class T>
  T nll(const Eigen::Matrix<T, -1, 1>& f, const Eigen::VectorXd& y) const {
    double mx = ad::value_of(f(0));
    for (Eigen::Index k = 1; k < classes; ++k) mx = std::max(mx, ad::value_of(f(k)));
    T s(0.0);
    for (Eigen::Index k = 0; k < classes; ++k) s = s + exp(f(k) - mx);
    return T(log(s) + mx - f(static_cast<Eigen::Index>(y(0))));
  }
  static Eigen::VectorXd probs(const Eigen::VectorXd& f) {
    Eigen::VectorXd p = (f.array() - f.maxCoeff()).exp();
    return p / p.sum();
  }
  Eigen::MatrixXd output_hessian(const Eigen::VectorXd& f, const Eigen::VectorXd&) const {
    const Eigen::VectorXd p = probs(f);
    return Eigen::MatrixXd(p.asDiagonal()) - p * p.transpose();
  }
  Eigen::VectorXd sample_target(const Eigen::VectorXd& f, std::mt19937_64& rng) const {
    const Eigen::VectorXd p = probs(f);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double r = u(rng), c = 0.0;
    Eigen::Index k = 0;
    for (; k < classes - 1; ++k) {
      c += p(k);
      if (r < c) break;
    }
    return Eigen::VectorXd::Constant(1, static_cast<double>(k));
  }
};

struct Data {
  Eigen::MatrixXd X, Y;
};

// A dense network: sizes = {in, hidden..., out}; tanh between layers, identity at the end.
template <class Lik>
struct DenseModel {
  std::vector<Eigen::Index> sizes;
  Lik lik;
  Data d;

  Eigen::Index num_examples() const { return d.X.rows(); }
  Eigen::Index num_params() const {
    Eigen::Index p = 0;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) p += sizes[l + 1] * (sizes[l] + 1);
    return p;
  }
  Eigen::Index output_dim() const { return lik.output_dim(); }
  const Lik& likelihood() const { return lik; }
  const Data& data() const { return d; }

  // Offsets of layer l's W and b in θ.
  Eigen::Index weight_offset(std::size_t l) const {
    Eigen::Index p = 0;
    for (std::size_t k = 0; k < l; ++k) p += sizes[k + 1] * (sizes[k] + 1);
    return p;
  }
  Eigen::Index bias_offset(std::size_t l) const {
    return weight_offset(l) + sizes[l + 1] * sizes[l];
  }

  // The input of every layer (layer 0's is xᵢ), on double.
  std::vector<Eigen::VectorXd> layer_inputs(const Eigen::VectorXd& theta, Eigen::Index i) const {
    std::vector<Eigen::VectorXd> a;
    Eigen::VectorXd h = d.X.row(i).transpose();
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
      a.push_back(h);
      const Eigen::VectorXd s = pre_activation<double>(theta, l, h);
      h = l + 2 < sizes.size() ? Eigen::VectorXd(s.array().tanh()) : s;
    }
    return a;
  }

  template <class T>
  Eigen::Matrix<T, -1, 1> pre_activation(const Eigen::Matrix<T, -1, 1>& theta, std::size_t l,
                                         const Eigen::Matrix<T, -1, 1>& h) const {
    const Eigen::Index in = sizes[l], out = sizes[l + 1];
    const Eigen::Index w = weight_offset(l), b = bias_offset(l);
    Eigen::Matrix<T, -1, 1> s(out);
    for (Eigen::Index r = 0; r < out; ++r) {
      T acc = theta(b + r);
      for (Eigen::Index c = 0; c < in; ++c) acc = acc + theta(w + r * in + c) * h(c);
      s(r) = acc;
    }
    return s;
  }

  template <class T>
  Eigen::Matrix<T, -1, 1> example_output(const Eigen::Matrix<T, -1, 1>& theta,
                                         Eigen::Index i) const {
    Eigen::Matrix<T, -1, 1> h = d.X.row(i).transpose().template cast<T>();
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
      Eigen::Matrix<T, -1, 1> s = pre_activation<T>(theta, l, h);
      if (l + 2 < sizes.size())
        for (Eigen::Index r = 0; r < s.size(); ++r) s(r) = T(tanh(s(r)));
      h = s;
    }
    return h;
  }

  template <class T>
  T example_loss(const Eigen::Matrix<T, -1, 1>& theta, Eigen::Index i) const {
    return lik.nll(example_output(theta, i), Eigen::VectorXd(d.Y.row(i).transpose()));
  }
};

// Inputs ~ N(0, 1) (n×in), targets drawn from the model itself at theta (so residuals are
// realistic), all from `seed`.
template <class Lik>
DenseModel<Lik> make_model(std::vector<Eigen::Index> sizes, Lik lik, Eigen::Index n,
                           std::uint64_t seed, Eigen::VectorXd* theta_out) {
  DenseModel<Lik> m{std::move(sizes), lik, {}};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  m.d.X.resize(n, m.sizes.front());
  for (Eigen::Index i = 0; i < m.d.X.size(); ++i) m.d.X(i) = z(rng);
  Eigen::VectorXd theta(m.num_params());
  for (Eigen::Index p = 0; p < theta.size(); ++p) theta(p) = 0.7 * z(rng);
  const Eigen::Index ydim =
      m.lik.sample_target(Eigen::VectorXd::Zero(m.lik.output_dim()), rng).size();
  m.d.Y.resize(n, ydim);
  for (Eigen::Index i = 0; i < n; ++i)
    m.d.Y.row(i) = m.lik.sample_target(m.example_output(theta, i), rng).transpose();
  // Evaluate curvature away from the generating parameters, where residuals are not pure noise.
  for (Eigen::Index p = 0; p < theta.size(); ++p) theta(p) += 0.3 * z(rng);
  if (theta_out) *theta_out = theta;
  return m;
}

// nn::Supervised(net, lik, data) with n examples, inputs ~ N(0, 1), targets drawn from the
// model at a random θ₀, and *theta_out = θ₀ + 0.3·noise.
template <class Lik>
nn::Supervised<nn::Sequential, Lik> make_supervised(const nn::Sequential& net, Lik lik,
                                                    Eigen::Index n, std::uint64_t seed,
                                                    Eigen::VectorXd* theta_out) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  nn::Dataset data;
  data.X.resize(n, net.input_dim());
  for (Eigen::Index i = 0; i < data.X.size(); ++i) data.X(i) = z(rng);
  data.Y = Eigen::MatrixXd::Zero(n, lik.target_dim());
  const nn::Supervised<nn::Sequential, Lik> draft(net, lik, data);
  Eigen::VectorXd theta(draft.num_params());
  for (Eigen::Index p = 0; p < theta.size(); ++p) theta(p) = 0.7 * z(rng);
  const Eigen::MatrixXd F = draft.outputs(theta);
  for (Eigen::Index i = 0; i < n; ++i)
    data.Y.row(i) = lik.sample_target(Eigen::VectorXd(F.row(i).transpose()), rng).transpose();
  for (Eigen::Index p = 0; p < theta.size(); ++p) theta(p) += 0.3 * z(rng);
  if (theta_out) *theta_out = theta;
  return nn::Supervised<nn::Sequential, Lik>(net, std::move(lik), std::move(data));
}
// The same with net = Sequential::mlp(widths, Tanh).
template <class Lik>
nn::Supervised<nn::Sequential, Lik> make_supervised(const std::vector<Eigen::Index>& widths,
                                                    Lik lik, Eigen::Index n, std::uint64_t seed,
                                                    Eigen::VectorXd* theta_out) {
  return make_supervised(nn::Sequential::mlp(widths, nn::Tanh{}), std::move(lik), n, seed,
                         theta_out);
}

}  // namespace ngvi::test
