"""pcap -> real softflowd -> catcher: the exported records match the pcap's packet truth.

Facts these tests pin down (softflowd 1.1.0, reading a pcap with -a):
- bytes are the sum of IPv4 total lengths (not frame lengths, not caplen);
- IPFIX with -A milli carries flowStart/EndMilliseconds within 1 ms of the
  packet times (its own ms conversion is off by one now and then);
- v9 times are sysUptime-relative and off by minus the sub-second part of
  the export time (header unix_secs is whole seconds), so up to -1 s.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from cheetah_generator.catcher import DatagramCatcher
from cheetah_generator.decode import DecodedRecord, Decoder
from cheetah_generator.dgram_file import read_datagrams
from cheetah_generator.flows import FiveTuple
from cheetah_generator.pacing import Pace, send_paced
from cheetah_generator.params import TruthParams
from cheetah_generator.pcap_workload import PcapParams, run_pcap
from cheetah_generator.truth import ObservedFlow, find_cheetahs, group_flowsets

from .collectors import GOFLOW2, SOFTFLOWD, run_softflowd, running_goflow2

if not os.access(SOFTFLOWD, os.X_OK):  # installed by ./cheetah setup: missing is a failure, not a skip
    raise RuntimeError(f"{SOFTFLOWD} is not executable; run ./cheetah setup first")

TP = TruthParams(h_bytes=20_000_000, interval_ms=10_000, tau_ms=10_000)
Key = tuple[int, int, int, int, int]


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    d = tmp_path_factory.mktemp("pcap")
    run_pcap(PcapParams(seed=3), TP, d / "w.pcap", d / "truth")
    return d / "w.pcap", json.loads((d / "truth" / "truth.json").read_text())


def export(pcap: Path, tmp: Path, version: int, *extra: str) -> tuple[Path, list[DecodedRecord]]:
    dg = tmp / f"softflowd-v{version}.dg"
    with DatagramCatcher(dg) as c:
        run_softflowd(pcap, c.address[1], version, *extra)
        assert c.wait(idle_s=0.3, timeout_s=10)
    dec = Decoder()
    recs = [r for d in read_datagrams(dg) for r in dec.decode(d.payload) if not r.options]
    assert dec.missing_template == 0
    return dg, recs


def key_of(r: DecodedRecord) -> Key:
    f = r.fields
    return (int(f[8]), int(f[12]), int(f[7]), int(f[11]), int(f[4]))


def truth_flows(truth: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    def ip(s: str) -> int:
        return int(ipaddress.IPv4Address(s))

    return {(ip(f["src"]), ip(f["dst"]), f["src_port"], f["dst_port"], f["proto"]): f for f in truth["flows"]}


def stitch(recs: list[DecodedRecord], start_id: int, end_id: int) -> dict[Key, list[tuple[int, int, int, int]]]:
    per: dict[Key, list[tuple[int, int, int, int]]] = defaultdict(list)
    for r in recs:
        per[key_of(r)].append((r.time_ms(start_id), r.time_ms(end_id), int(r.fields[1]), int(r.fields[2])))
    return per


def test_ipfix_records_match_packet_truth(workload: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    pcap, truth = workload
    _, recs = export(pcap, tmp_path, 10, "-A", "milli")
    want = truth_flows(truth)
    per = stitch(recs, 152, 153)
    assert set(per) == set(want)
    for k, spans in per.items():
        t = want[k]
        assert sum(s[2] for s in spans) == t["bytes"], k  # IPv4 total lengths
        assert sum(s[3] for s in spans) == t["packets"], k
        assert abs(min(s[0] for s in spans) - t["start_ms"]) <= 1, k
        assert abs(max(s[1] for s in spans) - t["end_ms"]) <= 1, k
    # The cheetahs and flowsets a pipeline derives from softflowd's records are the truth's.
    observed = [
        ObservedFlow(FiveTuple(*k), tuple(sorted((s, e, b) for s, e, b, _ in spans))) for k, spans in per.items()
    ]
    cheetahs = find_cheetahs(observed, TP.h_bytes, TP.interval_ms)
    assert [(c.key.src_port, c.bytes) for c in cheetahs] == [(c["src_port"], c["bytes"]) for c in truth["cheetahs"]]
    sets = group_flowsets(cheetahs, TP.tau_ms)
    assert [(s.n_flows, s.bytes) for s in sets] == [(s["n_flows"], s["bytes"]) for s in truth["flowsets"]]
    assert any(s["start_ms"] < truth["params"]["midnight_ms"] < s["end_ms"] for s in truth["flowsets"])


def test_v9_bytes_exact_times_lag_by_the_export_second_fraction(
    workload: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    pcap, truth = workload
    _, recs = export(pcap, tmp_path, 9, "-t", "maxlife=10")
    want = truth_flows(truth)
    per = stitch(recs, 22, 21)
    assert set(per) == set(want)
    assert len(recs) > len(want)  # maxlife split some flows: records are stitched back per 5-tuple
    for k, spans in per.items():
        t = want[k]
        assert sum(s[2] for s in spans) == t["bytes"], k
        assert -1001 <= min(s[0] for s in spans) - t["start_ms"] <= 1, k
        assert -1001 <= max(s[1] for s in spans) - t["end_ms"] <= 1, k


def test_caught_export_replayed_paced_reaches_goflow2(workload: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    pcap, truth = workload
    dg, recs = export(pcap, tmp_path, 10, "-A", "milli")
    with running_goflow2(tmp_path) as g:
        send_paced(list(read_datagrams(dg)), ("127.0.0.1", g.port), Pace(datagrams_per_s=500))
        assert g.wait_lines(len(recs)) == len(recs)
        g.stop()
        msgs = g.messages()
    assert sum(m["bytes"] for m in msgs) == sum(f["bytes"] for f in truth["flows"])
    assert {m["sampling_rate"] for m in msgs} == {1}  # softflowd announces samplingPacketInterval = 1
