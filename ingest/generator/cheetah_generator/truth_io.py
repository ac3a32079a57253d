"""Writes the ground truth: truth.json, cheetahs.csv and flowsets.csv (headers match `cheetah analyze`),
and flowset_members.csv (which cheetahs make up each flowset)."""

from __future__ import annotations


import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .flows import ip_to_str
from .sites import Site
from .truth import Cheetah, Flowset

CHEETAH_COLUMNS = ("src", "dst", "src_port", "dst_port", "proto", "start_ms", "end_ms", "bytes", "peak_interval_bytes")
FLOWSET_COLUMNS = ("src", "dst", "n_flows", "start_ms", "end_ms", "bytes", "duration_s", "rate_bps")
# One row per member: the flowset (src, dst, flowset_start_ms) and the member's 5-tuple and start.
MEMBER_COLUMNS = ("src", "dst", "flowset_start_ms", "src_port", "dst_port", "proto", "start_ms")


def cheetah_row(c: Cheetah) -> dict[str, Any]:
    return {
        "src": ip_to_str(c.key.src),
        "dst": ip_to_str(c.key.dst),
        "src_port": c.key.src_port,
        "dst_port": c.key.dst_port,
        "proto": c.key.proto,
        "start_ms": c.start_ms,
        "end_ms": c.end_ms,
        "bytes": c.bytes,
        "peak_interval_bytes": c.peak_interval_bytes,
    }


def flowset_row(s: Flowset) -> dict[str, Any]:
    return {
        "src": ip_to_str(s.src),
        "dst": ip_to_str(s.dst),
        "n_flows": s.n_flows,
        "start_ms": s.start_ms,
        "end_ms": s.end_ms,
        "bytes": s.bytes,
        "duration_s": s.duration_s,
        "rate_bps": s.rate_bps,
    }


def member_rows(s: Flowset) -> list[dict[str, Any]]:
    return [
        {
            "src": ip_to_str(m.key.src),
            "dst": ip_to_str(m.key.dst),
            "flowset_start_ms": s.start_ms,
            "src_port": m.key.src_port,
            "dst_port": m.key.dst_port,
            "proto": m.key.proto,
            "start_ms": m.start_ms,
        }
        for m in s.members
    ]


def truth_document(
    params: Mapping[str, Any],
    cheetahs: Sequence[Cheetah],
    flowsets: Sequence[Flowset],
    totals: Mapping[str, int | None],
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    sets = []
    for s in flowsets:
        row = flowset_row(s)
        # Extra key (not in the CSV): which cheetahs belong to the set.
        row["members"] = [[m.key.src_port, m.key.dst_port, m.key.proto] for m in s.members]
        sets.append(row)
    return {
        "params": dict(params),
        "cheetahs": [cheetah_row(c) for c in cheetahs],
        "flowsets": sets,
        "totals": dict(totals),
        **(extra or {}),
    }


def write_truth(
    out_dir: Path,
    params: Mapping[str, Any],
    cheetahs: Sequence[Cheetah],
    flowsets: Sequence[Flowset],
    totals: Mapping[str, int | None],
    extra: Mapping[str, Any] | None = None,
) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = truth_document(params, cheetahs, flowsets, totals, extra)
    (out_dir / "truth.json").write_text(json.dumps(doc, indent=1) + "\n")
    _write_csv(out_dir / "cheetahs.csv", CHEETAH_COLUMNS, [cheetah_row(c) for c in cheetahs])
    _write_csv(out_dir / "flowsets.csv", FLOWSET_COLUMNS, [flowset_row(s) for s in flowsets])
    _write_csv(out_dir / "flowset_members.csv", MEMBER_COLUMNS, [r for s in flowsets for r in member_rows(s)])


def write_sites(out_dir: Path, sites: Sequence[Site]) -> None:
    """sites.json in the warehouse report's format: site name -> list of CIDR prefixes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = {s.name: [s.cidr] for s in sites}
    (out_dir / "sites.json").write_text(json.dumps(doc, indent=1) + "\n")


def _write_csv(path: Path, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
