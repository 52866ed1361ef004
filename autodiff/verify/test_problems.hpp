// Test problems for derivative checks, each generic in its scalar type: what `ngvi verify`
// differentiates, what the engine's own tests check against, and what a user can try a new
// route or operation on.
//
// Four functions that exercise different parts of the AD engine: Rosenbrock as a scalar loop
// (one tape statement per operation), logistic regression and a one-hidden-layer tanh MLP with
// the fused matrix nodes, and a sum of special functions (lgamma, digamma, erf, atan2, hypot,
// logistic, log_sum_exp). Rosenbrock and logistic regression also carry their closed-form
// gradient and Hessian, so the AD results can be checked against a route that shares no code
// with the engine.
#pragma once

#include <cmath>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>

namespace ngvi::ad::verify::problems {

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// f(x) = Σᵢ 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)², written as a scalar loop.
struct Rosenbrock {
  template <class T>
  T operator()(const Vec<T>& x) const {
    T f = 0.0;
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const T a = x(i + 1) - x(i) * x(i);
      const T b = 1.0 - x(i);
      f += 100.0 * a * a + b * b;
    }
    return f;
  }
  // Cost: O(n).
  static Eigen::VectorXd gradient(const Eigen::VectorXd& x) {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const double a = x(i + 1) - x(i) * x(i);
      g(i) += -400.0 * a * x(i) - 2.0 * (1.0 - x(i));
      g(i + 1) += 200.0 * a;
    }
    return g;
  }
  // Cost: O(n²) (a dense tridiagonal matrix).
  static Eigen::MatrixXd hessian(const Eigen::VectorXd& x) {
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(x.size(), x.size());
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      H(i, i) += 1200.0 * x(i) * x(i) - 400.0 * x(i + 1) + 2.0;
      H(i, i + 1) += -400.0 * x(i);
      H(i + 1, i) += -400.0 * x(i);
      H(i + 1, i + 1) += 200.0;
    }
    return H;
  }
};

// Logistic regression NLL Σᵢ log(1 + exp(zᵢ)) − yᵢzᵢ, z = Xw + b, θ = [w | b], fused nodes.
struct Logistic {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  template <class T>
  T operator()(const Vec<T>& theta) const {
    const Eigen::Index d = X.cols();
    const Vec<T> w = theta.head(d);
    const Vec<T> z = ad::add_colwise(ad::matmul(X, w), Vec<T>::Constant(X.rows(), theta(d)));
    return T(ad::sum(ad::log1p_exp(z)) - ad::dot(y, z));
  }
  // Xᵀ(σ(z) − y) and the bias row. Cost: O(N·d).
  Eigen::VectorXd gradient(const Eigen::VectorXd& theta) const {
    const Eigen::Index d = X.cols();
    const Eigen::VectorXd z = (X * theta.head(d)).array() + theta(d);
    const Eigen::VectorXd r = (1.0 / (1.0 + (-z.array()).exp())).matrix() - y;
    Eigen::VectorXd g(d + 1);
    g.head(d) = X.transpose() * r;
    g(d) = r.sum();
    return g;
  }
  // X̃ᵀ diag(σ(z)(1 − σ(z))) X̃ with X̃ = [X | 1]. Cost: O(N·d²).
  Eigen::MatrixXd hessian(const Eigen::VectorXd& theta) const {
    const Eigen::Index d = X.cols();
    Eigen::MatrixXd Xb(X.rows(), d + 1);
    Xb << X, Eigen::VectorXd::Ones(X.rows());
    const Eigen::VectorXd z = Xb * theta;
    const Eigen::VectorXd p = 1.0 / (1.0 + (-z.array()).exp());
    const Eigen::VectorXd w = p.array() * (1.0 - p.array());
    return Xb.transpose() * w.asDiagonal() * Xb;
  }
};

// One-hidden-layer tanh MLP, Gaussian NLL ½Σ(y − f(x))², θ = [W1 (H×D, row-major) | b1 | w2 | b2].
struct Mlp {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  Eigen::Index H = 0;
  template <class T>
  T operator()(const Vec<T>& theta) const {
    const Eigen::Index D = X.cols();
    const Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> W1(
        theta.data(), H, D);
    const Mat<T> A =
        ad::add_rowwise(ad::matmul(X, W1.transpose()), theta.segment(H * D, H).transpose());
    const Mat<T> Z = ad::tanh(A);
    const Vec<T> f = ad::matmul(Z, theta.segment(H * D + H, H));
    const Vec<T> r = ad::cwise_difference(
        y, ad::add_colwise(f, Vec<T>::Constant(f.size(), theta(H * D + 2 * H))));
    return T(0.5 * ad::squared_norm(r));
  }
};

// Σᵢ lgamma(aᵢ² + 1.5) + digamma(e^aᵢ + 0.5) + erf(aᵢbᵢ) + atan2(aᵢ, 1 + bᵢ²) + hypot(aᵢ, bᵢ + 2)
//    + √(1 + aᵢ²)·σ(bᵢ) + log(e^aᵢ + e^bᵢ + e^0.3aᵢ), with aᵢ = xᵢ, bᵢ = xᵢ₊₁ (cyclically).
struct Special {
  template <class T>
  T operator()(const Vec<T>& x) const {
    using ad::digamma;
    using std::atan2;
    using std::erf;
    using std::exp;
    using std::hypot;
    using std::lgamma;
    using std::sqrt;
    T f = 0.0;
    const Eigen::Index n = x.size();
    for (Eigen::Index i = 0; i < n; ++i) {
      const T& a = x(i);
      const T& b = x((i + 1) % n);
      f += lgamma(a * a + 1.5) + digamma(exp(a) + 0.5) + erf(a * b) + atan2(a, 1.0 + b * b);
      f += hypot(a, b + 2.0) + sqrt(1.0 + a * a) * ad::logistic(b) +
           ad::log_sum_exp(a, b, T(0.3 * a));
    }
    return f;
  }
};

}  // namespace ngvi::ad::verify::problems
