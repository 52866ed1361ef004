#!/usr/bin/env python3
"""The Markdown table of scripts/bench_vi.sh: ngvi's step and epoch times (Google Benchmark JSON of
bench_vi_methods, median over repetitions, process CPU time) beside the PyTorch reference's, measured
in the same session (bench.py kernel medians; run_uci.py CPU seconds per epoch), with the speed-up
and the targets of issue 8; then the exact Hessian and a VON epoch on two threads against one (wall
time: the sweeps of the Hessian run on both). Standard library only."""
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
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        name = b["run_name"].split("/process_time")[0].split("/real_time")[0]
        out[name] = {"cpu": b["cpu_time"] * scale, "wall": b["real_time"] * scale}
    return out


def ngvi_failures(path):
    """run name -> error message of the benchmarks that stopped with an error (no aggregates)."""
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("error_occurred"):
            out[b["run_name"].split("/process_time")[0].split("/real_time")[0]] = b.get("error_message", "")
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


def peer_recorded(path):
    """The reference's own recorded figures (peers/vi/results.json, another session): kernel CPU
    medians of its 1-thread bench and median CPU ms per epoch of its 1-thread training rows, under
    the names peer_kernels and peer_epochs use."""
    if not path:
        return {}, {}
    d = json.load(open(path))
    kernels = {k: v["cpu_median_ms"] for k, v in d["bench"]["bench_t1"]["timings"].items()}
    epochs = {row[: -len("_t1")]: 1e3 * statistics.median(s["cpu_s_per_epoch"] for s in r["splits"])
              for row, r in d["runs"].items() if row.endswith("_t1")}
    return kernels, epochs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ngvi", required=True)
    ap.add_argument("--peer-kernels")
    ap.add_argument("--peer-epochs")
    ap.add_argument("--peer-recorded")
    ap.add_argument("--load", nargs=2, default=["?", "?"])
    a = ap.parse_args()
    ng, pk, pe = ngvi_times(a.ngvi), peer_kernels(a.peer_kernels), peer_epochs(a.peer_epochs)
    rk, re_ = peer_recorded(a.peer_recorded)

    # (what, ngvi row, reference: ("k", kernel) or ("e", training row) or None, target speed-up)
    rows = [
        ("per-example gradients, 13-50-1, M = 32", "VI/pe_grad_H50_M32", ("k", "pe_grad_vmap_H50_relu_M32"), None),
        ("VOGN step, 13-50-1, M = 32", "VI/vogn_step_H50_M32", ("k", "vogn_step_H50_relu_M32"), None),
        ("VOGN epoch (15 steps)", "VI/vogn_epoch_H50", ("e", "vogn_H50_relu"), 40.0),
        ("IVON step", "VI/ivon_step_H50_M32", None, None),
        ("IVON epoch", "VI/ivon_epoch_H50", None, None),
        ("noisy Adam epoch", "VI/noisy_adam_epoch_H50", None, None),
        ("BBB epoch", "VI/bbb_epoch_H50", ("e", "bbb_H50_relu"), None),
        ("MAP (Adam) epoch", "VI/map_epoch_H50", ("e", "map_H50_relu"), None),
        ("exact Hessian 151×151, 13-10-1, M = 32", "VI/hessian_H10_M32", ("k", "hessian_autograd_vec1_H10_relu_M32"), None),
        ("symmetric eigendecomposition 151×151", "VI/eigh_P151", ("k", "eigh_P151"), None),
        ("eigenvalue clipping 151×151 (tridiagonalisation, clipped pairs)", "VI/clip_P151", None, None),
        ("VON step, eigenvalue clipping", "VI/von_step_H10_M32/clip", ("k", "von_step_H10_relu_M32"), None),
        ("VON epoch, eigenvalue clipping", "VI/von_epoch_H10/clip", ("e", "von_H10_relu"), 10.0),
        ("VON step, Cholesky check + damped β", "VI/von_step_H10_M32/damp", ("k", "von_step_H10_relu_M32"), None),
        ("VON epoch, Cholesky check + damped β", "VI/von_epoch_H10/damp", ("e", "von_H10_relu"), 10.0),
        ("VON step, Cholesky check + GGN fallback", "VI/von_step_H10_M32/ggn", ("k", "von_step_H10_relu_M32"), None),
        ("VON epoch, Cholesky check + GGN fallback", "VI/von_epoch_H10/ggn", ("e", "von_H10_relu"), 10.0),
    ]
    print(f"Single thread, CPU time, medians. Load average {a.load[0]} before, {a.load[1]} after.")
    print("Speed-ups and targets are against the reference measured in this session; the last two")
    print("columns put the reference's own recorded figures (peers/vi/results.json) beside them.\n")
    print("| workload | ngvi (ms) | PyTorch, this session (ms) | speed-up | target | PyTorch, recorded (ms) | speed-up |")
    print("|---|---|---|---|---|---|---|")
    sources = {"k": (pk, rk), "e": (pe, re_)}
    ms = lambda v: f"{v:.3f}" if v else "—"
    failed = ngvi_failures(a.ngvi)
    for what, key, ref_of, target in rows:
        if key in failed:
            print(f"| {what} | failed: {failed[key]} | | | | | |")
        if key not in ng:
            continue
        t = ng[key]["cpu"]
        ref = rec = None
        if ref_of:
            now, recorded = sources[ref_of[0]]
            ref, rec = now.get(ref_of[1]), recorded.get(ref_of[1])
        verdict = "—"
        if target and ref:
            verdict = f"≥ {target:g}×: {'met' if ref / t >= target else 'missed'}"
        ratio = lambda r: f"{r / t:.1f}×" if r else "—"
        print(f"| {what} | {t:.4f} | {ms(ref)} | {ratio(ref)} | {verdict} | {ms(rec)} | {ratio(rec)} |")
    if "VI/vogn_step_H50_M32" in ng and "VI/pe_grad_H50_M32" in ng:
        r = ng["VI/vogn_step_H50_M32"]["cpu"] / ng["VI/pe_grad_H50_M32"]["cpu"]
        print(f"\nA VOGN step costs {r:.2f}× its own per-example gradients "
              f"(target ≤ 2×: {'met' if r <= 2.0 else 'missed'}).")
    for what, key in [("the exact Hessian 151×151", "VI/hessian_H10_M32"),
                      ("a VON epoch (eigenvalue clipping)", "VI/von_epoch_H10/clip")]:
        two = key + "/threads:2"
        if key in ng and two in ng:
            one_ms, two_ms = ng[key]["wall"], ng[two]["wall"]
            print(f"\nOn two threads {what} takes {two_ms:.3f} ms against {one_ms:.3f} ms on one "
                  f"(wall time, medians): {one_ms / two_ms:.2f}× faster, with the same bits.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
