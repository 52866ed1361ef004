// W7: the generalized Gauss-Newton of the W2 data set (455 examples, 13 inputs), one thread —
// its diagonal for the 13-50-1 tanh MLP (W2's network and θ, P = 751) and the full matrix for
// the 13-10-1 MLP (W4's network and θ on W2's 455 examples, P = 151), with a Gaussian likelihood
// of precision τ = 1.
//
// The analytic references are hand-written here (the peers' harness has no curvature
// workload). With a scalar output and a Gaussian likelihood the GGN is τ Σᵢ JᵢᵀJᵢ, Jᵢ = ∂fᵢ/∂θ, and
// for f = w2ᵀ tanh(W1x + b1) + b2 the Jacobian is closed-form: with aᵢ = tanh(W1xᵢ + b1) and
// δᵢ = w2 ∘ (1 − aᵢ²), ∂f/∂W1 = δᵢxᵢᵀ, ∂f/∂b1 = δᵢ, ∂f/∂w2 = aᵢ, ∂f/∂b2 = 1.
//   diagonal: τ (Δ∘Δ)ᵀ(X∘X), τ colsum(Δ∘Δ), τ colsum(A∘A), τN — one batched forward pass and
//             one small product, no Jacobian formed;
//   full:     the N×P Jacobian J from the same pass, then τ JᵀJ by a symmetric rank-N update.
// ngvi runs nn::ggn_diagonal / nn::ggn on nn::Supervised(Sequential{Dense, Tanh, Dense},
// GaussianFixedNoise(1)) — the batched route: per block of examples one tape-recorded forward
// pass and one reverse sweep, then the diagonal from squared δs or the full matrix from one
// product per block. Both are checked against the reference before timing.
#include <nn/nn.hpp>

#include "support.hpp"

namespace {

using namespace ngvi_bench;
namespace nn = ngvi::nn;

#define W7_DIAG "W7_ggn_diagonal"
#define W7_FULL "W7_ggn_full"

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// W2's inputs and targets with the hidden width and θ of `net` (W2's for 50, W4's for 10).
adb::MlpData w7_data(const adb::MlpData& net) {
  adb::MlpData d = data().mlp;
  d.H = net.H;
  d.theta = net.theta;
  return d;
}
const adb::MlpData& w7_diag_data() {
  static const adb::MlpData d = w7_data(data().mlp);
  return d;
}
const adb::MlpData& w7_full_data() {
  static const adb::MlpData d = w7_data(data().hes);
  return d;
}

// The hand-written reference; keeps its workspaces across calls, as analytic.hpp's structs do
// (and, like them, holds the pre-activations column-wise, H×N).
struct GgnAnalytic {
  const adb::MlpData& d;
  double tau = 1.0;
  Eigen::Map<const RowMat> X;
  Eigen::MatrixXd Z, A, Delta, D2;  // H×N: pre-activations, tanh, δ, δ²
  RowMat J;                         // N×P (full only)
  adb::analytic::VecTanh vtanh;

  explicit GgnAnalytic(const adb::MlpData& data) : d(data), X(data.X.data(), data.N, data.D) {}

  // Z = W1 Xᵀ + b1, A = tanh(Z), Δ = (1 − A²) ∘ w2 (column i: δᵢ).
  void forward(const double* theta) {
    const Eigen::Map<const RowMat> W1(theta + d.oW1(), d.H, d.D);
    const Eigen::Map<const Eigen::VectorXd> b1(theta + d.ob1(), d.H), w2(theta + d.ow2(), d.H);
    Z.noalias() = W1 * X.transpose();
    Z.colwise() += b1;
    A.resize(d.H, d.N);
    auto Aa = A.array();
    vtanh(Z.array(), Aa);
    Delta = (1.0 - A.array().square()).colwise() * w2.array();
  }
  void diagonal(const double* theta, Eigen::VectorXd& g) {
    forward(theta);
    g.resize(d.P());
    D2 = Delta.array().square();
    Eigen::Map<RowMat>(g.data() + d.oW1(), d.H, d.D).noalias() =
        tau * D2 * X.array().square().matrix();
    g.segment(d.ob1(), d.H) = tau * D2.rowwise().sum();
    g.segment(d.ow2(), d.H) = tau * A.array().square().rowwise().sum().matrix();
    g(d.ob2()) = tau * d.N;
  }
  void full(const double* theta, Eigen::MatrixXd& G) {
    forward(theta);
    J.resize(d.N, d.P());
    for (int i = 0; i < d.N; ++i)
      Eigen::Map<RowMat>(J.row(i).data() + d.oW1(), d.H, d.D).noalias() = Delta.col(i) * X.row(i);
    J.middleCols(d.ob1(), d.H) = Delta.transpose();
    J.middleCols(d.ow2(), d.H) = A.transpose();
    J.col(d.ob2()).setOnes();
    G.setZero(d.P(), d.P());
    G.selfadjointView<Eigen::Lower>().rankUpdate(J.transpose(), tau);
    G.triangularView<Eigen::StrictlyUpper>() = G.transpose();
  }
};

using W7Model = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;
W7Model w7_model(const adb::MlpData& d) {
  nn::Dataset ds;
  ds.X = Eigen::Map<const RowMat>(d.X.data(), d.N, d.D);
  ds.Y = Eigen::Map<const Eigen::VectorXd>(d.y.data(), d.N);
  return W7Model(nn::Sequential{nn::Dense(d.D, d.H), nn::Tanh{}, nn::Dense(d.H, 1)},
                 nn::GaussianFixedNoise(1.0), std::move(ds));
}

// The analytic reference's timing loop: reference(gr, θ, out) on the workload's data.
template <class Out, class Reference>
void w7_analytic(benchmark::State& st, const adb::MlpData& d, Reference reference) {
  GgnAnalytic gr(d);
  Out out;
  for (auto _ : st) {
    reference(gr, d.theta.data(), out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

// ngvi's timing loop: ngvi_call(model, θ, options) on one thread, after one untimed call
// checked against the reference.
template <class Out, class Reference, class Call>
void w7_nn(benchmark::State& st, const adb::MlpData& d, Reference reference, Call ngvi_call) {
  const W7Model model = w7_model(d);
  const Eigen::VectorXd theta = to_eigen(d.theta);
  nn::GgnOptions o;
  o.threads = 1;
  GgnAnalytic gr(d);
  Out expected;
  reference(gr, d.theta.data(), expected);
  Out out = ngvi_call(model, theta, o);
  check_or_abort(st, (out - expected).norm() / expected.norm(), 0.0);
  for (auto _ : st) {
    out = ngvi_call(model, theta, o);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

const auto diag_reference = [](GgnAnalytic& gr, const double* theta, Eigen::VectorXd& out) {
  gr.diagonal(theta, out);
};
const auto full_reference = [](GgnAnalytic& gr, const double* theta, Eigen::MatrixXd& out) {
  gr.full(theta, out);
};
void w7_diag_analytic(benchmark::State& st) {
  w7_analytic<Eigen::VectorXd>(st, w7_diag_data(), diag_reference);
}
void w7_full_analytic(benchmark::State& st) {
  w7_analytic<Eigen::MatrixXd>(st, w7_full_data(), full_reference);
}
void w7_diag_nn(benchmark::State& st) {
  w7_nn<Eigen::VectorXd>(st, w7_diag_data(), diag_reference,
                         [](const W7Model& m, const Eigen::VectorXd& theta,
                            const nn::GgnOptions& o) { return nn::ggn_diagonal(m, theta, o); });
}
void w7_full_nn(benchmark::State& st) {
  w7_nn<Eigen::MatrixXd>(st, w7_full_data(), full_reference,
                         [](const W7Model& m, const Eigen::VectorXd& theta,
                            const nn::GgnOptions& o) { return nn::ggn(m, theta, o); });
}
NGVI_BENCH(w7_diag_analytic, W7_DIAG, "analytic");
NGVI_BENCH(w7_full_analytic, W7_FULL, "analytic");
NGVI_BENCH(w7_diag_nn, W7_DIAG, "ngvi_nn");
NGVI_BENCH(w7_full_nn, W7_FULL, "ngvi_nn");

}  // namespace
