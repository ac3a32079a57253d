"""The `netflow` command: model -> truth files -> datagrams (sent paced, or written to a file)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .dgram_file import DatagramWriter, StoredDatagram
from .edges import EdgeCase
from .export import build_datagrams, exporter_identities
from .flows import ip_to_str
from .pacing import CollectorWindow, Pace, Progress, SendStats, send_paced
from .params import ExportParams, TruthParams, WorkloadParams
from .scenario import Scenario, build_scenario
from .sites import make_sites
from .truth_io import write_sites, write_truth


@dataclass(frozen=True)
class RunResult:
    scenario: Scenario
    datagrams: list[StoredDatagram]
    sent: SendStats | None


def truth_params_doc(sc: Scenario) -> dict[str, Any]:
    wp, tp, ep = sc.workload, sc.truth_params, sc.export
    return {
        "mode": "netflow",
        "workload_kind": sc.kind,
        "H": tp.h_bytes,
        "I_ms": tp.interval_ms,
        "tau_ms": tp.tau_ms,
        "G_ms": tp.gap_ms,
        "sampling": ep.sampling,
        "sampling_per_exporter": [ep.sampling_of(k) for k in range(ep.exporters)],
        "active_timeout_ms": ep.active_timeout_ms,
        "seed": wp.seed,
        "version": ep.version,
        "time_base_ms": wp.time_base_ms,
        "span_ms": wp.span_ms,
        "margin_ms": wp.margin_ms,
        "exporters": [
            {"source_id": e.source_id, "boot_ms": e.boot_ms} for e in exporter_identities(ep, wp.time_base_ms)
        ],
        "midnight_ms": sc.midnight_ms,
        "ambiguity_frac": tp.ambiguity_frac,
        "tau_guard_ms": tp.tau_guard_ms,
        "workload": {
            "sites": wp.sites,
            "mice_per_s": wp.mice_per_s,
            "realtime_flows": wp.realtime_flows,
            "transfers": wp.transfers,
            "max_streams": wp.max_streams,
        },
    }


def case_doc(sc: Scenario, case: EdgeCase) -> dict[str, Any]:
    """An edges case for people reading truth.json: what it checks and the 5-tuples it uses."""
    keys = [sc.flows[i].key for i in case.flow_indices]
    return {
        "name": case.name,
        "expect": case.expect,
        "flows": [[ip_to_str(k.src), ip_to_str(k.dst), k.src_port, k.dst_port, k.proto] for k in keys],
    }


def datagrams_of(sc: Scenario) -> Iterator[StoredDatagram]:
    for d in build_datagrams(sc.flows, sc.records, sc.export, sc.workload.time_base_ms):
        yield StoredDatagram(d.payload, d.export_ms, d.exporter, d.records)


def run_netflow(
    wp: WorkloadParams,
    tp: TruthParams,
    ep: ExportParams,
    truth_dir: Path | None,
    target: tuple[str, int] | None,
    pace: Pace,
    datagrams_out: Path | None = None,
    quiet: bool = False,
    kind: str = "research",
    follow: CollectorWindow | None = None,
) -> RunResult:
    log = None if quiet else sys.stderr
    sc = build_scenario(wp, tp, ep, kind)
    datagrams = list(datagrams_of(sc))
    totals = {"records": len(sc.records), "datagrams": len(datagrams), "flows": sc.exported_flows}
    if truth_dir is not None:
        extra = {"cases": [case_doc(sc, c) for c in sc.cases]} if sc.cases else None
        write_truth(truth_dir, truth_params_doc(sc), sc.cheetahs, sc.flowsets, totals, extra)
        write_sites(truth_dir, make_sites(wp.sites))
    if log:
        log.write(
            f"workload seed {wp.seed}: {len(sc.flows)} flows, {totals['records']} records in "
            f"{totals['datagrams']} datagrams (v{ep.version}, 1:{ep.exporters_sampling_text()}), "
            f"{len(sc.cheetahs)} cheetahs, {len(sc.flowsets)} flowsets"
            + (f"; truth in {truth_dir}" if truth_dir else "")
            + "\n"
        )
    if datagrams_out is not None:
        with DatagramWriter(datagrams_out) as w:
            for d in datagrams:
                w.write(d)
        if log:
            log.write(f"wrote {len(datagrams)} datagrams to {datagrams_out}\n")
    sent = None
    if target is not None:
        span = (wp.time_base_ms, wp.time_base_ms + wp.span_ms)
        sent = send_paced(datagrams, target, pace, Progress(span, log), follow=follow)
    return RunResult(sc, datagrams, sent)
