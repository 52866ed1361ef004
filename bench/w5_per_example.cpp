// W5: per-example gradients of the W2 network (455 × 751 matrix) and their elementwise-squared
// mean (the VOGN / empirical-Fisher diagonal), 1 and 2 threads.
//
// Runs: the analytic reference; the engine's ngvi::ad::per_example_gradients on the peers'
// scalar per-example loss ("ngvi_scalar"); and the nn module's model DSL with its batched
// per-example route ("ngvi_nn", "ngvi_nn_arena"), plus an N = 10 000 variant of the analytic and
// nn rows for the 2-vs-1-thread speed-up (see the nn section below).
#include <tbb/task_arena.h>

#include <nn/nn.hpp>

#include "drivers.hpp"
#include "ngvi_models.hpp"
#include "reference/parallel.hpp"

namespace {

using namespace ngvi_bench;
namespace nn = ngvi::nn;

void w5_analytic(benchmark::State& st, int nthreads) {
  const adb::MlpData& d = data().mlp;
  const int N = d.N, P = d.P();
  std::vector<double> G, diag;
  tbb::task_arena arena(nthreads);
  auto rows = [&](int n0, int n1) {
    adb::analytic::Mlp m(d);  // private workspace per task, as in the peers' harness
    m.per_example(d.theta.data(), n0, n1 - n0, G.data());
  };
  for (auto _ : st) {
    adb::per_example_driver(N, P, nthreads, &arena, rows, G, diag, (N + nthreads - 1) / nthreads);
    benchmark::DoNotOptimize(diag.data());
    benchmark::ClobberMemory();
  }
}
void w5_analytic_1t(benchmark::State& st) { w5_analytic(st, 1); }
void w5_analytic_2t(benchmark::State& st) { w5_analytic(st, 2); }
NGVI_BENCH(w5_analytic_1t, ADB_W5_1, "analytic");
// Two threads: wall time is what parallelism buys; CPU time is the sum over both threads.
NGVI_BENCH(w5_analytic_2t, ADB_W5_2, "analytic")->UseRealTime();

// ngvi::ad::per_example_gradients (one tape per TBB task, one recording + sweep per example)
// followed by the squared mean of the rows.
template <class Loss>
void w5_ngvi(benchmark::State& st, int nthreads, Loss loss) {
  const adb::MlpData& d = data().mlp;
  const Eigen::VectorXd theta = to_eigen(d.theta);
  ngvi::ad::RowMatrixXd G;
  Eigen::VectorXd diag;
  ngvi::ad::ParallelOptions options;
  options.threads = nthreads;
  auto call = [&] {
    ngvi::ad::per_example_gradients(loss, theta, d.N, G, options);
    diag = G.array().square().colwise().mean().transpose();
  };
  call();
  check_or_abort(st, std::max(rel_err(G, ref().r.w5_G), rel_err(diag, ref().r.w5_diag)), 0.0);
  for (auto _ : st) {
    call();
    benchmark::DoNotOptimize(diag.data());
    benchmark::ClobberMemory();
  }
}
const auto w5_loop_loss = [](const auto& th, Eigen::Index i) {
  return mlp_example_loss_loop(th, data().mlp, i);
};
void w5_ngvi_scalar_1t(benchmark::State& st) { w5_ngvi(st, 1, w5_loop_loss); }
void w5_ngvi_scalar_2t(benchmark::State& st) { w5_ngvi(st, 2, w5_loop_loss); }
NGVI_BENCH(w5_ngvi_scalar_1t, ADB_W5_1, "ngvi_scalar");
NGVI_BENCH(w5_ngvi_scalar_2t, ADB_W5_2, "ngvi_scalar")->UseRealTime();

// ---------------------------------------------------------------------------------------------
// nn: the model written with ngvi's DSL — nn::Supervised(Sequential{Dense(13, 50), Tanh,
// Dense(50, 1)}, GaussianFixedNoise(τ = 1), data) — whose θ layout is the peers'
// [W1 | b1 | w2 | b2] and whose gradients are those of ½Σ(y − f)² (the NLL's constants do not
// depend on θ). nn::per_example_gradients takes the batched (BackPACK-style) route: per block of
// `grain` examples one batched forward pass and one reverse sweep with θ as constants, then the
// outer products δᵢaᵢᵀ, and with its `squares` output the column sums of G², which give the VOGN
// diagonal. Checked against the analytic G and diagonal, and the losses against the analytic
// ½Σr² (+ N·½log 2π).
//   ngvi_nn       ParallelOptions{threads, grain}: the plain user call (a task_arena per call
//                 when threads > 1), the squares formed per block from the δs and inputs.
//   ngvi_nn_two_pass  the same, the diagonal by nn::squared_column_mean, a second pass over G.
//   ngvi_nn_arena the same as ngvi_nn inside a task_arena kept across calls (threads = 0: the
//                 arena's), as the analytic driver does.
// The N = 10 000 variant (workload W5_per_example_10k_*) measures the 2-vs-1-thread speed-up.

nn::Dataset w5_dataset(const adb::MlpData& d) {
  nn::Dataset data;
  data.X = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      d.X.data(), d.N, d.D);
  data.Y = Eigen::Map<const Eigen::VectorXd>(d.y.data(), d.N);
  return data;
}

using W5Model = nn::Supervised<nn::Sequential, nn::GaussianFixedNoise>;
W5Model w5_model(const adb::MlpData& d) {
  return W5Model(nn::Sequential{nn::Dense(d.D, d.H), nn::Tanh{}, nn::Dense(d.H, 1)},
                 nn::GaussianFixedNoise(1.0), w5_dataset(d));
}

// The analytic per-example matrix, its squared mean and ½Σr² for a data set.
struct W5Ref {
  std::vector<double> G, diag;
  double half_sse = 0;
};
W5Ref w5_reference(const adb::MlpData& d) {
  W5Ref r;
  adb::analytic::Mlp m(d);
  r.half_sse = m.forward(d.theta.data(), 0, d.N);
  r.G.resize(std::size_t(d.N) * d.P());
  m.per_example(d.theta.data(), 0, d.N, r.G.data());
  adb::sq_mean_rows(r.G, d.N, d.P(), r.diag);
  return r;
}

const adb::MlpData& w5_big() {
  static const adb::MlpData d = adb::make_mlp(10000, adb::MLP_D, adb::MLP_H, 5005);
  return d;
}
const W5Ref& w5_big_ref() {
  static const W5Ref r = w5_reference(w5_big());
  return r;
}

constexpr Eigen::Index w5_grain = 64;

void w5_nn(benchmark::State& st, const adb::MlpData& d, const W5Ref& ref, int nthreads,
           bool keep_arena, bool two_pass = false) {
  const W5Model model = w5_model(d);
  const Eigen::VectorXd theta = to_eigen(d.theta);
  ngvi::ad::RowMatrixXd G;
  Eigen::VectorXd diag, squares, losses;
  nn::ParallelOptions options{.threads = keep_arena ? 0 : nthreads, .grain = w5_grain};
  tbb::task_arena arena(nthreads);
  auto call = [&](Eigen::VectorXd* l) {
    auto body = [&] {
      if (two_pass) {
        nn::per_example_gradients(model, theta, G, options, l);
        diag = nn::squared_column_mean(G, options);
      } else {
        nn::per_example_gradients(model, theta, G, options, l, &squares);
        diag = squares / static_cast<double>(d.N);
      }
    };
    if (keep_arena)
      arena.execute(body);
    else
      body();
  };
  call(&losses);
  const double value = losses.sum() - d.N * 0.91893853320467274178;  // minus N·½log(2π)
  check_or_abort(st, std::max(rel_err(G, ref.G), rel_err(diag, ref.diag)),
                 rel_err_value(value, ref.half_sse));
  st.counters["grain"] = static_cast<double>(w5_grain);
  for (auto _ : st) {
    call(nullptr);
    benchmark::DoNotOptimize(diag.data());
    benchmark::ClobberMemory();
  }
}
const W5Ref& w5_small_ref() {
  static const W5Ref r = [] {
    W5Ref x;
    x.G = ref().r.w5_G;
    x.diag = ref().r.w5_diag;
    x.half_sse = ref().w2_f;
    return x;
  }();
  return r;
}
void w5_nn_1t(benchmark::State& st) { w5_nn(st, data().mlp, w5_small_ref(), 1, false); }
void w5_nn_2t(benchmark::State& st) { w5_nn(st, data().mlp, w5_small_ref(), 2, false); }
void w5_nn_arena_2t(benchmark::State& st) { w5_nn(st, data().mlp, w5_small_ref(), 2, true); }
void w5_nn_two_pass_1t(benchmark::State& st) {
  w5_nn(st, data().mlp, w5_small_ref(), 1, false, true);
}
NGVI_BENCH(w5_nn_1t, ADB_W5_1, "ngvi_nn");
NGVI_BENCH(w5_nn_two_pass_1t, ADB_W5_1, "ngvi_nn_two_pass");
NGVI_BENCH(w5_nn_2t, ADB_W5_2, "ngvi_nn")->UseRealTime();
NGVI_BENCH(w5_nn_arena_2t, ADB_W5_2, "ngvi_nn_arena")->UseRealTime();

// N = 10 000: the analytic reference (chunks of N/threads, as the peers' driver) and nn.
#define W5_10K_1 "W5_per_example_10k_1t"
#define W5_10K_2 "W5_per_example_10k_2t"
void w5_analytic_big(benchmark::State& st, int nthreads) {
  const adb::MlpData& d = w5_big();
  const int N = d.N, P = d.P();
  std::vector<double> G, diag;
  tbb::task_arena arena(nthreads);
  auto rows = [&](int n0, int n1) {
    adb::analytic::Mlp m(d);
    m.per_example(d.theta.data(), n0, n1 - n0, G.data());
  };
  adb::per_example_driver(N, P, nthreads, &arena, rows, G, diag, (N + nthreads - 1) / nthreads);
  check_or_abort(st, std::max(rel_err(G, w5_big_ref().G), rel_err(diag, w5_big_ref().diag)), 0.0);
  for (auto _ : st) {
    adb::per_example_driver(N, P, nthreads, &arena, rows, G, diag, (N + nthreads - 1) / nthreads);
    benchmark::DoNotOptimize(diag.data());
    benchmark::ClobberMemory();
  }
}
void w5_analytic_big_1t(benchmark::State& st) { w5_analytic_big(st, 1); }
void w5_analytic_big_2t(benchmark::State& st) { w5_analytic_big(st, 2); }
void w5_nn_big_1t(benchmark::State& st) { w5_nn(st, w5_big(), w5_big_ref(), 1, false); }
void w5_nn_big_2t(benchmark::State& st) { w5_nn(st, w5_big(), w5_big_ref(), 2, false); }
NGVI_BENCH(w5_analytic_big_1t, W5_10K_1, "analytic")->UseRealTime();
NGVI_BENCH(w5_analytic_big_2t, W5_10K_2, "analytic")->UseRealTime();
NGVI_BENCH(w5_nn_big_1t, W5_10K_1, "ngvi_nn")->UseRealTime();
NGVI_BENCH(w5_nn_big_2t, W5_10K_2, "ngvi_nn")->UseRealTime();

}  // namespace
