"""Workload -> exported records -> ground truth, all from the generator's own model."""

from __future__ import annotations

from dataclasses import dataclass

from .flows import Flow
from .params import ExportParams, TruthParams, WorkloadParams
from .records import ExportRecord, split_flow
from .truth import Cheetah, Flowset, ObservedFlow, find_cheetahs, group_flowsets
from .workload import Workload, build_workload


@dataclass(frozen=True)
class Scenario:
    workload: WorkloadParams
    truth_params: TruthParams
    export: ExportParams
    flows: list[Flow]
    records: list[ExportRecord]  # flow_index refers to `flows`
    cheetahs: list[Cheetah]
    flowsets: list[Flowset]
    midnight_ms: int | None

    @property
    def exported_flows(self) -> int:
        return len({r.flow_index for r in self.records})


def observe(flows: list[Flow], records: list[ExportRecord], sampling: int, min_bytes: int = 0) -> list[ObservedFlow]:
    """What a collector sees per flow: its records, bytes scaled back by the sampling rate.

    Flows carrying fewer than min_bytes in total are left out (they cannot be cheetahs).
    """
    spans: dict[int, list[tuple[int, int, int]]] = {}
    total: dict[int, int] = {}
    for r in records:
        spans.setdefault(r.flow_index, []).append((r.first_ms, r.last_ms, r.bytes * sampling))
        total[r.flow_index] = total.get(r.flow_index, 0) + r.bytes * sampling
    return [ObservedFlow(flows[i].key, tuple(sorted(s))) for i, s in spans.items() if total[i] >= min_bytes]


def build_scenario(wp: WorkloadParams, tp: TruthParams, ep: ExportParams) -> Scenario:
    wl: Workload = build_workload(wp, tp, ep)
    records: list[ExportRecord] = []
    for i, f in enumerate(wl.flows):
        records.extend(split_flow(f, i, ep.active_timeout_ms, ep.sampling))
    observed = observe(wl.flows, records, ep.sampling, min_bytes=tp.h_bytes)
    cheetahs = find_cheetahs(observed, tp.h_bytes, tp.interval_ms)
    flowsets = group_flowsets(cheetahs, tp.tau_ms)
    return Scenario(wp, tp, ep, wl.flows, records, cheetahs, flowsets, wl.midnight_ms)
