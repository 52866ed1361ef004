#!/usr/bin/env bash
# Builds and runs ngvi's AD benchmarks against the hand-written analytic references (the peer
# harness's workloads W1–W6, bench/reference/), then prints the ratio table.
#
# Installs the Debian packages it needs (scripts/install-deps.sh), configures and builds the
# `bench` preset (build/bench), runs bench_ad_workloads single-threaded (W5's 2-thread cell
# aside) with Google Benchmark's JSON output in build/bench/results.json, and prints the Markdown
# table that bench_table makes of it (also saved as build/bench/results.md).
#
# Extra arguments go to the benchmark program, e.g.
#   bash scripts/bench.sh --benchmark_filter='W2|W3'
# Environment:
#   NGVI_BENCH_REPETITIONS   repetitions per benchmark (default 5; the table uses the median)
#   NGVI_BENCH_MIN_TIME      seconds per repetition (default 0.2)
#   NGVI_BENCH_STAT          median (default), min or mean, over the repetitions
#   NGVI_BENCH_SKIP_BUILD=1  reuse the existing build
#   NGVI_BENCH_NO_MALLOC_TUNE=1  run with glibc's default malloc settings (see below)
#
# The machine's 2 vCPUs are shared: timings are noisy whenever other jobs run (the table states
# the load average). Process CPU time is far less affected than wall time, so targets are judged
# on CPU-time ratios; repetitions are randomly interleaved across benchmarks so that a burst of
# load does not hit one side of a ratio only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ "${NGVI_BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/install-deps.sh
  cmake --preset bench
  cmake --build --preset bench --target bench_ad_workloads bench_table
fi

bin="build/bench/bench"
out="build/bench/results.json"

# Same malloc settings as the peer harness (peers/ad/run_all.sh sets them for every program):
# large buffers stay on the heap instead of being mmap'ed and zero-filled on every call, so
# the analytic references' temporaries cost what they cost in the peers' figures.
if [[ "${NGVI_BENCH_NO_MALLOC_TUNE:-0}" != 1 ]]; then
  export GLIBC_TUNABLES="glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824"
fi

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
if awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
  echo "bench.sh: warning: load average is ${load_before} on $(nproc) CPUs; timings will be noisy" >&2
fi

"$bin/bench_ad_workloads" \
  --benchmark_out="$out" --benchmark_out_format=json \
  --benchmark_repetitions="${NGVI_BENCH_REPETITIONS:-5}" \
  --benchmark_min_time="${NGVI_BENCH_MIN_TIME:-0.2}" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_display_aggregates_only=true \
  "$@" >&2

echo >&2
"$bin/bench_table" "$out" --stat "${NGVI_BENCH_STAT:-median}" \
  --load-after "$(cut -d' ' -f1-3 /proc/loadavg)" --out build/bench/results.md
