#!/usr/bin/env bash
# VOGN's epoch against the number of rows N (issue 25 §2): bench_vi_mpi (bench/vi_mpi_scale.cpp)
# on N = 10^4, 10^5, 10^6 and 10^7 synthetic rows (13 inputs, 13-50-1 tanh network, K = 16 blocks),
# minibatch M = 256 and 4096, each under 1 rank × 1 thread, 1 rank × 2 threads and 2 ranks ×
# 1 thread; 3 repetitions of one epoch each. Prints one Markdown table (scripts/
# bench_vi_scaling_table.py): epoch time, steps, time per step and per row, the linearity ratio,
# the speed-up over 1 × 1, the time per step of the rank's own blocks and of the exchange, and the
# bytes per step. docs/benchmarks.md ("VOGN's epoch against N") projects 8, 64 and 512 ranks from
# these figures.
#
# Run it on a quiet machine (the load average is printed before and after); about 3 minutes on
# the idle 2-vCPU host. Every rank holds all N rows: 1.1 GB per rank at N = 10^7, generated once
# per process and not timed. Needs Open MPI (scripts/install-deps.sh installs it).
# Environment: NGVI_BENCH_SKIP_BUILD=1 reuses the build; NGVI_BENCH_BUILD_DIR (default
# build/bench) is where bench/bench_vi_mpi is; NGVI_SCALING_ROWS (default "1e4 1e5 1e6 1e7") and
# NGVI_SCALING_CONFIGS (default "1x1 1x2 2x1", ranks x threads) choose the grid. Further arguments
# go to the benchmark (e.g. --benchmark_filter='M:4096'). The JSON files and the table
# (scaling.md) go to $NGVI_BENCH_BUILD_DIR/scaling/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build="${NGVI_BENCH_BUILD_DIR:-build/bench}"
if [[ "${NGVI_BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/install-deps.sh
  cmake --preset bench
  cmake --build --preset bench --target bench_vi_mpi
fi
exe="$build/bench/bench_vi_mpi"
out="$build/scaling"
mkdir -p "$out"
rm -f "$out"/*.json
# Open MPI refuses to run as root (CI, containers) unless told that this is intended; it binds
# each rank to one core unless told not to (--bind-to none), which would leave a rank's second
# thread on the same core as its first.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u)"
echo "load average before: $load_before"
files=()
for n in ${NGVI_SCALING_ROWS:-1e4 1e5 1e6 1e7}; do
  for config in ${NGVI_SCALING_CONFIGS:-1x1 1x2 2x1}; do
    ranks="${config%x*}"
    threads="${config#*x}"
    file="$out/${n}_${ranks}x${threads}.json"
    echo "== N = $n, $ranks rank(s) x $threads thread(s)" >&2
    start=$SECONDS
    mpirun --oversubscribe --bind-to none -np "$ranks" "$exe" --rows "$n" --threads "$threads" \
      --benchmark_format=json "$@" >"$file"
    echo "   $((SECONDS - start)) s wall (data generation included)" >&2
    files+=("$file")
  done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 scripts/bench_vi_scaling_table.py --load "$load_before" "$load_after" "${files[@]}" |
  tee "$out/scaling.md"
