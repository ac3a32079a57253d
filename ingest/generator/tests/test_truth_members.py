"""flowset_members.csv: each flowset's member flows, consistent with cheetahs.csv and flowsets.csv."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from cheetah_generator.cli import main


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_members_partition_the_cheetahs_into_the_flowsets(tmp_path: Path) -> None:
    args = ["netflow", "--dry-run", "--truth", str(tmp_path), "--seed", "5", "--span", "1800"]
    args += ["--margin", "120", "--mice-per-s", "1", "--transfers", "8", "--realtime-flows", "2", "--quiet"]
    assert main(args) == 0
    members = rows(tmp_path / "flowset_members.csv")
    cheetahs = rows(tmp_path / "cheetahs.csv")
    sets = rows(tmp_path / "flowsets.csv")
    assert list(members[0]) == ["src", "dst", "flowset_start_ms", "src_port", "dst_port", "proto", "start_ms"]
    # Every cheetah is a member of exactly one flowset, and nothing else is.
    flow = ("src", "dst", "src_port", "dst_port", "proto", "start_ms")
    assert sorted(tuple(m[k] for k in flow) for m in members) == sorted(tuple(c[k] for k in flow) for c in cheetahs)
    by_set: dict[tuple[str, str, str], list[dict[str, str]]] = defaultdict(list)
    for m in members:
        by_set[(m["src"], m["dst"], m["flowset_start_ms"])].append(m)
    assert set(by_set) == {(s["src"], s["dst"], s["start_ms"]) for s in sets}
    assert max(len(v) for v in by_set.values()) > 1, "a workload with parallel flowsets"
    # Recomputed by hand from cheetahs.csv: a set is its members' earliest start, its n_flows and bytes are theirs.
    bytes_of = {tuple(c[k] for k in flow): int(c["bytes"]) for c in cheetahs}
    for s in sets:
        group = by_set[(s["src"], s["dst"], s["start_ms"])]
        assert len(group) == int(s["n_flows"])
        assert min(int(m["start_ms"]) for m in group) == int(s["start_ms"])
        assert sum(bytes_of[tuple(m[k] for k in flow)] for m in group) == int(s["bytes"])
