"""The seeded workload: reproducible, unambiguous, and shaped as specified."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import replace

import pytest

from cheetah_generator.guard import model_peak
from cheetah_generator.netflow_run import datagrams_of, truth_params_doc
from cheetah_generator.params import ExportParams, TruthParams, WorkloadParams
from cheetah_generator.scenario import Scenario, build_scenario
from cheetah_generator.truth_io import truth_document

SMALL = WorkloadParams(seed=11, mice_per_s=1.0, realtime_flows=10, transfers=20)  # 2 h from 23:00 UTC


def fingerprint(sc: Scenario) -> str:
    doc = truth_document(truth_params_doc(sc), sc.cheetahs, sc.flowsets, {"records": len(sc.records)})
    h = hashlib.sha256(json.dumps(doc, sort_keys=True).encode())
    for d in datagrams_of(sc):
        h.update(d.payload)
    return h.hexdigest()


@pytest.fixture(scope="module")
def small() -> Scenario:
    return build_scenario(SMALL, TruthParams(), ExportParams())


def test_same_seed_same_truth_and_bytes(small: Scenario) -> None:
    again = build_scenario(SMALL, TruthParams(), ExportParams())
    assert fingerprint(again) == fingerprint(small)


def test_other_seed_other_workload(small: Scenario) -> None:
    other = build_scenario(replace(SMALL, seed=12), TruthParams(), ExportParams())
    assert fingerprint(other) != fingerprint(small)


def test_no_flow_peaks_near_h(small: Scenario) -> None:
    tp = small.truth_params
    for f in small.flows:
        peak = model_peak(f, tp.interval_ms)
        assert not (0.97 * tp.h_bytes <= peak <= 1.03 * tp.h_bytes), f
    for c in small.cheetahs:
        assert c.peak_interval_bytes >= 1.03 * tp.h_bytes


def test_no_cheetah_start_gap_near_tau(small: Scenario) -> None:
    starts: dict[tuple[int, int], list[int]] = defaultdict(list)
    for c in small.cheetahs:
        starts[(c.key.src, c.key.dst)].append(c.start_ms)
    for s in starts.values():
        s.sort()
        assert all(abs((b - a) - 10_000) > 1_000 for a, b in zip(s, s[1:], strict=False))


def test_five_tuples_are_unique(small: Scenario) -> None:
    keys = [f.key for f in small.flows]
    assert len(set(keys)) == len(keys)


def test_transfers_end_before_span_minus_margin_and_traffic_continues(small: Scenario) -> None:
    wp = small.workload
    limit = wp.time_base_ms + wp.span_ms - wp.margin_ms
    transfers = [f for f in small.flows if f.kind == "transfer"]
    assert transfers and all(f.end_ms <= limit for f in transfers)
    assert all(c.end_ms <= limit for c in small.cheetahs)
    assert max(f.end_ms for f in small.flows if f.kind != "transfer") > limit
    assert all(wp.time_base_ms <= f.start_ms and f.end_ms <= wp.time_base_ms + wp.span_ms for f in small.flows)


def test_transfers_are_parallel_streams_between_sites(small: Scenario) -> None:
    by_transfer = defaultdict(list)
    for f in small.flows:
        if f.kind == "transfer":
            by_transfer[f.transfer_id].append(f)
    sizes = sorted(len(v) for v in by_transfer.values())
    assert sizes[0] >= 1 and sizes[-1] <= 16 and len(set(sizes)) > 3
    for streams in by_transfer.values():
        assert len({(f.key.src, f.key.dst, f.key.dst_port) for f in streams}) == 1
        assert len({f.key.src_port for f in streams}) == len(streams)
        starts = [f.start_ms for f in streams]
        assert max(starts) - min(starts) <= 3_000
        assert (streams[0].key.src >> 8) != (streams[0].key.dst >> 8)  # different /24 sites
    assert {f.key.src >> 16 for f in small.flows} == {(198 << 8) | 18}


def test_a_flowset_crosses_midnight_by_default(small: Scenario) -> None:
    m = small.midnight_ms
    assert m is not None and m % 86_400_000 == 0
    crossing = [s for s in small.flowsets if s.start_ms < m < s.end_ms]
    assert crossing
    assert any(min(c.start_ms for c in s.members) < m < max(c.start_ms for c in s.members) for s in crossing)


def test_no_midnight_transfer_when_disabled() -> None:
    sc = build_scenario(replace(SMALL, cross_midnight=False, transfers=2), TruthParams(), ExportParams())
    assert sc.midnight_ms is None


def test_cross_midnight_refused_when_span_has_none() -> None:
    wp = replace(SMALL, time_base_ms=SMALL.time_base_ms - 5 * 3_600_000, cross_midnight=True, transfers=1)
    with pytest.raises(RuntimeError, match="midnight"):
        build_scenario(wp, TruthParams(), ExportParams())


def test_small_h_makes_real_time_flows_cheetahs_and_truth_still_holds() -> None:
    tp = TruthParams(h_bytes=20_000_000, interval_ms=10_000)
    wp = replace(SMALL, span_ms=900_000, margin_ms=120_000, transfers=3, mice_per_s=1.0, cross_midnight=False)
    sc = build_scenario(wp, tp, ExportParams())
    kinds = {sc.flows[i].kind for i in range(len(sc.flows)) if any(c.key == sc.flows[i].key for c in sc.cheetahs)}
    assert "realtime" in kinds or "transfer" in kinds
    for f in sc.flows:
        assert not (0.97 * tp.h_bytes <= model_peak(f, tp.interval_ms) <= 1.03 * tp.h_bytes)
