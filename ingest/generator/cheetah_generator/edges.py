"""The edges workload: a small, fixed set of flows sitting exactly on the definitions' edges.

Every case is built record by record (exported counts, after 1:N sampling),
so its truth can be checked by hand; truth.py then computes it like any
other workload's. With the defaults (H = 1e9 B, I = 60 s, G = 30 s,
tau = 10 s, active timeout 60 s) and exporters sampling 1:10 and 1:100, per
exporter (N its rate), all in the aligned interval J = [J0, J0 + I):

- peak: the peak interval holds exactly H - 1, H and H + 1 bytes after
  scaling. Record 1, inside J, exports (H - c)/N bytes; record 2 starts u ms
  before J ends and lasts N*u ms, so exactly 1/N of it lies in J: floor(N *
  b2 * u / (N * u)) = b2 of its scaled bytes, with b2 = c - 1, c, c + 1.
  Only the H and H + 1 flows are cheetahs.
- stitch-join: two records of 0.6 H each in J, the second starting G (one
  cheetah of 1.2 H) or G + 1 ms (two flows, no cheetah) after the first ends.
- stitch-split: the same with 1.5 H per record: G gives one cheetah of 3 H,
  G + 1 ms two cheetahs (and two flowsets).
- flowset: three cheetahs of one (src, dst) starting tau apart (one set of
  three: the gap counts from the previous start, not the first), and two
  starting tau + 1 ms apart (two sets).
- uneven: a constant-rate flow of 2,987,654,321 B in 2,012,345 packets over
  149,999 ms from J0 + 12,345 ms, cut into records of 23,456 ms (an exporter
  may flush before the active timeout) and sampled by the exporter model
  (records.py): counters and shares that do not divide evenly. At 1:10 its
  peak is 1,195,069,686 B by whole-byte shares, where spreading exact
  fractions and rounding would give 1,195,069,687.
After the cases, one small UDP record per second (alternating exporters, a
new 5-tuple each) until the end of the span carries event time past every
flow's and flowset's closing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .flows import PROTO_TCP, PROTO_UDP, FiveTuple, Flow
from .params import ExportParams, TruthParams, WorkloadParams
from .records import ExportRecord, split_flow
from .sites import Site, make_sites

PEAK_BASE = 1000  # c: the straddling record's share of J is c - 1, c or c + 1 (plus N's remainder)
STRADDLE_IN_J_MS = 100  # u
LEAD_MS = 1000  # cases start this long after J0
PAIR_MS = 10_000  # length of each stitch record
FLOWSET_MS = 20_000  # length of each flowset record
UNEVEN = (12_345, 149_999, 2_987_654_321, 2_012_345)  # offset, duration, bytes, packets
UNEVEN_SPLIT_MS = 23_456  # its records' length: boundaries fall inside intervals
TICK_MS = 1000
TRANSFER_PORT = 5201
TICK_PORT = 53


@dataclass(frozen=True)
class EdgeCase:
    """One case: its flows (indices into EdgeWorkload.flows) and what the truth must say."""

    name: str
    exporter: int
    flow_indices: tuple[int, ...]
    expect: str  # one line, for people: what the case checks


@dataclass(frozen=True)
class EdgeWorkload:
    flows: list[Flow]
    records: list[ExportRecord]
    cases: list[EdgeCase]
    sites: list[Site]
    j0_ms: int


def first_interval(wp: WorkloadParams, tp: TruthParams) -> int:
    """J0: the first aligned interval starting at least one interval after the time base."""
    return -(-(wp.time_base_ms + tp.interval_ms) // tp.interval_ms) * tp.interval_ms


def check_params(wp: WorkloadParams, tp: TruthParams, ep: ExportParams) -> None:
    """The cases fit their interval only for some parameters: say which, instead of a wrong truth."""
    i, g, tau, at = tp.interval_ms, tp.gap_ms, tp.tau_ms, ep.active_timeout_ms
    problems = []
    if LEAD_MS + 2 * PAIR_MS + g + 1 > i:
        problems.append(f"two {PAIR_MS} ms records G + 1 ms apart must fit in I (G={g} I={i})")
    if LEAD_MS + 2 * tau + FLOWSET_MS > i:
        problems.append(f"three flows tau apart must start and end in one interval (tau={tau} I={i})")
    if PAIR_MS > at or FLOWSET_MS > at:
        problems.append(f"case records of {max(PAIR_MS, FLOWSET_MS)} ms exceed the active timeout {at} ms")
    for k in range(ep.exporters):
        n = ep.sampling_of(k)
        if n * STRADDLE_IN_J_MS > at:
            problems.append(f"the straddling record ({n} x {STRADDLE_IN_J_MS} ms) exceeds the active timeout")
        if tp.h_bytes <= PEAK_BASE + n:
            problems.append(f"H={tp.h_bytes} too small for the peak cases")
    closed = first_interval(wp, tp) + UNEVEN[0] + UNEVEN[1] + g + at + tau
    if closed > wp.time_base_ms + wp.span_ms:
        need = -(-(closed - wp.time_base_ms) // 1000)
        problems.append(f"span {wp.span_ms} ms ends before the cases close: give --span >= {need} s")
    if problems:
        raise ValueError("edges workload: " + "; ".join(problems))


def build_edges(wp: WorkloadParams, tp: TruthParams, ep: ExportParams) -> EdgeWorkload:
    check_params(wp, tp, ep)
    b = _Builder(wp, tp, ep)
    for k in range(ep.exporters):
        b.peak_cases(k)
        b.stitch_cases(k, "stitch-join", 3 * tp.h_bytes // 5)
        b.stitch_cases(k, "stitch-split", 3 * tp.h_bytes // 2)
        b.flowset_cases(k)
        b.uneven_case(k)
    b.ticks()
    return EdgeWorkload(b.flows, b.records, b.cases, b.sites, b.j0)


class _Builder:
    def __init__(self, wp: WorkloadParams, tp: TruthParams, ep: ExportParams) -> None:
        self.wp, self.tp, self.ep = wp, tp, ep
        self.sites = make_sites(max(wp.sites, ep.exporters + 1))
        self.j0 = first_interval(wp, tp)
        self.flows: list[Flow] = []
        self.records: list[ExportRecord] = []
        self.cases: list[EdgeCase] = []
        self.host = [10] * ep.exporters  # next host octet per exporter: one (src, dst) pair per case
        self.port = 40000

    # -- pieces ---------------------------------------------------------------

    def _pair(self, exporter: int) -> tuple[int, int, Site, Site]:
        """A fresh (src, dst) pair: exporter k's flows go from site k to site k + 1."""
        src_site = self.sites[exporter % len(self.sites)]
        dst_site = self.sites[(exporter + 1) % len(self.sites)]
        h = self.host[exporter]
        if h > 250:
            raise ValueError("edges workload: out of host addresses")
        self.host[exporter] += 1
        return src_site.host(h), dst_site.host(h), src_site, dst_site

    def _key(self, src: int, dst: int, dport: int = TRANSFER_PORT, proto: int = PROTO_TCP) -> FiveTuple:
        self.port += 1
        return FiveTuple(src, dst, self.port, dport, proto)

    def _flow(self, key: FiveTuple, exporter: int, spans: Sequence[tuple[int, int, int]], s: Site, d: Site) -> int:
        """A flow exported as these records, (first, last, exported bytes) each; returns its index."""
        n = self.ep.sampling_of(exporter)
        idx = len(self.flows)
        packets = [max(1, -(-b // 1400)) for _, _, b in spans]
        self.flows.append(
            Flow(
                key=key,
                start_ms=min(f for f, _, _ in spans),
                end_ms=max(last for _, last, _ in spans),
                bytes=sum(b for _, _, b in spans) * n,
                packets=sum(packets) * n,
                kind="edge",
                exporter=exporter,
                src_as=s.asn,
                dst_as=d.asn,
                in_if=s.ifindex,
                out_if=d.ifindex,
            )
        )
        for i, ((first, last, nbytes), p) in enumerate(zip(spans, packets, strict=True)):
            flags = 0x18 | (0x02 if i == 0 else 0) | (0x01 if i == len(spans) - 1 else 0)
            self.records.append(ExportRecord(idx, first, last, nbytes, p, flags if key.proto == PROTO_TCP else 0))
        return idx

    def _case(self, name: str, exporter: int, flows: Sequence[int], expect: str) -> None:
        self.cases.append(EdgeCase(f"{name} 1:{self.ep.sampling_of(exporter)}", exporter, tuple(flows), expect))

    # -- cases ----------------------------------------------------------------

    def peak_cases(self, k: int) -> None:
        n, h, i = self.ep.sampling_of(k), self.tp.h_bytes, self.tp.interval_ms
        c = PEAK_BASE + (h - PEAK_BASE) % n  # (H - c) divisible by N
        u = STRADDLE_IN_J_MS
        j_end = self.j0 + i
        for delta in (-1, 0, 1):
            src, dst, s, d = self._pair(k)
            r1 = (self.j0 + LEAD_MS, j_end - u, (h - c) // n)
            r2 = (j_end - u, j_end - u + n * u, c + delta)
            idx = self._flow(self._key(src, dst), k, _within_timeout(r1, self.ep.active_timeout_ms) + [r2], s, d)
            verdict = "a cheetah" if delta >= 0 else "not a cheetah"
            self._case(f"peak H{delta:+d}", k, [idx], f"peak interval exactly H{delta:+d} B: {verdict}")

    def stitch_cases(self, k: int, name: str, scaled: int) -> None:
        n, g = self.ep.sampling_of(k), self.tp.gap_ms
        exported = -(-scaled // n)
        for gap in (g, g + 1):
            src, dst, s, d = self._pair(k)
            a0 = self.j0 + LEAD_MS
            b0 = a0 + PAIR_MS + gap
            spans = [(a0, a0 + PAIR_MS, exported), (b0, b0 + PAIR_MS, exported)]
            idx = self._flow(self._key(src, dst), k, spans, s, d)
            how = "stitched into one flow" if gap == g else "two flows"
            self._case(f"{name} gap {'G' if gap == g else 'G+1'}", k, [idx], f"records {gap} ms apart: {how}")

    def flowset_cases(self, k: int) -> None:
        tau = self.tp.tau_ms
        per_record = -(-(3 * self.tp.h_bytes // 2) // self.ep.sampling_of(k))  # 1.5 H scaled, rounded up
        for gap, members in ((tau, 3), (tau + 1, 2)):
            src, dst, s, d = self._pair(k)
            idx = []
            for m in range(members):
                t = self.j0 + LEAD_MS + m * gap
                idx.append(self._flow(self._key(src, dst), k, [(t, t + FLOWSET_MS, per_record)], s, d))
            sets = "one flowset" if gap == tau else f"{members} flowsets"
            self._case(f"flowset starts {'tau' if gap == tau else 'tau+1'}", k, idx, f"starts {gap} ms apart: {sets}")

    def uneven_case(self, k: int) -> None:
        src, dst, s, d = self._pair(k)
        off, dur, nbytes, packets = UNEVEN
        start = self.j0 + off
        f = Flow(
            key=self._key(src, dst),
            start_ms=start,
            end_ms=start + dur,
            bytes=nbytes,
            packets=packets,
            kind="edge",
            exporter=k,
            src_as=s.asn,
            dst_as=d.asn,
            in_if=s.ifindex,
            out_if=d.ifindex,
        )
        idx = len(self.flows)
        self.flows.append(f)
        cut = min(UNEVEN_SPLIT_MS, self.ep.active_timeout_ms)
        self.records.extend(split_flow(f, idx, cut, self.ep.sampling_of(k)))
        self._case("uneven", k, [idx], f"records of {cut} ms, sampling floors: peak compared exactly")

    def ticks(self) -> None:
        """One small UDP record per second to the end of the span: event time moves on, flows close."""
        start = max(r.last_ms for r in self.records) + TICK_MS
        end = self.wp.time_base_ms + self.wp.span_ms
        src_site, dst_site = self.sites[0], self.sites[1]
        for j, t in enumerate(range(start, end, TICK_MS)):
            k = j % self.ep.exporters
            key = FiveTuple(src_site.host(251), dst_site.host(251), 1024 + j % 60000, TICK_PORT, PROTO_UDP)
            idx = len(self.flows)
            self.flows.append(Flow(key, t, t, 80, 1, "tick", k))
            self.records.append(ExportRecord(idx, t, t, 80, 1, 0))


def _within_timeout(span: tuple[int, int, int], active_timeout_ms: int) -> list[tuple[int, int, int]]:
    """One span as adjacent records of at most the active timeout each (bytes by the constant rate)."""
    first, last, nbytes = span
    out = []
    t0, sent = first, 0
    while t0 < last:
        t1 = min(last, t0 + active_timeout_ms)
        by_t1 = nbytes * (t1 - first) // (last - first)
        out.append((t0, t1, by_t1 - sent))
        t0, sent = t1, by_t1
    return out
