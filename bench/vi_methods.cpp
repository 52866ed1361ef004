// bench_vi_methods: one step and one epoch of each natural-gradient method on Boston housing,
// the workload of the PyTorch reference (../shared/peers/vi, bench.py and RESULTS.md).
//
// Same data (split 0 of the standard splits: N = 455, D = 13, standardised with the training
// statistics), same networks (13-50-1 ReLU for VOGN, IVON, noisy Adam, BBB and MAP; 13-10-1
// ReLU with a full covariance for VON, P = 151), same minibatch M = 32 (an epoch is 15 steps,
// the last of 7 examples), one posterior sample per step, one thread (the `/threads:2` rows
// aside: the same work with the exact Hessian's sweeps on two threads, judged by wall time). The
// hyperparameters are the reference's tuned ones (τ = 10, δ = 0.1; VOGN α = β = 0.01; VON α = 0.1,
// β = 0.01), so a step does the same arithmetic as the reference's. Each benchmark keeps one method
// object and steps it on: a benchmark iteration is one step (or one epoch) of a running fit, as in
// the reference's training loop. A method whose state stops being finite aborts the run.
//
// Rows named like the reference's kernels, so scripts/bench_vi.sh can put the two side by side:
//   VI/pe_grad_H50_M32       per-example gradients of one minibatch (what a VOGN step is made of)
//   VI/vogn_step_H50_M32     one VOGN step (diagonal, empirical Fisher)   VI/vogn_epoch_H50
//   VI/ivon_step_H50_M32     VI/ivon_epoch_H50     VI/noisy_adam_epoch_H50
//   VI/bbb_epoch_H50         VI/map_epoch_H50
//   VI/hessian_H10_M32       the exact 151×151 minibatch Hessian (…/threads:2: its 19 sweeps on
//                            two threads, the same bits)
//   VI/eigh_P151             a symmetric eigendecomposition of a 151×151 matrix (Eigen)
//   VI/clip_P151             VON's eigenvalue clipping of that matrix at 0 (clip_eigenvalues_below:
//                            a tridiagonalisation and the clipped eigenpairs only)
//   VI/von_step_H10_M32/<remedy>, VI/von_epoch_H10/<remedy>, remedy = clip (eigenvalue clipping
//                            of Ĥ, the reference's), damp (Cholesky check, β halved on failure)
//                            or ggn (Cholesky check, that step's GGN on failure); `ngvi`
//                            uses clip by default; VI/von_epoch_H10/clip/threads:2 with
//                            loop.threads = 2
//   VI/slang_epoch_H50/rank:L  one SLANG epoch (Mishkin et al. 2018; precision UUᵀ + diag(d) of
//   rank
//                            L = 1, 8, 32; VOGN's α, β and curvature, so L = 0 would be VOGN's
//                            epoch) on the 13-50-1 network; VI/slang_epoch_H10/rank:8 on VON's
//                            13-10-1 network
//   VI/laplace_ggn_H50       the full Laplace approximation of the 13-50-1 network (P = 751) on the
//                            whole training set: the N = 455 examples' GGN, Λ = GGN + δI and its
//                            Cholesky (inference/laplace.hpp), at the initial θ of the fit
//   VI/last_layer_laplace_H50  the last-layer Laplace of the same network at the same θ (P_S = 51,
//                            inference/subnetwork_laplace.hpp): what it saves against the full one
//   VI/evidence_step_H50     one step on the evidence's hyperparameters at that θ
//                            (inference/evidence_hyperparameters.hpp): the exact gradient of log Z
//                            in (log δ_b, log τ), a P×P Cholesky and its inverse factor (P = 751;
//                            map_laplace --hyperparameters evidence takes 20 per update), the
//                            curvature computed once beforehand
//   VI/last_layer_evidence_H50  MacKay's fixed point of the last-layer approximation's evidence
//                            over (δ, τ) (P_S = 51, vi::optimize_subnetwork_evidence)
//   VI/vogn_epoch_H50/prior:carried, VI/von_epoch_H10/clip/prior:carried  the same epochs with
//                            an earlier fit's posterior as the prior (continual learning,
//                            inference/gaussian_prior.hpp): VOGN's diagonal, VON's full
//                            precision, each its own method's posterior after one epoch
//   VI/pool_variance_H10     an active-learning round's scoring of its pool: the Monte-Carlo
//                            predictive (100 draws) of a VOGN posterior over the 455 rows of
//                            Boston's training split, the 13-10-1 network of the paper's protocol
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>
#include <benchmark/benchmark.h>
#include <io/uci_folder.hpp>

#include <inference/inference.hpp>
#include <inference/problems/uci_regression.hpp>
#include <inference/subnetwork_laplace.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/per_example.hpp>

namespace {

using namespace ngvi;
using Model = vi::problems::UciRegression::model_type;

constexpr Eigen::Index kMinibatch = 32;
constexpr double kNoisePrecision = 10.0;  // τ, standardised units (reference, stage A/B)
constexpr double kPriorPrecision = 0.1;   // δ (reference's tuned value)
constexpr std::uint64_t kSeed = 20261123;

// The Boston folder: $NGVI_BOSTON_DIR, else the one CMake found (NGVI_BENCH_BOSTON_DIR).
std::filesystem::path boston_folder() {
  if (const char* env = std::getenv("NGVI_BOSTON_DIR")) return env;
  return NGVI_BENCH_BOSTON_DIR;
}

const Model& boston(Eigen::Index hidden) {
  static const auto make = [](Eigen::Index h) {
    return ngvi::io::uci_regression_problem(
               {.folder = boston_folder(),
                .problem = {.hidden_units = h, .noise_precision = kNoisePrecision}})
        .model;
  };
  static const Model h50 = make(50), h10 = make(10);
  return hidden == 50 ? h50 : h10;
}

vi::LoopOptions loop_on(int threads) {
  vi::LoopOptions loop;
  loop.minibatch = kMinibatch;
  loop.threads = threads;
  return loop;
}
vi::LoopOptions one_thread_loop() { return loop_on(1); }

// Steps `method` over `steps` minibatches drawn like the fit loop draws them, its per-example
// work on `parallel`'s threads.
template <class Method>
void run_steps(Method& method, vi::MinibatchSampler& sampler, vi::Rng& rng, Eigen::Index& t,
               Eigen::Index steps, const ad::ParallelOptions& parallel, vi::Counters& c) {
  for (Eigen::Index s = 0; s < steps; ++s) {
    vi::StepInput in;
    in.batch = sampler.next(rng);
    in.iteration = ++t;
    in.num_examples = sampler.num_examples();
    in.parallel = parallel;
    method.step(in, rng, c);
  }
}

// One benchmark iteration = `steps` steps of a running fit of method M from `options`.
template <template <class> class MethodOf, class Options>
void bench_method(benchmark::State& state, const Model& model, const Options& options,
                  Eigen::Index steps) {
  vi::Rng rng(kSeed);
  MethodOf<Model> method(model, options, rng);
  vi::MinibatchSampler sampler(model.num_examples(), kMinibatch);
  vi::Counters c;
  Eigen::Index t = 0;
  try {
    const ad::ParallelOptions parallel = ad::parallel_options(options.loop);
    for (auto _ : state) run_steps(method, sampler, rng, t, steps, parallel, c);
  } catch (const std::exception& e) {  // a remedy that gave up (VON ggn_fallback on a diverged μ)
    state.SkipWithError(e.what());
    return;
  }
  if (const auto bad = method.first_non_finite()) {
    state.SkipWithError(("the fit stopped being finite at parameter " + std::to_string(bad->index) +
                         " of " + bad->quantity)
                            .c_str());
    return;
  }
  state.counters["steps"] = static_cast<double>(t);
  double remedies = 0.0;
  for (const auto& [name, n] : c.remedies) remedies += static_cast<double>(n);
  state.counters["remedies"] = remedies;
}

Eigen::Index steps_per_epoch(const Model& model) {
  return (model.num_examples() + kMinibatch - 1) / kMinibatch;
}

template <class Model_>
using Vogn = vi::Vogn<Model_, vi::Covariance::diagonal>;
template <class Model_>
using Von = vi::Von<Model_, vi::Covariance::full>;

vi::VognOptions vogn_options() {
  vi::VognOptions o;
  o.loop = one_thread_loop();
  o.prior_precision = kPriorPrecision;
  o.mean_rate = vi::Schedule{0.01};
  o.precision_rate = vi::Schedule{0.01};
  return o;
}

vi::VonOptions von_options(vi::VonRemedy remedy, int threads = 1) {
  vi::VonOptions o;
  o.loop = loop_on(threads);
  o.prior_precision = kPriorPrecision;
  o.mean_rate = vi::Schedule{0.1};
  o.precision_rate = vi::Schedule{0.01};
  o.remedy = remedy;
  return o;
}

vi::IvonOptions ivon_options() {
  vi::IvonOptions o;
  o.loop = one_thread_loop();
  o.prior_precision = kPriorPrecision;
  return o;
}

// δ = 1 and f₀ = 1 as `ngvi uci` runs it: from Algorithm 1's f₀ = 0 the first draws have the
// prior's variance 1/δ and the mean is non-finite within a few iterations on this network
// (inference/noisy_adam.hpp).
vi::NoisyAdamOptions noisy_adam_options() {
  vi::NoisyAdamOptions o;
  o.loop = one_thread_loop();
  o.prior_precision = 1.0;
  o.fisher_init = 1.0;
  return o;
}

vi::BayesByBackpropOptions bbb_options() {
  vi::BayesByBackpropOptions o;
  o.loop = one_thread_loop();
  o.prior_precision = kPriorPrecision;
  return o;
}

vi::SlangOptions slang_options(Eigen::Index rank) {
  vi::SlangOptions o;
  o.loop = one_thread_loop();
  o.prior_precision = kPriorPrecision;
  o.mean_rate = vi::Schedule{0.01};
  o.precision_rate = vi::Schedule{0.01};
  o.rank = rank;
  return o;
}

vi::MapOptions map_options() {
  vi::MapOptions o;
  o.loop = one_thread_loop();
  o.prior_precision = kPriorPrecision;
  return o;
}

// The first minibatch of the fit loop's sampler and the model's initial θ.
struct FirstBatch {
  std::vector<Eigen::Index> batch;
  Eigen::VectorXd theta;
};
FirstBatch first_batch(const Model& model) {
  vi::Rng rng(kSeed);
  vi::MinibatchSampler sampler(model.num_examples(), kMinibatch);
  const std::span<const Eigen::Index> b = sampler.next(rng);
  return {std::vector<Eigen::Index>(b.begin(), b.end()), vi::initial_mean(model, rng)};
}

void pe_grad(benchmark::State& state) {
  const Model& model = boston(50);
  const FirstBatch fb = first_batch(model);
  ad::RowMatrixXd G;
  for (auto _ : state) {
    nn::per_example_gradients(model, fb.theta, fb.batch, G, ad::ParallelOptions{1, 16});
    benchmark::DoNotOptimize(G.data());
  }
}

void hessian(benchmark::State& state, int threads) {
  const Model& model = boston(10);
  const FirstBatch fb = first_batch(model);
  for (auto _ : state) {
    Eigen::MatrixXd h = nn::exact_hessian(model, fb.theta, fb.batch, {.threads = threads});
    benchmark::DoNotOptimize(h.data());
  }
}

void eigh(benchmark::State& state) {
  const Model& model = boston(10);
  const FirstBatch fb = first_batch(model);
  const Eigen::MatrixXd h = nn::exact_hessian(model, fb.theta, fb.batch, {.threads = 1});
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(h.rows());
  for (auto _ : state) {
    solver.compute(h);
    benchmark::DoNotOptimize(solver.eigenvalues().data());
  }
}

void clip(benchmark::State& state) {
  const Model& model = boston(10);
  const FirstBatch fb = first_batch(model);
  const Eigen::MatrixXd h = nn::exact_hessian(model, fb.theta, fb.batch, {.threads = 1});
  Eigen::MatrixXd clipped;
  for (auto _ : state) {
    clipped = h;
    benchmark::DoNotOptimize(vi::clip_eigenvalues_below(clipped, 0.0));
  }
}

// The full (GGN) and the last-layer Laplace approximation at the fit's initial θ, one thread: the
// cost does not depend on θ (both are N Jacobians, a product and a Cholesky).
void laplace_full(benchmark::State& state) {
  const Model& model = boston(50);
  const FirstBatch fb = first_batch(model);
  for (auto _ : state) {
    const auto la =
        vi::laplace(model, fb.theta, {.prior_precision = kPriorPrecision, .threads = 1});
    benchmark::DoNotOptimize(la.log_marginal_likelihood);
  }
  state.counters["P"] = static_cast<double>(model.num_params());
}

void laplace_last_layer(benchmark::State& state) {
  const Model& model = boston(50);
  const FirstBatch fb = first_batch(model);
  Eigen::Index ps = 0;
  for (auto _ : state) {
    const vi::SubnetworkLaplace la =
        vi::last_layer_laplace(model, fb.theta, {.prior_precision = kPriorPrecision, .threads = 1});
    benchmark::DoNotOptimize(la.log_marginal_likelihood);
    ps = static_cast<Eigen::Index>(la.indices.size());
  }
  state.counters["P"] = static_cast<double>(ps);
}

void evidence_step(benchmark::State& state) {
  const Model& model = boston(50);
  const FirstBatch fb = first_batch(model);
  const vi::EvidenceTerms t = vi::evidence_terms(model, fb.theta);
  const vi::EvidenceHyperparameters h{
      Eigen::VectorXd::Constant(static_cast<Eigen::Index>(t.blocks.size()), kPriorPrecision),
      kNoisePrecision};
  for (auto _ : state) {
    const vi::EvidenceGradient g = vi::evidence_gradient(t, h);
    benchmark::DoNotOptimize(g.log_marginal_likelihood);
  }
  state.counters["P"] = static_cast<double>(model.num_params());
}

void last_layer_evidence(benchmark::State& state) {
  const Model& model = boston(50);
  const FirstBatch fb = first_batch(model);
  const vi::SubnetworkLaplace la =
      vi::last_layer_laplace(model, fb.theta, {.prior_precision = kPriorPrecision, .threads = 1});
  int iterations = 0;
  for (auto _ : state) {
    const vi::SubnetworkEvidenceOptimum o = vi::optimize_subnetwork_evidence(la);
    benchmark::DoNotOptimize(o.log_marginal_likelihood);
    iterations = o.iterations;
  }
  state.counters["iterations"] = iterations;
}

// The posterior after one epoch of the method from `options`: as the prior of a second fit
// (continual learning), a realistic mean and precision rather than the isotropic one.
template <template <class> class MethodOf, class Options>
auto one_epoch_posterior(const Model& model, const Options& options) {
  vi::Rng rng(kSeed);
  MethodOf<Model> method(model, options, rng);
  vi::MinibatchSampler sampler(model.num_examples(), kMinibatch);
  vi::Counters c;
  Eigen::Index t = 0;
  run_steps(method, sampler, rng, t, steps_per_epoch(model), ad::parallel_options(options.loop), c);
  return method.posterior();
}

template <template <class> class MethodOf, class Options>
Options with_carried_prior(Options options, const Model& model) {
  options.prior = vi::prior_from(one_epoch_posterior<MethodOf>(model, options));
  return options;
}

void pool_variance(benchmark::State& state) {
  const Model& model = boston(10);
  const vi::DiagonalGaussian q = one_epoch_posterior<Vogn>(model, vogn_options());
  vi::PredictiveOptions po;
  po.samples = 100;
  po.threads = 1;
  const nn::Standardizer identity = nn::Standardizer::identity(1);
  vi::Rng rng(kSeed);
  for (auto _ : state) {
    const vi::RegressionPredictive p = vi::mc_regression_predictive(model, q, identity, rng, po);
    benchmark::DoNotOptimize(p.variance.data());
  }
  state.counters["pool"] = static_cast<double>(model.num_examples());
}

void register_all() {
  const auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime()
        ->UseRealTime();
  };
  const Eigen::Index e50 = steps_per_epoch(boston(50)), e10 = steps_per_epoch(boston(10));
  reg("VI/pe_grad_H50_M32", pe_grad);
  reg("VI/vogn_step_H50_M32",
      [](benchmark::State& s) { bench_method<Vogn>(s, boston(50), vogn_options(), 1); });
  reg("VI/vogn_epoch_H50",
      [e50](benchmark::State& s) { bench_method<Vogn>(s, boston(50), vogn_options(), e50); });
  reg("VI/vogn_epoch_H50/prior:carried", [e50](benchmark::State& s) {
    bench_method<Vogn>(s, boston(50), with_carried_prior<Vogn>(vogn_options(), boston(50)), e50);
  });
  reg("VI/pool_variance_H10", pool_variance);
  for (const Eigen::Index rank : {1, 8, 32})
    reg("VI/slang_epoch_H50/rank:" + std::to_string(rank), [e50, rank](benchmark::State& s) {
      bench_method<vi::Slang>(s, boston(50), slang_options(rank), e50);
    });
  reg("VI/slang_epoch_H10/rank:8", [e10](benchmark::State& s) {
    bench_method<vi::Slang>(s, boston(10), slang_options(8), e10);
  });
  reg("VI/ivon_step_H50_M32",
      [](benchmark::State& s) { bench_method<vi::Ivon>(s, boston(50), ivon_options(), 1); });
  reg("VI/ivon_epoch_H50",
      [e50](benchmark::State& s) { bench_method<vi::Ivon>(s, boston(50), ivon_options(), e50); });
  reg("VI/noisy_adam_epoch_H50", [e50](benchmark::State& s) {
    bench_method<vi::NoisyAdam>(s, boston(50), noisy_adam_options(), e50);
  });
  reg("VI/bbb_epoch_H50", [e50](benchmark::State& s) {
    bench_method<vi::BayesByBackprop>(s, boston(50), bbb_options(), e50);
  });
  reg("VI/map_epoch_H50",
      [e50](benchmark::State& s) { bench_method<vi::Map>(s, boston(50), map_options(), e50); });
  reg("VI/hessian_H10_M32", [](benchmark::State& s) { hessian(s, 1); });
  reg("VI/hessian_H10_M32/threads:2", [](benchmark::State& s) { hessian(s, 2); });
  reg("VI/eigh_P151", eigh);
  reg("VI/clip_P151", clip);
  reg("VI/laplace_ggn_H50", laplace_full);
  reg("VI/last_layer_laplace_H50", laplace_last_layer);
  reg("VI/evidence_step_H50", evidence_step);
  reg("VI/last_layer_evidence_H50", last_layer_evidence);
  for (const auto& [label, remedy] : {std::pair{"clip", vi::VonRemedy::clip_eigenvalues},
                                      std::pair{"damp", vi::VonRemedy::damp_step},
                                      std::pair{"ggn", vi::VonRemedy::ggn_fallback}}) {
    const vi::VonOptions o = von_options(remedy);
    reg(std::string("VI/von_step_H10_M32/") + label,
        [o](benchmark::State& s) { bench_method<Von>(s, boston(10), o, 1); });
    reg(std::string("VI/von_epoch_H10/") + label,
        [o, e10](benchmark::State& s) { bench_method<Von>(s, boston(10), o, e10); });
  }
  reg("VI/von_epoch_H10/clip/prior:carried", [e10](benchmark::State& s) {
    const vi::VonOptions o = von_options(vi::VonRemedy::clip_eigenvalues);
    bench_method<Von>(s, boston(10), with_carried_prior<Von>(o, boston(10)), e10);
  });
  reg("VI/von_epoch_H10/clip/threads:2", [e10](benchmark::State& s) {
    bench_method<Von>(s, boston(10), von_options(vi::VonRemedy::clip_eigenvalues, 2), e10);
  });
}

}  // namespace

int main(int argc, char** argv) {
  try {
    register_all();
  } catch (const std::exception& e) {
    std::cerr << "bench_vi_methods: " << e.what() << '\n';
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
