"""Runs the probe's accuracy and performance benchmarks and prints markdown.

Accuracy: one seeded trace with injected cheetahs around R; for each L and S
the probe's detections are compared with the ground truth (precision, recall,
delay from the flow's first packet to its detection) and the cache work
(entries created) is shown relative to L = 0, S = 1.
Performance: the full generated minute replayed from memory (--memory) with
1 and 2 workers; a cache-size sweep; softflowd -r and nfpcapd -r on the same
pcap, timed the same way (wall clock, one process)."""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

def load() -> str:
    return "%.2f" % os.getloadavg()[0]


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess:
    print("$ " + " ".join(cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)  # type: ignore[call-overload]


def tracegen(bin_dir: Path, out: Path, **opts: object) -> tuple[Path, dict, str]:
    pcap, truth = out / "trace.pcap", out / "truth.json"
    cmd = [str(bin_dir / "cheetah-tracegen"), "--out", str(pcap), "--truth", str(truth)]
    for k, v in opts.items():
        cmd += [f"--{k.replace('_', '-')}", str(v)]
    run(cmd)
    return pcap, json.loads(truth.read_text()), " ".join(cmd[1:]).replace(str(out) + "/", "")


def probe(bin_dir: Path, pcap: Path, out: Path, args: list[str]) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    run([str(bin_dir / "cheetah-probe"), "--quiet", "--pcap", str(pcap), "--out", str(out), *args])
    return json.loads((out / "summary.json").read_text())


def accuracy_rows(bin_dir: Path, work: Path, r: float) -> tuple[list[str], str]:
    """One trace around R: a markdown row per (sampling mode, L, S), and the trace's description."""
    pcap, truth, gen_cmd = tracegen(bin_dir, work, scale=0.2, seconds=20, cheetahs=120, rate_threshold=r, seed=42)
    flows = {(c["src"], c["dst"], c["src_port"], c["dst_port"], c["proto"]): c for c in truth["cheetahs"]}
    positives = {k for k, c in flows.items() if c["above_r"]}
    rows = []
    base_entries = None
    for mode in ("create", "packet", "packet-unscaled"):
        for length in (0, 600, 800):
            for s in (1.0, 0.1, 0.001):
                if mode != "create" and s == 1.0 or mode == "packet-unscaled" and length > 0:
                    continue
                out = work / f"acc-{mode}-{length}-{s}"
                args = ["--memory", "--rate-threshold", str(r), "--min-length", str(length), "--sampling", str(s),
                        "--sampling-mode", mode, "--cache-size", "1000000"]
                summ = probe(bin_dir, pcap, out, args)
                found: dict = {}
                with (out / "cheetahs.csv").open() as f:
                    for row in csv.DictReader(f):
                        key = (row["src"], row["dst"], int(row["src_port"]), int(row["dst_port"]), int(row["proto"]))
                        found.setdefault(key, int(row["detected_ms"]))
                tp = positives & found.keys()
                precision = len(tp) / len(found) if found else 1.0
                recall = len(tp) / len(positives)
                d = sorted(found[k] - flows[k]["first_ms"] for k in tp)
                entries = summ["counters"]["entries_created"]
                base_entries = base_entries or entries
                below_half = sum(1 for k in found if k in flows and flows[k]["below_half_r"])
                between = sum(1 for k in found if k in flows and not flows[k]["above_r"] and not flows[k]["below_half_r"])
                other = sum(1 for k in found if k not in flows)
                delay = f"{statistics.median(d):.0f} / {d[int(0.95 * (len(d) - 1))]:.0f}" if d else "—"
                label = {"create": "entry creation", "packet": "every packet, scaled by 1/S",
                         "packet-unscaled": "every packet, unscaled"}[mode]
                rows.append(f"| {r / 1e6:g} Mb/s | {label} | {length} | {s:g} | {precision:.3f} | {recall:.3f} | "
                            f"{delay} | {entries / base_entries:.3f} | {below_half} / {between} / {other} |")
    desc = (f"R = {r / 1e6:g} Mb/s: `cheetah-tracegen {gen_cmd}`: {truth['packets']:,} packets, {truth['flows']:,} "
            f"flows, {len(flows)} injected ({len(positives)} above R, "
            f"{sum(c['below_half_r'] for c in flows.values())} below R/2, the rest between R/2 and R)")
    return rows, desc


def accuracy(bin_dir: Path, work: Path) -> str:
    started = load()
    all_rows, descs = [], []
    for r in (1e9, 1e8):
        sub = work / f"r{r:g}"
        sub.mkdir()
        rows, desc = accuracy_rows(bin_dir, sub, r)
        all_rows += rows
        descs.append(desc)
        shutil.rmtree(sub, ignore_errors=True)
    lines = [
        "### Accuracy (`ingest/probe/bench.sh accuracy`)",
        "",
        "Traces: " + "; ".join(descs) + ". T = 100 ms, cache 1 M entries, one worker, memory replay. "
        "Precision and recall count flows (5-tuples); delay is from the flow's first packet to its detection "
        "(median / 95th percentile). Cache work = entries created, relative to L = 0, S = 1 of the same trace. "
        "Sampling *entry creation* is the S of docs/ARCHITECTURE.md, \"Flight-rate cheetah\" (packets of existing entries all count); "
        "*every packet* samples every packet (post-lookup sampling) and counts only the sampled ones, with "
        "their bytes scaled by 1/S or unscaled, for comparison. "
        f"Load average at start: {started}, at end: {load()}.",
        "",
        "| R | sampling | L (B) | S | precision | recall | delay (ms) | cache work | reported: below R/2 / R/2..R / background |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *all_rows,
    ]
    return "\n".join(lines) + "\n"


def pps(summ: dict) -> list[float]:
    return [w["packets_per_second"] for w in summ["per_worker"]]


def timed(cmd: list[str]) -> float:
    t0 = time.monotonic()
    run(cmd)
    return time.monotonic() - t0


def perf(bin_dir: Path, work: Path, seconds: int) -> str:
    pcap, truth, gen_cmd = tracegen(bin_dir, work, scale=1, seconds=seconds, seed=1)
    n = truth["packets"]
    lines = [
        "### Performance (`ingest/probe/bench.sh perf`)",
        "",
        f"Trace: `cheetah-tracegen {gen_cmd}`: {n:,} packets, {truth['flows']:,} flows, "
        f"{truth['bytes'] * 8 / seconds / 1e9:.2f} Gb/s mean over {seconds} s. Machine: `nproc` = {os.cpu_count()}, "
        "shared with other work (load average printed per row). Memory replay = the pcap loaded into memory, split "
        "by the symmetric flow hash (as RSS would), each worker parsing and running the flight rule on its share; "
        "packets/s per worker core = the worker's packets / its busy time, fastest of 3 passes (`--repeat 3`; "
        "counts below are per pass).",
        "",
        "| run | packets/s per worker core | total packets/s | cheetahs | load | command |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    probe_pps = {}
    for workers in (1, 2):
        summ = probe(bin_dir, pcap, work / f"perf-{workers}", ["--memory", "--repeat", "3", "--workers",
                                                                str(workers), "--cache-size", "1000000"])
        per = pps(summ)
        probe_pps[workers] = per
        lines.append(f"| memory replay, {workers} worker{'s' if workers > 1 else ''} | "
                     f"{' / '.join(f'{p / 1e6:.2f} M' for p in per)} | {summ['packets_per_second'] / 1e6:.2f} M | "
                     f"{summ['counters']['cheetahs'] // 3} | {load()} | `cheetah-probe --pcap trace.pcap --memory "
                     f"--repeat 3 --workers {workers} --cache-size 1000000 --out DIR` |")
    summ = probe(bin_dir, pcap, work / "perf-pcap", ["--workers", "1", "--cache-size", "1000000"])
    lines.append(f"| net_pcap from disk, 1 worker | {pps(summ)[0] / 1e6:.2f} M | {summ['packets_per_second'] / 1e6:.2f} M "
                 f"| {summ['counters']['cheetahs']} | {load()} | `cheetah-probe --pcap trace.pcap --out DIR` |")

    lines += ["", "Cache-size sweep (1 worker, memory replay, same trace):", "",
              "| cache entries | entries memory | packets/s | evictions | cheetahs | load |", "| --- | --- | --- | --- | --- | --- |"]
    for size in (1_000, 4_000, 16_000, 64_000, 256_000, 1_000_000):
        summ = probe(bin_dir, pcap, work / f"cache-{size}", ["--memory", "--repeat", "3", "--cache-size", str(size)])
        entry = summ["config"]["cache_entry_bytes"]
        lines.append(f"| {size:,} | {size * entry / 2**20:.1f} MB | {pps(summ)[0] / 1e6:.2f} M | "
                     f"{summ['counters']['evictions'] // 3:,} | {summ['counters']['cheetahs'] // 3} | {load()} |")

    lines += ["", "Same pcap through NetFlow exporters (one process each, wall clock):", "",
              "| tool | seconds | packets/s | probe (1 worker, memory) / tool | load | command |",
              "| --- | --- | --- | --- | --- | --- |"]
    flowdir = work / "nfpcapd"
    flowdir.mkdir()
    for name, cmd in (("softflowd 1.1.0", ["softflowd", "-d", "-r", str(pcap), "-n", "127.0.0.1:9", "-v", "9"]),
                      ("nfpcapd 1.7.1", ["nfpcapd", "-r", str(pcap), "-w", str(flowdir)])):
        if not shutil.which(cmd[0]):
            lines.append(f"| {name} | missing: run ./cheetah setup | | | | |")
            continue
        secs = timed(cmd)
        tool_pps = n / secs
        lines.append(f"| {name} | {secs:.1f} | {tool_pps / 1e6:.2f} M | {probe_pps[1][0] / tool_pps:.1f}x | {load()} | "
                     f"`{' '.join(cmd).replace(str(work) + '/', '')}` |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", nargs="?", default="all", choices=("accuracy", "perf", "all"))
    ap.add_argument("--bin", type=Path, required=True, help="directory with cheetah-probe and cheetah-tracegen")
    ap.add_argument("--out", type=Path, help="also write the markdown here")
    ap.add_argument("--seconds", type=int, default=60, help="perf trace length (default 60: the full minute)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="probe-bench."))
    try:
        parts = [f"## Probe benchmarks ({time.strftime('%Y-%m-%d %H:%MZ', time.gmtime())})\n"]
        for name in ("accuracy", "perf"):
            if a.what in (name, "all"):
                sub = work / name
                sub.mkdir()
                parts.append(accuracy(a.bin, sub) if name == "accuracy" else perf(a.bin, sub, a.seconds))
        text = "\n".join(parts)
        print(text)
        if a.out:
            a.out.write_text(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
