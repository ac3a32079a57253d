"""The pcap writer and the packet-level truth, read back from the file itself."""

from __future__ import annotations

import json
import struct
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from cheetah_generator.flows import TCP_FIN, TCP_SYN
from cheetah_generator.params import TruthParams
from cheetah_generator.pcap_workload import PcapParams, run_pcap
from cheetah_generator.pcap_writer import build_packet

TP = TruthParams(h_bytes=20_000_000, interval_ms=10_000)
Pkt = tuple[int, int, int, bytes]  # (ts µs, caplen, wire length, captured bytes)


def checksum_ok(data: bytes) -> bool:
    s: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def read_pcap(path: Path) -> list[Pkt]:
    raw = path.read_bytes()
    magic, major, minor, _, _, snaplen, link = struct.unpack_from("<IHHiIII", raw)
    assert (magic, major, minor, snaplen, link) == (0xA1B2C3D4, 2, 4, 64, 1)
    out: list[Pkt] = []
    pos = 24
    while pos < len(raw):
        sec, usec, cap, orig = struct.unpack_from("<IIII", raw, pos)
        out.append((sec * 1_000_000 + usec, cap, orig, raw[pos + 16 : pos + 16 + cap]))
        pos += 16 + cap
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Pkt], dict[str, Any]]:
    d = tmp_path_factory.mktemp("pcap")
    run_pcap(PcapParams(seed=4, mice=30), TP, d / "w.pcap", d / "truth")
    return read_pcap(d / "w.pcap"), json.loads((d / "truth" / "truth.json").read_text())


def test_packets_are_truncated_but_keep_wire_length(written: tuple[list[Pkt], dict[str, Any]]) -> None:
    packets, _ = written
    assert [p[0] for p in packets] == sorted(p[0] for p in packets)
    for _, cap, orig, data in packets:
        ip_len = struct.unpack_from("!H", data, 16)[0]
        assert orig == 14 + ip_len and cap == min(64, orig) and len(data) == cap
        assert data[12:14] == b"\x08\x00" and data[14] == 0x45 and checksum_ok(data[14:34])


def test_tcp_flows_open_with_syn_and_close_with_fin(written: tuple[list[Pkt], dict[str, Any]]) -> None:
    packets, _ = written
    flags: dict[tuple[bytes, ...], list[int]] = defaultdict(list)
    for _, _, _, d in packets:
        if d[23] == 6:
            key = (d[26:30], d[30:34], d[34:36], d[36:38])
            flags[key].append(d[47])
    forward = [f for f in flags.values() if f[0] & TCP_SYN and not f[0] & 0x10]  # SYN without ACK
    assert len(forward) > 10
    for f in forward:
        assert f[-1] & TCP_FIN and not any(x & TCP_FIN for x in f[:-1])


def test_truth_bytes_are_ip_total_lengths_from_the_file(written: tuple[list[Pkt], dict[str, Any]]) -> None:
    packets, truth = written
    per: dict[tuple[str, str, int, int, int], int] = defaultdict(int)
    for _, _, _, d in packets:
        src, dst = ".".join(map(str, d[26:30])), ".".join(map(str, d[30:34]))
        sport, dport = struct.unpack_from("!HH", d, 34)
        per[(src, dst, sport, dport, d[23])] += struct.unpack_from("!H", d, 16)[0]
    flows = {(f["src"], f["dst"], f["src_port"], f["dst_port"], f["proto"]): f["bytes"] for f in truth["flows"]}
    assert per == flows
    assert truth["totals"]["packets"] == len(packets)


def test_truth_shape(written: tuple[list[Pkt], dict[str, Any]]) -> None:
    _, truth = written
    assert truth["params"]["H"] == 20_000_000 and truth["params"]["I_ms"] == 10_000
    sets = [s["n_flows"] for s in truth["flowsets"]]
    assert sorted(sets) == [1, 2, 2, 3]  # A (3), A2 (2, same pair), midnight (2), X (1 of 2 streams)
    pairs = [(s["src"], s["dst"]) for s in truth["flowsets"]]
    assert len(set(pairs)) == 3  # A and A2 share a host pair but are two sets
    m = truth["params"]["midnight_ms"]
    assert any(s["start_ms"] < m < s["end_ms"] and s["n_flows"] == 2 for s in truth["flowsets"])
    for c in truth["cheetahs"]:
        assert c["peak_interval_bytes"] >= 1.03 * TP.h_bytes


def test_udp_checksum_and_length() -> None:
    frame = build_packet(0xC6120101, 0xC6120202, 17, 5000, 53, 100)
    assert struct.unpack_from("!H", frame, 38)[0] == 80  # UDP length = 100 - 20
    assert checksum_ok(frame[14:34])
