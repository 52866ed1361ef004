// VOGN over MPI ranks: one epoch on a synthetic regression problem of N examples (13 inputs,
// N = 200 000 unless --rows says otherwise), a 13-50-1 tanh network (P = 751), its minibatch sums
// through a distributed::MpiReducer. Run under mpirun with 1 and 2 ranks (scripts/bench_vi_mpi.sh
// at N = 200 000; scripts/bench_vi_scaling.sh over N = 10^4 ... 10^7):
//   mpirun -np R build/bench/bench/bench_vi_mpi [--threads T] [--rows N]
// N may be written 1e7. The data are generated once per process, before any timing (every rank
// holds all N rows: 8·14·N bytes, 1.1 GB at N = 10^7).
// Reported per benchmark (rank 0 prints; the other ranks run the same iterations silently —
// a fixed iteration count keeps every rank's collectives in step):
//   time            the epoch's steps (vi::Counters::seconds_total: no history row)
//   steps           minibatch steps in the epoch (ceil(N / M))
//   rows            N
//   ms_per_step     time / steps
//   ns_per_row      time / N; constant in N when the epoch is linear in N
//   blocks_ms       per step, this rank's own blocks (per-example gradients and their squares)
//   exchange_ms     per step, the status and block-sum exchange, waiting for the slowest rank
//   bytes_per_step  block sums this rank sent plus received per step (K·2P doubles in all)
//   start_nll_ms    the fit's starting NLL over all N rows through the reducer, before the first
//                   step: not in time, and kept out of blocks_ms, exchange_ms and bytes_per_step
// The projections in docs/benchmarks.md ("The fit loop over MPI", "VOGN's epoch against N") are
// made from these figures.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

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
Eigen::Index rows = 200000;

// y = tanh(x·w) + 0.1·ε with x, ε ~ N(0, 1): the same data on every rank (same seed).
nn::Dataset synthetic(Eigen::Index n, Eigen::Index d) {
  std::mt19937_64 gen(20261124);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(n, d), y(n, 1);
  Eigen::VectorXd w(d);
  for (Eigen::Index j = 0; j < d; ++j) w(j) = normal(gen) / std::sqrt(double(d));
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) x(i, j) = normal(gen);
  for (Eigen::Index i = 0; i < n; ++i) y(i, 0) = std::tanh(x.row(i).dot(w)) + 0.1 * normal(gen);
  return nn::Dataset{std::move(x), std::move(y)};
}

const auto& problem() {
  static const auto model = nn::Supervised(nn::Sequential::mlp({13, 50, 1}, nn::Tanh{}),
                                           nn::GaussianFixedNoise(10.0), synthetic(rows, 13));
  return model;
}

// The MpiReducer of the fit, its counters split into the steps' sums and the others: fit sums
// the starting NLL over all N examples through the reducer once before the first step (a sum of
// length 1; a VOGN step's sums have length P + 1), outside Counters::seconds_total.
class StepSums final : public vi::BatchReducer {
 public:
  StepSums(MPI_Comm comm, Eigen::Index blocks) : inner_(comm, blocks) {}

  Eigen::VectorXd sum(std::span<const Eigen::Index> batch, Eigen::Index length,
                      const ad::ParallelOptions& parallel,
                      const vi::AddContributions& add) const override {
    const distributed::MpiReducerStats before = inner_.stats();
    Eigen::VectorXd out = inner_.sum(batch, length, parallel, add);
    if (length == 1) {
      const distributed::MpiReducerStats& after = inner_.stats();
      other_.sums += after.sums - before.sums;
      other_.seconds_blocks += after.seconds_blocks - before.seconds_blocks;
      other_.seconds_exchange += after.seconds_exchange - before.seconds_exchange;
      other_.bytes_sent += after.bytes_sent - before.bytes_sent;
      other_.bytes_received += after.bytes_received - before.bytes_received;
    }
    return out;
  }

  // The counters of the steps' sums only.
  distributed::MpiReducerStats steps() const {
    distributed::MpiReducerStats s = inner_.stats();
    s.sums -= other_.sums;
    s.seconds_blocks -= other_.seconds_blocks;
    s.seconds_exchange -= other_.seconds_exchange;
    s.bytes_sent -= other_.bytes_sent;
    s.bytes_received -= other_.bytes_received;
    return s;
  }
  // The counters of the other sums (the starting NLL).
  const distributed::MpiReducerStats& others() const { return other_; }

 private:
  distributed::MpiReducer inner_;
  mutable distributed::MpiReducerStats other_;
};

// One VOGN epoch at minibatch state.range(0) over K = state.range(1) blocks.
void vogn_epoch(benchmark::State& state) {
  const auto& model = problem();
  const auto reducer = std::make_shared<StepSums>(world, state.range(1));
  vi::VognOptions o;
  o.loop.epochs = 1;
  o.loop.minibatch = state.range(0);
  o.loop.elbo_samples = 0;
  o.loop.threads = threads;
  o.loop.reducer = reducer;
  long long steps = 0;
  double seconds = 0.0;
  for (auto _ : state) {
    vi::Rng rng(1);
    const auto r = vi::fit(model, o, rng);
    state.SetIterationTime(r.counters.seconds_total);
    steps = r.counters.steps;
    seconds = r.counters.seconds_total;
  }
  const distributed::MpiReducerStats s = reducer->steps();
  const auto sums = static_cast<double>(s.sums);
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["ms_per_step"] = 1e3 * seconds / static_cast<double>(steps);
  state.counters["ns_per_row"] = 1e9 * seconds / static_cast<double>(rows);
  state.counters["blocks_ms"] = 1e3 * s.seconds_blocks / sums;
  state.counters["exchange_ms"] = 1e3 * s.seconds_exchange / sums;
  state.counters["bytes_per_step"] = (s.bytes_sent + s.bytes_received) / sums;
  state.counters["start_nll_ms"] =
      1e3 * (reducer->others().seconds_blocks + reducer->others().seconds_exchange);
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
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--threads") threads = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--rows") rows = static_cast<Eigen::Index>(std::stod(argv[i + 1]));
  }
  if (threads < 1 || rows < 4096) {
    if (mpi.rank() == 0)
      std::fprintf(stderr,
                   "bench_vi_mpi: needs --threads >= 1 and --rows >= 4096 (the largest M); got "
                   "--threads %d, --rows %lld\n",
                   threads, static_cast<long long>(rows));
    return 2;
  }
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
