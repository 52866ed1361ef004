#!/usr/bin/env bash
# Times one step and one epoch of each natural-gradient method (bench_vi_methods, bench/vi_methods.cpp)
# and, in the same session, the PyTorch reference on the same workload (../shared/peers/vi): its
# kernel timings (bench.py) and its training loop's seconds per epoch (run_uci.py on split 0 with the
# tuned settings of bench/peers/vi_choices.json). Prints the comparison table (scripts/bench_vi_table.py)
# and saves it as build/bench/vi_results.md.
#
# Run it on a quiet machine: the table states the load average. Everything is single-threaded
# but the two /threads:2 rows (the exact Hessian and a VON epoch with the Hessian's sweeps on two
# threads), which are compared with their one-thread rows by wall time.
# Environment: NGVI_BENCH_SKIP_BUILD=1 reuses the build; NGVI_BENCH_REPETITIONS (default 5);
# NGVI_PEERS_VI (default ../shared/peers/vi) is the reference's folder; Debian's python3-torch
# (/usr/bin/python3) is installed for it when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ "${NGVI_BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/install-deps.sh
  cmake --preset bench
  cmake --build --preset bench --target bench_vi_methods
fi

out="build/bench"
mkdir -p "$out"
export GLIBC_TUNABLES="glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824"
load_before="$(cut -d' ' -f1 /proc/loadavg)"
"$out/bench/bench_vi_methods" --benchmark_repetitions="${NGVI_BENCH_REPETITIONS:-5}" \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/vi_results.json" \
  --benchmark_out_format=json "$@" >&2

peers="${NGVI_PEERS_VI:-$root/../shared/peers/vi}"
peer_args=()
if [[ -f "$peers/bench.py" ]] && ! /usr/bin/python3 -c 'import torch, functorch' 2>/dev/null; then
  echo "bench_vi: installing Debian's python3-torch for the PyTorch reference" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y python3-torch >&2
fi
if [[ -f "$peers/bench.py" ]] && /usr/bin/python3 -c 'import torch, functorch' 2>/dev/null; then
  (cd "$peers" && OMP_NUM_THREADS=1 /usr/bin/python3 bench.py --threads 1 \
    --out "$root/$out/peers_vi_bench.json") >&2
  (cd "$peers" && OMP_NUM_THREADS=1 /usr/bin/python3 run_uci.py --threads 1 --splits 0 \
    --rows vogn_H50_relu,bbb_H50_relu,map_H50_relu,von_H10_relu \
    --choices "$root/bench/peers/vi_choices.json" --out "$root/$out/peers_vi_epochs.json") >&2
  peer_args=(--peer-kernels "$out/peers_vi_bench.json" --peer-epochs "$out/peers_vi_epochs.json")
  [[ -f "$peers/results.json" ]] && peer_args+=(--peer-recorded "$peers/results.json")
else
  echo "bench_vi: no PyTorch reference ($peers with /usr/bin/python3 + torch): ngvi rows only" >&2
fi
load_after="$(cut -d' ' -f1 /proc/loadavg)"
/usr/bin/python3 scripts/bench_vi_table.py --ngvi "$out/vi_results.json" "${peer_args[@]}" \
  --load "$load_before" "$load_after" | tee "$out/vi_results.md"
