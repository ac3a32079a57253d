"""``./cheetah ship-transfers FORMAT INPUT...``: tool logs into transfers.v1 JSON lines."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from .generic import parse_csv, parse_jsonl
from .gridftp import parse_gridftp
from .iperf3 import parse_iperf3
from .records import Parsed, reject

HOST_COLUMNS = ("host", "time_ms", "cpu_percent", "disk_percent", "nic_percent", "nic_bps")


def parse(fmt: str, text: str, source: str, server_address: str) -> Parsed:
    if fmt == "iperf3":
        return parse_iperf3(text, source)
    if fmt == "gridftp":
        return parse_gridftp(text, source, server_address)
    if fmt == "csv":
        return parse_csv(text, source)
    return parse_jsonl(text, source)


def inputs(paths: list[str]) -> list[Path]:
    """Files, and the files of directories (sorted, not recursive)."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        out.extend(sorted(f for f in path.iterdir() if f.is_file()) if path.is_dir() else [path])
    return out


def write_lines(target: str, rows: list[dict[str, Any]], default: TextIO) -> None:
    if not rows and target != "-":
        return
    fh = default if target == "-" else open(target, "a", encoding="utf-8")
    try:
        for r in rows:
            fh.write(json.dumps(r, separators=(",", ":")) + "\n")
    finally:
        if fh is not default:
            fh.close()


def write_hosts(target: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    new = not os.path.exists(target) or os.path.getsize(target) == 0
    with open(target, "a", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(HOST_COLUMNS)
        for r in rows:
            w.writerow(["" if r[c] is None else r[c] for c in HOST_COLUMNS])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="./cheetah ship-transfers",
        description="Transfer logs into transfers.v1 records (JSON lines, the field names of"
        " cheetah/v1/transfers.proto), the input of `./cheetah throughput --transfers DIR`."
        " A line or run that cannot be shipped becomes a flows.rejected.v1-shaped reject (JSON"
        " lines) with a reason; it never stops the others.",
    )
    ap.add_argument("format", choices=("iperf3", "gridftp", "csv", "jsonl"),
                    help="iperf3: iperf3 -J output (one or more runs per file); gridftp: a GridFTP"
                    " server transfer log; csv: a header row of transfers.v1 field names; jsonl: one"
                    " JSON object per line with those names")
    ap.add_argument("input", nargs="+", help="files or directories of them")
    ap.add_argument("--out", default="-", help="append records here (default: standard output)")
    ap.add_argument("--rejects", default="-", help="append rejects here (default: standard error)")
    ap.add_argument("--hosts", default="",
                    help="append host resource samples (CSV: " + ",".join(HOST_COLUMNS) + ") here;"
                    " iperf3 gives the CPU use of both ends")
    ap.add_argument("--server-address", default="",
                    help="gridftp: the server's address, used instead of the log's HOST name")
    a = ap.parse_args(argv)
    total = Parsed()
    unreadable = 0
    for path in inputs(a.input):
        try:
            text = path.read_bytes().decode("utf-8", "surrogateescape")
        except OSError as e:
            unreadable += 1
            total.rejects.append(reject("unreadable_file", f"cannot read: {e.strerror}; check the path", "", str(path), 0))
            continue
        total.extend(parse(a.format, text, str(path), a.server_address))
    write_lines(a.out, total.records, sys.stdout)
    write_lines(a.rejects, total.rejects, sys.stderr)
    if a.hosts:
        write_hosts(a.hosts, total.host_samples)
    print(f"ship-transfers: {len(total.records)} record(s), {len(total.rejects)} rejected"
          + (f", {len(total.host_samples)} host sample(s)" if a.hosts else ""), file=sys.stderr)
    return 1 if unreadable else 0
