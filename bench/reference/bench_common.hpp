// Shared benchmark infrastructure: deterministic data, timing, JSON output.
// Written for this harness; depends only on the C++ standard library.
// [ngvi] Copied from the peer AD harness (../shared/peers/ad/common/bench_common.hpp); sizes, seeds
// and data generators are unchanged so figures compare with peers/ad/results.md. The timing
// (time_median, cpu_s), JSON output (emit) and command-line Filter were dropped: Google Benchmark
// does that here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace adb {

// ---------------------------------------------------------------- sizes
constexpr int W1_N = 100000;  // scalar chain length

constexpr int MLP_N = 455;  // examples (W2, W3, W5)
constexpr int MLP_D = 13;   // inputs
constexpr int MLP_H = 50;   // hidden units -> P = H*D + 2H + 1 = 751

constexpr int HES_N = 100;  // W4: examples
constexpr int HES_D = 13;
constexpr int HES_H = 10;  // -> P = 151

constexpr int LR_N = 569;  // W6 logistic regression
constexpr int LR_D = 30;   // -> P = 31 (weights + bias)

// ---------------------------------------------------------------- RNG
// splitmix64 + Box-Muller: deterministic, platform independent.
struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  double normal() {
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

// ---------------------------------------------------------------- data
struct W1Data {
  std::vector<double> x;
};

inline W1Data make_w1(std::uint64_t seed = 1001) {
  Rng r(seed);
  W1Data d;
  d.x.resize(W1_N);
  for (auto& v : d.x) v = r.uniform(-1.0, 1.0);
  return d;
}

// One-hidden-layer tanh MLP, scalar output, loss 0.5*sum_n (y_n - f(x_n))^2.
// Parameter layout (flat theta, length P):
//   [ W1 (H x D, row-major) | b1 (H) | w2 (H) | b2 (1) ]
struct MlpData {
  int N, D, H;
  std::vector<double> X;      // N x D, row-major
  std::vector<double> y;      // N
  std::vector<double> theta;  // P
  std::vector<double> v;      // P (HVP direction)
  int P() const { return H * D + 2 * H + 1; }
  int oW1() const { return 0; }
  int ob1() const { return H * D; }
  int ow2() const { return H * D + H; }
  int ob2() const { return H * D + 2 * H; }
};

inline MlpData make_mlp(int N, int D, int H, std::uint64_t seed) {
  Rng r(seed);
  MlpData d;
  d.N = N;
  d.D = D;
  d.H = H;
  d.X.resize(N * D);
  for (auto& v : d.X) v = r.normal();
  const int P = d.P();
  d.theta.resize(P);
  for (int i = 0; i < H * D; ++i) d.theta[i] = r.normal() / std::sqrt(double(D));
  for (int i = 0; i < H; ++i) d.theta[d.ob1() + i] = 0.1 * r.normal();
  for (int i = 0; i < H; ++i) d.theta[d.ow2() + i] = r.normal() / std::sqrt(double(H));
  d.theta[d.ob2()] = 0.1 * r.normal();
  // targets: a smooth function of the inputs plus noise
  d.y.resize(N);
  for (int n = 0; n < N; ++n) {
    double s = 0.0;
    for (int j = 0; j < D; ++j) s += std::sin(0.5 * j + 1.0) * d.X[n * D + j];
    d.y[n] = std::tanh(s) + 0.1 * r.normal();
  }
  d.v.resize(P);
  for (auto& v : d.v) v = r.normal();
  return d;
}

// Logistic regression, loss = sum_n log(1+exp(z_n)) - y_n z_n,
// z_n = w . x_n + b; theta = [ w (D) | b ].
struct LrData {
  int N, D;
  std::vector<double> X;      // N x D row-major
  std::vector<double> y;      // N, in {0,1}
  std::vector<double> theta;  // D+1
  int P() const { return D + 1; }
};

inline LrData make_lr(std::uint64_t seed = 6006) {
  Rng r(seed);
  LrData d;
  d.N = LR_N;
  d.D = LR_D;
  d.X.resize(d.N * d.D);
  for (auto& v : d.X) v = r.normal();
  std::vector<double> wtrue(d.D);
  for (auto& v : wtrue) v = 0.5 * r.normal();
  d.y.resize(d.N);
  for (int n = 0; n < d.N; ++n) {
    double z = 0.2;
    for (int j = 0; j < d.D; ++j) z += wtrue[j] * d.X[n * d.D + j];
    d.y[n] = (r.uniform() < 1.0 / (1.0 + std::exp(-z))) ? 1.0 : 0.0;
  }
  d.theta.resize(d.P());
  for (auto& v : d.theta) v = 0.1 * r.normal();
  return d;
}

struct AllData {
  W1Data w1;
  MlpData mlp;  // W2, W3, W5
  MlpData hes;  // W4
  LrData lr;    // W6
};

inline AllData make_all() {
  AllData a;
  a.w1 = make_w1();
  a.mlp = make_mlp(MLP_N, MLP_D, MLP_H, 2002);
  a.hes = make_mlp(HES_N, HES_D, HES_H, 4004);
  a.lr = make_lr();
  return a;
}

// ---------------------------------------------------------------- numerics
inline double rel_err(const double* a, const double* ref, std::size_t n) {
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = a[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return std::sqrt(num) / std::max(std::sqrt(den), 1e-300);
}
inline double rel_err(const std::vector<double>& a, const std::vector<double>& ref) {
  if (a.size() != ref.size()) return INFINITY;
  return rel_err(a.data(), ref.data(), a.size());
}

// diag of the empirical Fisher / Gauss-Newton used by VOGN:
// mean over examples of the elementwise-squared per-example gradients.
inline void sq_mean_rows(const std::vector<double>& G, int N, int P, std::vector<double>& out) {
  out.assign(P, 0.0);
  for (int n = 0; n < N; ++n) {
    const double* g = G.data() + std::size_t(n) * P;
    for (int p = 0; p < P; ++p) out[p] += g[p] * g[p];
  }
  for (auto& v : out) v /= N;
}

// Workload ids (also used by the Python harness and the table script)
#define ADB_W1 "W1_chain_grad"
#define ADB_W2 "W2_mlp_grad"
#define ADB_W3 "W3_mlp_hvp"
#define ADB_W4 "W4_mlp_hessian"
#define ADB_W5_1 "W5_per_example_1t"
#define ADB_W5_2 "W5_per_example_2t"
#define ADB_W6G "W6_logreg_grad"
#define ADB_W6H "W6_logreg_hessian"

}  // namespace adb
