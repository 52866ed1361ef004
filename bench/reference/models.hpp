// Generic (scalar operator-overloading) formulations of the workloads.
// The SAME source is instantiated with stan::math::var / fvar<var>,
// adouble, Sacado::Rad::ADvar, Sacado::Fad::DFad, ... so every
// operator-overloading library records exactly the same operation sequence.
//
// `Vec` is anything indexable with operator[] returning (a reference to) T.
// [ngvi] Copied unchanged from the peer AD harness (../shared/peers/ad/common/models.hpp) so that
// ngvi is measured against the same reference as peers/ad/results.md.
#pragma once

#include <cmath>
#include <cstddef>

#include "bench_common.hpp"

namespace adb {

// W1: f(x) = sum_{i=0}^{n-2} [ log(1 + exp(x_i x_{i+1})) + sin(x_i)^2 ]
template <class T, class Vec>
T w1_chain(const Vec& x, int n) {
  using std::exp;
  using std::log;
  using std::sin;
  T f = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    T s = sin(x[i]);
    f += log(1.0 + exp(x[i] * x[i + 1])) + s * s;
  }
  return f;
}

// MLP prediction for example n.
template <class T, class Vec>
T mlp_predict(const Vec& th, const MlpData& d, int n) {
  using std::tanh;
  const int D = d.D, H = d.H;
  const int oW1 = d.oW1(), ob1 = d.ob1(), ow2 = d.ow2(), ob2 = d.ob2();
  const double* x = d.X.data() + std::size_t(n) * D;
  T f = th[ob2];
  for (int h = 0; h < H; ++h) {
    T a = th[ob1 + h];
    for (int j = 0; j < D; ++j) a += th[oW1 + h * D + j] * x[j];
    f += th[ow2 + h] * tanh(a);
  }
  return f;
}

// per-example Gaussian NLL with unit variance (constant dropped)
template <class T, class Vec>
T mlp_example_loss(const Vec& th, const MlpData& d, int n) {
  T r = d.y[n] - mlp_predict<T>(th, d, n);
  return 0.5 * (r * r);
}

// W2/W3/W4: full-batch loss
template <class T, class Vec>
T mlp_loss(const Vec& th, const MlpData& d) {
  T loss = 0.0;
  for (int n = 0; n < d.N; ++n) loss += mlp_example_loss<T>(th, d, n);
  return loss;
}

// W6: logistic regression NLL
template <class T, class Vec>
T logreg_loss(const Vec& th, const LrData& d) {
  using std::exp;
  using std::log;
  const int D = d.D;
  T loss = 0.0;
  for (int n = 0; n < d.N; ++n) {
    const double* x = d.X.data() + std::size_t(n) * D;
    T z = th[D];
    for (int j = 0; j < D; ++j) z += th[j] * x[j];
    loss += log(1.0 + exp(z)) - d.y[n] * z;
  }
  return loss;
}

}  // namespace adb
