"""Real round trip: the generator's datagrams through stock goflow2 v2.2.6, every record checked."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cheetah_generator.flows import ip_to_str
from cheetah_generator.netflow_run import datagrams_of
from cheetah_generator.params import ExportParams, TruthParams, WorkloadParams
from cheetah_generator.scenario import Scenario, build_scenario

from .collectors import GOFLOW2, running_goflow2

if not os.access(GOFLOW2, os.X_OK):  # installed by ./cheetah setup: missing is a failure, not a skip
    raise RuntimeError(f"{GOFLOW2} is not executable; run ./cheetah setup first")

WP = WorkloadParams(seed=21, span_ms=600_000, margin_ms=120_000, mice_per_s=2.0, realtime_flows=3, transfers=3)
PROTO = {6: "TCP", 17: "UDP"}


def expected(sc: Scenario) -> Counter[tuple[Any, ...]]:
    n = sc.export.sampling
    want: Counter[tuple[Any, ...]] = Counter()
    for r in sc.records:
        f = sc.flows[r.flow_index]
        k = f.key
        want[
            (
                "NETFLOW_V9" if sc.export.version == 9 else "IPFIX",
                ip_to_str(k.src),
                ip_to_str(k.dst),
                k.src_port,
                k.dst_port,
                PROTO[k.proto],
                r.bytes,
                r.packets,
                n if n > 1 else 0,  # goflow2 reports 0 when no rate was announced
                r.first_ms * 1_000_000,
                r.last_ms * 1_000_000,
                r.tcp_flags,
                f.tos,
                f.src_as,
                f.dst_as,
                f.in_if,
                f.out_if,
                sc.export.source_id_base + f.exporter,
            )
        ] += 1
    return want


def observed(messages: list[dict[str, Any]]) -> Counter[tuple[Any, ...]]:
    got: Counter[tuple[Any, ...]] = Counter()
    for m in messages:
        got[
            (
                m["type"],
                m["src_addr"],
                m["dst_addr"],
                m["src_port"],
                m["dst_port"],
                m["proto"],
                m["bytes"],
                m["packets"],
                m["sampling_rate"],
                m["time_flow_start_ns"],
                m["time_flow_end_ns"],
                m["tcp_flags"],
                m["ip_tos"],
                m["src_as"],
                m["dst_as"],
                m["in_if"],
                m["out_if"],
                m["observation_domain_id"],
            )
        ] += 1
    return got


@pytest.mark.parametrize("version,sampling", [(9, 1), (10, 1), (9, 10), (10, 10)])
def test_every_record_arrives_exactly(tmp_path: Path, version: int, sampling: int) -> None:
    sc = build_scenario(WP, TruthParams(), ExportParams(version=version, sampling=sampling, template_every=20))
    datagrams = list(datagrams_of(sc))
    with running_goflow2(tmp_path) as g:
        assert sum(d.records for d in datagrams) == len(sc.records)
        seen = g.send_in_windows(datagrams)
        g.stop()
        messages = g.messages()
    assert seen == len(
        sc.records
    ), f"goflow2 wrote {seen} of {len(sc.records)} records; log: {g.log.read_text()[-1500:]}"
    want, got = expected(sc), observed(messages)
    assert got == want, (
        f"missing {sum((want - got).values())}, unexpected {sum((got - want).values())}: "
        f"e.g. want {next(iter(want - got), None)} got {next(iter(got - want), None)}"
    )
