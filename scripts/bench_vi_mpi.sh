#!/usr/bin/env bash
# Times one VOGN epoch on 200 000 synthetic examples (13-50-1) with its minibatch sums over MPI
# ranks (bench_vi_mpi, bench/vi_mpi_scale.cpp): 1 rank × 1 thread, 1 rank × 2 threads and
# 2 ranks × 1 thread, at minibatch 256 and 4096, with the time per step split into the rank's
# own blocks and the exchange, and the bytes each rank sends and receives per step. These are
# the figures the projections of docs/benchmarks.md ("The fit loop over MPI") start from.
#
# Run it on a quiet machine (the load average is printed before and after). Needs Open MPI
# (scripts/install-deps.sh installs it). NGVI_BENCH_SKIP_BUILD=1 reuses the build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ "${NGVI_BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/install-deps.sh
  cmake --preset bench
  cmake --build --preset bench --target bench_vi_mpi
fi
exe="build/bench/bench/bench_vi_mpi"
# Open MPI refuses to run as root (CI, containers) unless told that this is intended; it binds
# each rank to one core unless told not to (--bind-to none), which would leave a rank's second
# thread on the same core as its first.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for config in "1 1" "1 2" "2 1"; do
  read -r ranks threads <<<"$config"
  echo "== $ranks rank(s) x $threads thread(s)"
  mpirun --oversubscribe --bind-to none -np "$ranks" "$exe" --threads "$threads" \
    --benchmark_counters_tabular=true "$@"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
