"""A small packet-level workload for softflowd, written as a pcap, with truth from its packets.

Everything is sized from H and I (threshold rate r_H = 8*H/I b/s), so the same
scenario works at any test scale (default H = 20 MB, I = 10 s):
- transfer A: 3 streams site-a -> site-b at 1.4-1.7 r_H, > 2.15 I long (cheetahs)
- transfer A2: 2 streams on the same host pair, starting > tau + 3 s after A's
  last stream (a second flowset for the same pair)
- transfer M: 2 streams site-c -> site-d starting 1.5 s either side of
  midnight UTC (when the span contains one): one flowset across midnight
- transfer X: site-b -> site-c, one cheetah stream and one at 0.3 r_H
- transfer S: 4 slow streams site-e -> site-f at 0.3 r_H (no cheetah)
- 2 real-time UDP flows at 0.04 r_H, and mice (short TCP and DNS/NTP UDP)
TCP streams open with SYN (answered by SYN-ACK) and close with FIN (answered
by ACK). Bytes are IPv4 total lengths, what softflowd 1.1.0 counts.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .flows import PROTO_TCP, PROTO_UDP, TCP_ACK, TCP_FIN, TCP_PSH, TCP_SYN, FiveTuple, ip_to_str
from .params import DEFAULT_TIME_BASE_MS, TruthParams
from .pcap_writer import ETH_HEADER, IP_HEADER, PcapWriter, build_packet, l4_header_len
from .sites import DTN_HOSTS, GENERAL_HOSTS, make_sites
from .truth import Cheetah, Flowset, ObservedFlow, find_cheetahs, group_flowsets, peak_interval_bytes
from .truth_io import write_truth

TCP_MIN = IP_HEADER + 20


@dataclass(frozen=True)
class PcapParams:
    seed: int = 1
    time_base_ms: int = DEFAULT_TIME_BASE_MS + 3_540_000  # 23:59:00 UTC, a minute before midnight
    span_ms: int = 120_000
    margin_ms: int = 20_000  # transfers end before span - margin
    snaplen: int = 64
    mtu: int = 9000  # IP size of bulk packets (jumbo frames, as on science DMZs)
    mice: int = 150


@dataclass
class Packet:
    ts_us: int
    key: FiveTuple
    ip_len: int
    tcp_flags: int = 0


@dataclass
class PacketFlow:
    """Per-direction 5-tuple totals, as a flow exporter would report them (ms floored)."""

    key: FiveTuple
    first_ms: int
    last_ms: int
    bytes: int = 0
    packets: int = 0
    tcp_flags: int = 0
    per_interval: dict[int, int] = field(default_factory=lambda: defaultdict(int))


@dataclass(frozen=True)
class PcapTruth:
    flows: list[PacketFlow]
    cheetahs: list[Cheetah]
    flowsets: list[Flowset]
    packets: int
    midnight_ms: int | None


class _Gen:
    def __init__(self, pp: PcapParams, tp: TruthParams) -> None:
        self.pp = pp
        self.tp = tp
        self.rng = random.Random(pp.seed)
        self.sites = make_sites(6)
        self.packets: list[Packet] = []
        self.used_ports: set[int] = set()
        self.r_h = 8 * tp.h_bytes / (tp.interval_ms / 1000)  # b/s that puts H in one interval
        self.base_us = pp.time_base_ms * 1000
        self.end_us = (pp.time_base_ms + pp.span_ms) * 1000
        self.transfer_end_us = (pp.time_base_ms + pp.span_ms - pp.margin_ms) * 1000

    def port(self) -> int:
        while True:
            p = self.rng.randint(32768, 60999)
            if p not in self.used_ports:
                self.used_ports.add(p)
                return p

    def tcp_stream(self, src: int, dst: int, dport: int, start_us: int, bps: float, dur_us: int, size: int) -> None:
        """SYN, SYN-ACK, data packets of `size` at a constant rate, FIN, ACK."""
        if start_us + dur_us + 2000 > self.transfer_end_us:
            raise ValueError(
                f"pcap workload: a transfer would end after span - margin; lengthen --span "
                f"(H={self.tp.h_bytes} B, I={self.tp.interval_ms} ms need ~{4 * self.tp.interval_ms} ms per transfer)"
            )
        sport = self.port()
        fwd = FiveTuple(src, dst, sport, dport, PROTO_TCP)
        rev = FiveTuple(dst, src, dport, sport, PROTO_TCP)
        self.packets.append(Packet(start_us, fwd, TCP_MIN, TCP_SYN))
        self.packets.append(Packet(start_us + 500, rev, TCP_MIN, TCP_SYN | TCP_ACK))
        gap_us = size * 8 / bps * 1e6
        n = max(1, int(dur_us / gap_us))
        t0 = start_us + 1000
        for i in range(n):
            self.packets.append(Packet(t0 + int(i * gap_us), fwd, size, TCP_ACK | TCP_PSH))
        t_end = t0 + int(n * gap_us)
        self.packets.append(Packet(t_end, fwd, TCP_MIN, TCP_FIN | TCP_ACK))
        self.packets.append(Packet(t_end + 500, rev, TCP_MIN, TCP_ACK))

    def dtn_pair(self, src_site: int, dst_site: int) -> tuple[int, int]:
        s, d = self.sites[src_site], self.sites[dst_site]
        return s.host(self.rng.choice(DTN_HOSTS)), d.host(self.rng.choice(DTN_HOSTS))

    def transfer(self, hosts: tuple[int, int], starts_us: Sequence[int], rates: Sequence[float]) -> None:
        """Parallel streams (rate factor x r_H each), each 2.15-2.35 I long: covers a full aligned interval."""
        for start, factor in zip(starts_us, rates, strict=False):
            dur = int(self.tp.interval_ms * 1000 * self.rng.uniform(2.15, 2.35))
            self.tcp_stream(hosts[0], hosts[1], 5201, start, factor * self.r_h, dur, self.pp.mtu)

    def udp_flow(self, src: int, dst: int, dport: int, start_us: int, bps: float, dur_us: int, size: int) -> None:
        key = FiveTuple(src, dst, self.port(), dport, PROTO_UDP)
        gap_us = size * 8 / bps * 1e6
        n = max(1, int(dur_us / gap_us))
        for i in range(n):
            self.packets.append(Packet(start_us + int(i * gap_us), key, size))

    def mouse(self) -> None:
        a, b = self.rng.sample(self.sites, 2)
        src, dst = a.host(self.rng.choice(GENERAL_HOSTS)), b.host(self.rng.choice(GENERAL_HOSTS))
        start = self.rng.randint(self.base_us, self.end_us - 2_000_000)
        if self.rng.random() < 0.7:
            n = self.rng.randint(3, 30)
            dur = self.rng.randint(1_000, 1_500_000)
            sport, dport = self.port(), self.rng.choice((443, 80, 22))
            fwd = FiveTuple(src, dst, sport, dport, PROTO_TCP)
            rev = FiveTuple(dst, src, dport, sport, PROTO_TCP)
            self.packets.append(Packet(start, fwd, TCP_MIN, TCP_SYN))
            self.packets.append(Packet(start + 300, rev, TCP_MIN, TCP_SYN | TCP_ACK))
            for i in range(n):
                size = self.rng.randint(200, 1500)
                self.packets.append(Packet(start + 600 + dur * i // n, fwd, size, TCP_ACK | TCP_PSH))
            self.packets.append(Packet(start + 700 + dur, fwd, TCP_MIN, TCP_FIN | TCP_ACK))
            self.packets.append(Packet(start + 1000 + dur, rev, TCP_MIN, TCP_ACK))
        else:
            key = FiveTuple(src, dst, self.port(), self.rng.choice((53, 123)), PROTO_UDP)
            for i in range(self.rng.randint(1, 2)):
                self.packets.append(Packet(start + i * 20_000, key, self.rng.randint(60, 512)))


def midnight_for(pp: PcapParams, tp: TruthParams) -> int | None:
    day = 86_400_000
    m = (pp.time_base_ms // day + 1) * day
    if m - pp.time_base_ms >= 3_000 and m + 3 * tp.interval_ms + 5_000 <= pp.time_base_ms + pp.span_ms - pp.margin_ms:
        return m
    return None


def generate_packets(pp: PcapParams, tp: TruthParams) -> tuple[list[Packet], int | None]:
    g = _Gen(pp, tp)
    rng = g.rng
    base = g.base_us
    tau_us = tp.tau_ms * 1000
    a_start = base + 5_000_000
    a_starts = [a_start, a_start + rng.randint(200_000, 900_000), a_start + rng.randint(1_000_000, 2_000_000)]
    pair_a = g.dtn_pair(0, 1)
    g.transfer(pair_a, a_starts, [rng.uniform(1.4, 1.7) for _ in a_starts])
    a2 = max(a_starts) + tau_us + rng.randint(3_000_000, 5_000_000)  # same pair, a new flowset
    g.transfer(pair_a, [a2, a2 + rng.randint(100_000, 1_500_000)], [rng.uniform(1.4, 1.7) for _ in range(2)])
    midnight = midnight_for(pp, tp)
    if midnight is not None:
        g.transfer(g.dtn_pair(2, 3), [midnight * 1000 - 1_500_000, midnight * 1000 + 1_500_000], [2.0, 2.0])
    x = base + rng.randint(8_000_000, 12_000_000)
    g.transfer(g.dtn_pair(1, 2), [x, x + 700_000], [1.8, 0.3])
    s0 = base + rng.randint(2_000_000, 4_000_000)
    g.transfer(g.dtn_pair(4, 5), [s0 + i * 400_000 for i in range(4)], [0.3] * 4)
    for _ in range(2):
        a, b = rng.sample(g.sites, 2)
        g.udp_flow(
            a.host(rng.choice(GENERAL_HOSTS)),
            b.host(rng.choice(GENERAL_HOSTS)),
            5004,
            base + rng.randint(0, 2_000_000),
            0.04 * g.r_h,
            pp.span_ms * 1000 - 3_000_000,
            1200,
        )
    for _ in range(pp.mice):
        g.mouse()
    g.packets.sort(key=lambda p: (p.ts_us, p.key))
    return g.packets, midnight


def packet_truth(packets: Sequence[Packet], tp: TruthParams, midnight_ms: int | None) -> PcapTruth:
    """Cheetahs and flowsets from the packets themselves (bytes = IPv4 total length)."""
    flows: dict[FiveTuple, PacketFlow] = {}
    for p in packets:
        ms = p.ts_us // 1000
        f = flows.get(p.key)
        if f is None:
            f = flows[p.key] = PacketFlow(p.key, ms, ms)
        f.last_ms = ms
        f.bytes += p.ip_len
        f.packets += 1
        f.tcp_flags |= p.tcp_flags
        f.per_interval[ms // tp.interval_ms] += p.ip_len
    ordered = sorted(flows.values(), key=lambda f: (f.first_ms, f.key))
    _check_unambiguous(ordered, tp)
    # One record per flow spanning [first, last]: the truth module then spreads it
    # uniformly; for these constant-rate flows that matches the packets to well
    # under the ambiguity margin, which _check_unambiguous verified both ways.
    observed = [ObservedFlow(f.key, ((f.first_ms, f.last_ms, f.bytes),)) for f in ordered]
    cheetahs = find_cheetahs(observed, tp.h_bytes, tp.interval_ms)
    exact = {f.key: max(f.per_interval.values()) for f in ordered}
    cheetahs = [Cheetah(c.key, c.start_ms, c.end_ms, c.bytes, exact[c.key]) for c in cheetahs]
    return PcapTruth(ordered, cheetahs, group_flowsets(cheetahs, tp.tau_ms), len(packets), midnight_ms)


def _check_unambiguous(flows: Sequence[PacketFlow], tp: TruthParams) -> None:
    lo, hi = tp.h_bytes * (1 - tp.ambiguity_frac), tp.h_bytes * (1 + tp.ambiguity_frac)
    for f in flows:
        packet_peak = max(f.per_interval.values())
        spread_peak = peak_interval_bytes([(f.first_ms, f.last_ms, f.bytes)], tp.interval_ms)
        if (
            lo <= packet_peak <= hi
            or lo <= spread_peak <= hi
            or (packet_peak >= tp.h_bytes) != (spread_peak >= tp.h_bytes)
        ):
            raise ValueError(
                f"pcap workload: flow {f.key} peaks at {packet_peak} B per interval, within "
                f"{tp.ambiguity_frac:.0%} of H={tp.h_bytes}; pick another --seed or H/I"
            )
    starts: dict[tuple[int, int], list[int]] = defaultdict(list)
    for f in flows:
        if max(f.per_interval.values()) >= tp.h_bytes:
            starts[(f.key.src, f.key.dst)].append(f.first_ms)
    for pair, s in starts.items():
        s.sort()
        for a, b in zip(s, s[1:], strict=False):
            if abs((b - a) - tp.tau_ms) <= tp.tau_guard_ms:
                raise ValueError(
                    f"pcap workload: cheetah starts {a} and {b} of {ip_to_str(pair[0])}->{ip_to_str(pair[1])} "
                    f"are within {tp.tau_guard_ms} ms of tau={tp.tau_ms} ms apart; pick another --seed or --tau-s"
                )


def write_pcap(packets: Sequence[Packet], path: Path, snaplen: int) -> None:
    with PcapWriter(path, snaplen) as w:
        seq: dict[FiveTuple, int] = defaultdict(int)
        for i, p in enumerate(packets):
            k = p.key
            frame = build_packet(
                k.src,
                k.dst,
                k.proto,
                k.src_port,
                k.dst_port,
                p.ip_len,
                tcp_flags=p.tcp_flags,
                seq=seq[k],
                ident=i,
            )
            if k.proto == PROTO_TCP:
                seq[k] += (
                    p.ip_len - IP_HEADER - l4_header_len(k.proto) + (1 if p.tcp_flags & (TCP_SYN | TCP_FIN) else 0)
                )
            w.write(p.ts_us, frame, ETH_HEADER + p.ip_len)


def pcap_params_doc(pp: PcapParams, tp: TruthParams, midnight_ms: int | None) -> dict[str, Any]:
    return {
        "mode": "pcap",
        "H": tp.h_bytes,
        "I_ms": tp.interval_ms,
        "tau_ms": tp.tau_ms,
        "G_ms": tp.gap_ms,
        "sampling": 1,
        "active_timeout_ms": None,
        "seed": pp.seed,
        "time_base_ms": pp.time_base_ms,
        "span_ms": pp.span_ms,
        "margin_ms": pp.margin_ms,
        "snaplen": pp.snaplen,
        "mtu": pp.mtu,
        "midnight_ms": midnight_ms,
        "bytes_are": "IPv4 total length (as softflowd counts)",
        "ambiguity_frac": tp.ambiguity_frac,
        "tau_guard_ms": tp.tau_guard_ms,
    }


def flow_rows(flows: Sequence[PacketFlow]) -> list[dict[str, Any]]:
    return [
        {
            "src": ip_to_str(f.key.src),
            "dst": ip_to_str(f.key.dst),
            "src_port": f.key.src_port,
            "dst_port": f.key.dst_port,
            "proto": f.key.proto,
            "start_ms": f.first_ms,
            "end_ms": f.last_ms,
            "bytes": f.bytes,
            "packets": f.packets,
            "tcp_flags": f.tcp_flags,
        }
        for f in flows
    ]


def run_pcap(pp: PcapParams, tp: TruthParams, out: Path, truth_dir: Path) -> str:
    packets, midnight = generate_packets(pp, tp)
    truth = packet_truth(packets, tp, midnight)
    write_pcap(packets, out, pp.snaplen)
    # records: one per flow (softflowd reading a pcap does not split by maxlife); datagrams: the exporter's.
    totals = {"packets": truth.packets, "flows": len(truth.flows), "records": len(truth.flows), "datagrams": None}
    write_truth(
        truth_dir,
        pcap_params_doc(pp, tp, midnight),
        truth.cheetahs,
        truth.flowsets,
        totals,
        extra={"flows": flow_rows(truth.flows)},
    )
    size = out.stat().st_size
    return (
        f"wrote {out} ({truth.packets} packets, {size / 1e6:.1f} MB), {len(truth.flows)} flows, "
        f"{len(truth.cheetahs)} cheetahs, {len(truth.flowsets)} flowsets; truth in {truth_dir}"
    )
