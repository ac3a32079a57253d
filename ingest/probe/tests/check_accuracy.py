"""Compares a probe run (DIR/cheetahs.csv, bins.csv, summary.json) with the
tracegen ground truth. Exit 0 when every injected flow above R is detected,
none below R/2 is, and the bins add up to the trace exactly; prints why not."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

Key = tuple[str, str, int, int, int]


def truth_flows(truth: dict) -> dict[Key, dict]:
    return {(c["src"], c["dst"], c["src_port"], c["dst_port"], c["proto"]): c for c in truth["cheetahs"]}


def detections(path: Path) -> dict[Key, dict]:
    with path.open() as f:
        rows = list(csv.DictReader(f))
    found: dict[Key, dict] = {}
    for r in rows:
        key = (r["src"], r["dst"], int(r["src_port"]), int(r["dst_port"]), int(r["proto"]))
        found.setdefault(key, r)  # the first detection of a flow
    return found


def check(truth_path: Path, run: Path, exact_bins: bool) -> list[str]:
    truth = json.loads(truth_path.read_text())
    flows = truth_flows(truth)
    found = detections(run / "cheetahs.csv")
    summary = json.loads((run / "summary.json").read_text())
    problems: list[str] = []
    for key, c in flows.items():
        if c["above_r"] and key not in found:
            problems.append(f"missed cheetah {key} at {c['rate_bps'] / 1e6:.1f} Mb/s (R {truth['rate_threshold_bps'] / 1e6:.1f})")
        if c["below_half_r"] and key in found:
            problems.append(f"reported {key} at {c['rate_bps'] / 1e6:.1f} Mb/s, below R/2")
    for key in found:
        if key not in flows:
            problems.append(f"reported a background flow {key}")
    if summary["packets"] != truth["packets"]:
        problems.append(f"summary packets {summary['packets']} != trace {truth['packets']}")
    with (run / "bins.csv").open() as f:
        bins = {int(r["bin_start_ms"]): int(r["bytes"]) for r in csv.DictReader(f)}
    if sum(bins.values()) != truth["bytes"]:
        problems.append(f"bins add up to {sum(bins.values())} bytes, the trace has {truth['bytes']}")
    if exact_bins:
        start_ms = truth["start_epoch_s"] * 1000
        want = {start_ms + i * truth["bin_ms"]: b for i, b in enumerate(truth["bin_bytes"]) if b}
        got = {k: v for k, v in bins.items() if v}
        if want != got:
            diff = sorted(set(want.items()) ^ set(got.items()))[:5]
            problems.append(f"bins differ from the truth, first differences: {diff}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("truth", type=Path)
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--no-exact-bins", action="store_true", help="check only the bin total")
    a = ap.parse_args()
    problems = check(a.truth, a.run_dir, not a.no_exact_bins)
    for p in problems:
        print("  " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
