#!/usr/bin/env python3
"""The Markdown table of scripts/bench_vi.sh: ngvi's step and epoch times (Google Benchmark JSON of
bench_vi_methods, median over repetitions, process CPU time) beside the PyTorch reference's, measured
in the same session (bench.py kernel medians; run_uci.py CPU seconds per epoch), with the speed-up
and the targets of issue 8. Standard library only."""
import argparse
import json
import statistics
import sys


def ngvi_times(path):
    """run name -> {"cpu": ms, "wall": ms} from the median aggregates."""
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            sys.exit(f"bench_vi_table: {b['run_name']} failed: {b.get('error_message')}")
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        name = b["run_name"].split("/process_time")[0].split("/real_time")[0]
        out[name] = {"cpu": b["cpu_time"] * scale, "wall": b["real_time"] * scale}
    return out


def peer_kernels(path):
    if not path:
        return {}
    return {k: v["cpu_median_ms"] for k, v in json.load(open(path))["timings"].items()}


def peer_epochs(path):
    """row -> median over splits of CPU milliseconds per epoch of the reference's training loop."""
    if not path:
        return {}
    rows = json.load(open(path))["rows"]
    return {row: 1e3 * statistics.median(s["cpu_s_per_epoch"] for s in r["splits"] if "cpu_s_per_epoch" in s)
            for row, r in rows.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ngvi", required=True)
    ap.add_argument("--peer-kernels")
    ap.add_argument("--peer-epochs")
    ap.add_argument("--load", nargs=2, default=["?", "?"])
    a = ap.parse_args()
    ng, pk, pe = ngvi_times(a.ngvi), peer_kernels(a.peer_kernels), peer_epochs(a.peer_epochs)

    # (what, ngvi row, reference value in ms or None, target speed-up or None)
    rows = [
        ("per-example gradients, 13-50-1, M = 32", "VI/pe_grad_H50_M32", pk.get("pe_grad_vmap_H50_relu_M32"), None),
        ("VOGN step, 13-50-1, M = 32", "VI/vogn_step_H50_M32", pk.get("vogn_step_H50_relu_M32"), None),
        ("VOGN epoch (15 steps)", "VI/vogn_epoch_H50", pe.get("vogn_H50_relu"), 20.0),
        ("IVON step", "VI/ivon_step_H50_M32", None, None),
        ("IVON epoch", "VI/ivon_epoch_H50", None, None),
        ("noisy Adam epoch", "VI/noisy_adam_epoch_H50", None, None),
        ("BBB epoch", "VI/bbb_epoch_H50", pe.get("bbb_H50_relu"), None),
        ("MAP (Adam) epoch", "VI/map_epoch_H50", pe.get("map_H50_relu"), None),
        ("exact Hessian 151×151, 13-10-1, M = 32", "VI/hessian_H10_M32", pk.get("hessian_autograd_vec1_H10_relu_M32"), None),
        ("symmetric eigendecomposition 151×151", "VI/eigh_P151", pk.get("eigh_P151"), None),
        ("VON step, eigenvalue clipping", "VI/von_step_H10_M32/clip", pk.get("von_step_H10_relu_M32"), None),
        ("VON epoch, eigenvalue clipping", "VI/von_epoch_H10/clip", pe.get("von_H10_relu"), 5.0),
        ("VON step, Cholesky check + damped β", "VI/von_step_H10_M32/damp", pk.get("von_step_H10_relu_M32"), None),
        ("VON epoch, Cholesky check + damped β", "VI/von_epoch_H10/damp", pe.get("von_H10_relu"), 10.0),
    ]
    print(f"Single thread, CPU time, medians. Load average {a.load[0]} before, {a.load[1]} after.\n")
    print("| workload | ngvi (ms) | PyTorch reference (ms) | speed-up | target |")
    print("|---|---|---|---|---|")
    for what, key, ref, target in rows:
        if key not in ng:
            continue
        t = ng[key]["cpu"]
        ratio = f"{ref / t:.1f}×" if ref else "—"
        verdict = "—"
        if target and ref:
            verdict = f"≥ {target:g}×: {'met' if ref / t >= target else 'missed'}"
        print(f"| {what} | {t:.4f} | {f'{ref:.3f}' if ref else '—'} | {ratio} | {verdict} |")
    if "VI/vogn_step_H50_M32" in ng and "VI/pe_grad_H50_M32" in ng:
        r = ng["VI/vogn_step_H50_M32"]["cpu"] / ng["VI/pe_grad_H50_M32"]["cpu"]
        print(f"\nA VOGN step costs {r:.2f}× its own per-example gradients "
              f"(target ≤ 2×: {'met' if r <= 2.0 else 'missed'}).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
