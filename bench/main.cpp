// bench_ad_workloads: ngvi against the hand-written analytic references on the peers' AD
// workloads W1–W6 and the curvature workload W7, in one binary and one run (see bench/README.md and
// scripts/bench.sh).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
