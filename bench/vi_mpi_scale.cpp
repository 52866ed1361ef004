// VOGN over MPI ranks: one epoch on a synthetic regression problem of 200 000 examples (13
// inputs, a 13-50-1 tanh network, P = 751), its minibatch sums through a distributed::MpiReducer.
// Run under mpirun with 1 and 2 ranks (scripts/bench_vi_mpi.sh):
//   mpirun -np R build/bench/bench/bench_vi_mpi [--threads T]
// Reported per benchmark (rank 0 prints; the other ranks run the same iterations silently —
// a fixed iteration count keeps every rank's collectives in step):
//   time            the epoch's steps (vi::Counters::seconds_total: no history row)
//   steps           minibatch steps in the epoch
//   blocks_ms       per step, this rank's own blocks (per-example gradients and their squares)
//   exchange_ms     per step, the status and block-sum exchange, waiting for the slowest rank
//   bytes_per_step  block sums this rank sent plus received per step (K·2P doubles in all)
// The projections in docs/benchmarks.md ("The fit loop over MPI") are made from these figures.
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include <Eigen/Core>
#include <benchmark/benchmark.h>
#include <distributed/distributed.hpp>

#include <inference/vogn.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace {

using namespace ngvi;

MPI_Comm world = MPI_COMM_WORLD;
int threads = 1;

// y = tanh(x·w) + 0.1·ε with x, ε ~ N(0, 1): the same data on every rank (same seed).
nn::Dataset synthetic(Eigen::Index n, Eigen::Index d) {
  std::mt19937_64 gen(20261124);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(n, d);
  Eigen::VectorXd w(d), y(n);
  for (Eigen::Index j = 0; j < d; ++j) w(j) = normal(gen) / std::sqrt(double(d));
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) x(i, j) = normal(gen);
  for (Eigen::Index i = 0; i < n; ++i) y(i) = std::tanh(x.row(i).dot(w)) + 0.1 * normal(gen);
  return nn::Dataset{x, y};
}

const auto& problem() {
  static const auto model = nn::Supervised(nn::Sequential::mlp({13, 50, 1}, nn::Tanh{}),
                                           nn::GaussianFixedNoise(10.0), synthetic(200000, 13));
  return model;
}

// One VOGN epoch at minibatch state.range(0) over K = state.range(1) blocks.
void vogn_epoch(benchmark::State& state) {
  const auto& model = problem();
  const auto reducer = std::make_shared<distributed::MpiReducer>(world, state.range(1));
  vi::VognOptions o;
  o.loop.epochs = 1;
  o.loop.minibatch = state.range(0);
  o.loop.elbo_samples = 0;
  o.loop.threads = threads;
  o.loop.reducer = reducer;
  long long steps = 0;
  for (auto _ : state) {
    vi::Rng rng(1);
    const auto r = vi::fit(model, o, rng);
    state.SetIterationTime(r.counters.seconds_total);
    steps = r.counters.steps;
  }
  const distributed::MpiReducerStats& s = reducer->stats();
  const auto sums = static_cast<double>(s.sums);
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["blocks_ms"] = 1e3 * s.seconds_blocks / sums;
  state.counters["exchange_ms"] = 1e3 * s.seconds_exchange / sums;
  state.counters["bytes_per_step"] = (s.bytes_sent + s.bytes_received) / sums;
  state.counters["ranks"] = distributed::size_of(world);
  state.counters["threads"] = threads;
}

BENCHMARK(vogn_epoch)
    ->ArgsProduct({{256, 4096}, {16}})
    ->ArgNames({"M", "K"})
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(false)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Prints nothing: the reporter of ranks other than 0.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  distributed::MpiSession mpi(argc, argv);
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--threads") threads = std::atoi(argv[i + 1]);
  benchmark::Initialize(&argc, argv);
  problem();  // build the data before any timing
  if (mpi.rank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    Silent silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  return 0;
}
