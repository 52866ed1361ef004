// The workloads W1–W6 written the way ngvi users write models: functions generic in the scalar,
// taking the flat parameter vector `const Eigen::Matrix<T, Dynamic, 1>& theta`, so one source
// runs on double, on Var<double> (gradients) and on Var<Dual<double, K>> (HVPs, Hessians).
//
// Two formulations per workload:
//   *_loop   the peers' generic scalar code (reference/models.hpp), the same operation sequence
//            Stan / ADOL-C / Sacado record: one tape statement per scalar expression;
//   *_fused  ngvi's matrix-level nodes (matmul, coefficient-wise maps, reductions): a few
//            tape entries per layer.
// Parameter layout as in the peers: theta = [W1 (H×D, row-major) | b1 | w2 | b2] for the MLP,
// theta = [w | b] for logistic regression.
#pragma once

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>

#include "reference/bench_common.hpp"
#include "reference/models.hpp"

namespace ngvi_bench {

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// ---------------------------------------------------------------------------------- W1
// f(x) = Σ_{i<n-1} log(1 + exp(x_i x_{i+1})) + sin(x_i)²
template <class T>
T chain_loop(const Vec<T>& x) {
  return adb::w1_chain<T>(x, static_cast<int>(x.size()));
}

// The same function with fused coefficient-wise nodes and reductions on a matrix variable: a
// function declared on ad::MatrixVar gets x from the driver as one handle, whose head and tail
// are views of it, so no per-coefficient Var is made anywhere; Σ sin(x_i)² is written ‖sin(x)‖²,
// which saves the square node (see chain_fused_square).
template <class Real>
ngvi::ad::Var<Real> chain_fused(const ngvi::ad::MatrixVar<Real>& x) {
  using namespace ngvi::ad;
  const Eigen::Index m = x.size() - 1;
  const auto a = x.head(m), b = x.tail(m);
  return sum(log1p_exp(cwise_product(a, b))) + squared_norm(sin(a));
}
// The same nodes on a function of the Eigen vector of Var: ad::as_matrix copies x's head and its
// tail into two handles first.
template <class T>
T chain_fused_vector(const Vec<T>& x) {
  using namespace ngvi::ad;
  const Eigen::Index m = x.size() - 1;
  const auto a = as_matrix(x.head(m));
  const auto b = as_matrix(x.tail(m));
  return T(sum(log1p_exp(cwise_product(a, b))) + squared_norm(sin(a)));
}
// Literally Σ log1p_exp(a ∘ b) + Σ square(sin(a)): one node more than chain_fused.
template <class T>
T chain_fused_square(const Vec<T>& x) {
  using namespace ngvi::ad;
  const Eigen::Index m = x.size() - 1;
  const auto a = x.head(m), b = x.tail(m);
  return sum(log1p_exp(cwise_product(a, b))) + sum(square(sin(a)));
}

// ---------------------------------------------------------------------------------- W2–W4
// ½ Σ_n (y_n − f(x_n))², f(x) = w2ᵀ tanh(W1 x + b1) + b2
template <class T>
T mlp_loss_loop(const Vec<T>& theta, const adb::MlpData& d) {
  return adb::mlp_loss<T>(theta, d);
}

// Example n's term ½(y_n − f(x_n))² (W5: per-example gradients).
template <class T>
T mlp_example_loss_loop(const Vec<T>& theta, const adb::MlpData& d, Eigen::Index n) {
  return adb::mlp_example_loss<T>(theta, d, static_cast<int>(n));
}

// A regression batch in Eigen form: X is N×D (one example per row), y has N entries.
struct MlpBatch {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  int D = 0, H = 0;
  explicit MlpBatch(const adb::MlpData& d)
      : X(Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            d.X.data(), d.N, d.D)),
        y(Eigen::Map<const Eigen::VectorXd>(d.y.data(), d.N)),
        D(d.D),
        H(d.H) {}
};

// The MLP loss as docs/user-guide.md writes it, on matrix variables, the whole batch at once:
// Z = tanh(X W1ᵀ + 1 b1ᵀ) (N×H), r = Z w2 + b2 − y, loss = ½‖r‖², each layer one ad::affine
// node. W1 is stored H×D row-major in theta, which is W1ᵀ (D×H) column-major, so W1ᵀ's handle
// needs no gather.
template <class T>
T mlp_loss_fused(const Vec<T>& theta, const MlpBatch& b) {
  using namespace ngvi::ad;
  const int D = b.D, H = b.H;
  const auto W1t = as_matrix(Eigen::Map<const Mat<T>>(theta.data(), D, H));
  const auto b1 = as_matrix(theta.segment(H * D, H));
  const auto w2 = as_matrix(theta.segment(H * D + H, H));
  const auto b2 = as_matrix(theta.segment(H * D + 2 * H, 1));
  const auto Z = tanh(affine(b.X, W1t, b1.transpose()));
  const auto r = affine(Z, w2, b2.transpose()) - b.y;
  return T(0.5 * squared_norm(r));
}

// ---------------------------------------------------------------------------------- W6
// Σ_n log(1 + exp(z_n)) − y_n z_n, z = X w + b
template <class T>
T logreg_loss_loop(const Vec<T>& theta, const adb::LrData& d) {
  return adb::logreg_loss<T>(theta, d);
}

struct LrBatch {
  Eigen::MatrixXd X;  // N×D
  Eigen::VectorXd y;  // N, in {0, 1}
  int D = 0;
  explicit LrBatch(const adb::LrData& d)
      : X(Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            d.X.data(), d.N, d.D)),
        y(Eigen::Map<const Eigen::VectorXd>(d.y.data(), d.N)),
        D(d.D) {}
};

// With fused nodes on matrix variables: z = X w + b, loss = Σ log1p_exp(z) − y·z.
template <class T>
T logreg_loss_fused(const Vec<T>& theta, const LrBatch& b) {
  using namespace ngvi::ad;
  const auto w = as_matrix(theta.head(b.D));
  const auto bias = as_matrix(theta.segment(b.D, 1));
  const auto z = as_matrix((b.X * w).rowwise() + bias.transpose());
  return T(sum(log1p_exp(z)) - dot(b.y, z));
}

}  // namespace ngvi_bench
