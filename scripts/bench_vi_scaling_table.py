#!/usr/bin/env python3
"""The Markdown table of scripts/bench_vi_scaling.sh: one VOGN epoch (bench_vi_mpi, 13-50-1 tanh
network, K = 16 blocks) against the number of rows N, per minibatch M and per ranks × threads, from
the Google Benchmark JSON files the script writes (one per N and configuration, rank 0's output).
Every figure is the median over the repetitions; "spread" is (max - min) / median of the epoch time.
"ns/row ÷ smallest N" is the linearity check (1.00 when the epoch is linear in N); "speed-up" is
the 1 rank × 1 thread epoch divided by this row's, same N and M. Standard library only."""
import argparse
import json
import re
import sys


def runs(path):
    """(M, per-repetition epoch ms list, median counters) per benchmark of one JSON file."""
    data = json.load(open(path))
    out = {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"{path}: {b['run_name']}: {b.get('error_message', 'error')}")
        m = int(re.search(r"M:(\d+)", b["run_name"]).group(1))
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        entry = out.setdefault(m, {"times": [], "median": None})
        if b.get("run_type") == "iteration":
            entry["times"].append(b["real_time"] * scale)
        elif b.get("aggregate_name") == "median":
            entry["median"] = dict(b, epoch_ms=b["real_time"] * scale)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+", help="JSON files named <N>_<ranks>x<threads>.json")
    ap.add_argument("--load", nargs=2, default=["?", "?"])
    args = ap.parse_args()
    rows = []
    for path in args.files:
        name = re.search(r"([0-9.e+]+)_(\d+)x(\d+)\.json$", path)
        ranks, threads = int(name.group(2)), int(name.group(3))
        for m, entry in runs(path).items():
            med = entry["median"]
            if med is None:
                sys.exit(f"{path}: M = {m}: no median aggregate (run with repetitions >= 2)")
            t = entry["times"]
            rows.append({"N": int(med["rows"]), "M": m, "ranks": ranks, "threads": threads,
                         "epoch": med["epoch_ms"], "spread": (max(t) - min(t)) / med["epoch_ms"],
                         "reps": len(t), "steps": int(med["steps"]),
                         "ms_step": med["ms_per_step"], "ns_row": med["ns_per_row"],
                         "blocks": med["blocks_ms"], "exchange": med["exchange_ms"],
                         "bytes": med["bytes_per_step"]})
    rows.sort(key=lambda r: (r["M"], r["ranks"], r["threads"], r["N"]))
    base = {(r["N"], r["M"]): r["epoch"] for r in rows if r["ranks"] == 1 and r["threads"] == 1}
    smallest = {}
    for r in rows:
        key = (r["M"], r["ranks"], r["threads"])
        smallest.setdefault(key, r["ns_row"])
    print(f"load average before: {args.load[0]}, after: {args.load[1]}")
    print()
    print("| M | ranks × threads | N | epoch (median) | spread | steps | ms / step | ns / row "
          "| ns/row ÷ smallest N | speed-up vs 1 × 1 | own blocks ms / step | exchange ms / step "
          "| bytes / step and rank |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        key = (r["M"], r["ranks"], r["threads"])
        b = base.get((r["N"], r["M"]))
        speed = f"{b / r['epoch']:.2f}×" if b else "—"
        print(f"| {r['M']} | {r['ranks']} × {r['threads']} | {r['N']:,} | {r['epoch']:.1f} ms "
              f"| {100 * r['spread']:.0f} % (n = {r['reps']}) | {r['steps']} | {r['ms_step']:.3f} "
              f"| {r['ns_row']:.0f} | {r['ns_row'] / smallest[key]:.2f} | {speed} "
              f"| {r['blocks']:.3f} | {r['exchange']:.3f} | {r['bytes']:.0f} |")
    print()
    print("epoch: the steps of one epoch only (no data generation, no history row); own blocks: per step,")
    print("this rank's per-example gradients and their squares; exchange: per step, the status and")
    print("block-sum exchange including the wait for the slower rank (near 0 on one rank); bytes: block")
    print("sums sent plus received per step by one rank. Linear in N: ns/row ÷ smallest N stays near 1.")


if __name__ == "__main__":
    main()
