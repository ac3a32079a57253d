"""Recounts a tracegen pcap independently (plain struct parsing, not the C
code) and compares packets, IP bytes, per-bin bytes and each injected flow's
packets with the ground-truth file."""

from __future__ import annotations

import json
import struct
import sys
from collections import Counter
from pathlib import Path


def ip_length(frame: bytes) -> tuple[int, tuple | None]:
    off = 12
    etype = struct.unpack_from("!H", frame, off)[0]
    while etype in (0x8100, 0x88A8):
        off += 4
        etype = struct.unpack_from("!H", frame, off)[0]
    off += 2
    if etype == 0x0800:
        total = struct.unpack_from("!H", frame, off + 2)[0]
        proto = frame[off + 9]
        src, dst = frame[off + 12 : off + 16], frame[off + 16 : off + 20]
        l4 = off + (frame[off] & 0xF) * 4
    else:
        total = 40 + struct.unpack_from("!H", frame, off + 4)[0]
        proto = frame[off + 6]
        src, dst = frame[off + 8 : off + 24], frame[off + 24 : off + 40]
        l4 = off + 40
    ports = struct.unpack_from("!HH", frame, l4) if proto in (6, 17) and len(frame) >= l4 + 4 else (0, 0)
    return total, (src, dst, ports[0], ports[1], proto)


def main() -> int:
    pcap, truth_path = Path(sys.argv[1]), Path(sys.argv[2])
    truth = json.loads(truth_path.read_text())
    start_us = truth["start_epoch_s"] * 1_000_000
    bins = [0] * len(truth["bin_bytes"])
    per_flow: Counter = Counter()
    packets = total = 0
    with pcap.open("rb") as f:
        f.read(24)
        while h := f.read(16):
            sec, usec, caplen, _ = struct.unpack("<IIII", h)
            length, key = ip_length(f.read(caplen))
            packets += 1
            total += length
            bins[(sec * 1_000_000 + usec - start_us) // (truth["bin_ms"] * 1000)] += length
            per_flow[key] += 1
    problems = []
    if packets != truth["packets"] or total != truth["bytes"]:
        problems.append(f"pcap has {packets} packets / {total} bytes, truth says {truth['packets']} / {truth['bytes']}")
    if bins != truth["bin_bytes"]:
        problems.append("per-bin bytes differ")
    import ipaddress

    for c in truth["cheetahs"]:
        raw = lambda a: ipaddress.ip_address(a).packed  # noqa: E731
        key = (raw(c["src"]), raw(c["dst"]), c["src_port"], c["dst_port"], c["proto"])
        if per_flow[key] != c["packets"]:
            problems.append(f"flow {c['src']}:{c['src_port']} has {per_flow[key]} packets, truth {c['packets']}")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
