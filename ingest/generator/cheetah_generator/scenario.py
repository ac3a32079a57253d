"""Workload -> exported records -> ground truth, all from the generator's own model."""

from __future__ import annotations

from dataclasses import dataclass

from .edges import EdgeCase, build_edges
from .flows import Flow
from .params import ExportParams, TruthParams, WorkloadParams
from .records import ExportRecord, split_flow
from .truth import Cheetah, Flowset, ObservedFlow, SeenRecord, find_cheetahs, group_flowsets, stitch
from .workload import Workload, build_workload

WORKLOADS = ("research", "edges")


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
    kind: str = "research"
    cases: tuple[EdgeCase, ...] = ()  # the edges workload's cases

    @property
    def exported_flows(self) -> int:
        return len({r.flow_index for r in self.records})


def observe(
    flows: list[Flow], records: list[ExportRecord], ep: ExportParams, gap_ms: int, min_bytes: int = 0
) -> list[ObservedFlow]:
    """What a collector sees: records scaled back by their exporter's rate, stitched per (exporter, 5-tuple).

    Flows carrying fewer than min_bytes in total are left out (they cannot be cheetahs).
    """
    seen = []
    for r in records:
        f = flows[r.flow_index]
        seen.append(SeenRecord(f.exporter, f.key, r.first_ms, r.last_ms, r.bytes * ep.sampling_of(f.exporter)))
    return [o for o in stitch(seen, gap_ms) if o.bytes >= min_bytes]


def build_scenario(wp: WorkloadParams, tp: TruthParams, ep: ExportParams, kind: str = "research") -> Scenario:
    cases: tuple[EdgeCase, ...] = ()
    midnight = None
    if kind == "research":
        wl: Workload = build_workload(wp, tp, ep)
        flows = wl.flows
        midnight = wl.midnight_ms
        records: list[ExportRecord] = []
        for i, f in enumerate(flows):
            records.extend(split_flow(f, i, ep.active_timeout_ms, ep.sampling_of(f.exporter)))
    elif kind == "edges":
        ew = build_edges(wp, tp, ep)
        flows, records, cases = ew.flows, ew.records, tuple(ew.cases)
    else:
        raise ValueError(f"unknown workload {kind!r}: choose one of {', '.join(WORKLOADS)}")
    observed = observe(flows, records, ep, tp.gap_ms, min_bytes=tp.h_bytes)
    cheetahs = find_cheetahs(observed, tp.h_bytes, tp.interval_ms)
    flowsets = group_flowsets(cheetahs, tp.tau_ms)
    return Scenario(wp, tp, ep, flows, records, cheetahs, flowsets, midnight, kind, cases)
