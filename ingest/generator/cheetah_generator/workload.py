"""A seeded model of research-site traffic: mice, real-time flows and dataset transfers.

- Dataset transfers go between data transfer nodes of two sites as 1..N
  parallel TCP streams (same src/dst IP and dst port, distinct src ports,
  starts staggered within a few seconds), 1 GB - 1 TB in total at
  0.3 - 10 Gb/s aggregate, and all end before D - margin.
- Real-time flows: long, low-rate UDP (1 - 8 Mb/s, EF marked).
- Mice: short TCP/UDP flows with small byte counts, all over the span.
- Optionally one transfer whose streams start on both sides of a midnight UTC.
Every draw goes through TruthGuard, which refuses anything that would make
the ground truth depend on rounding.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .flows import PROTO_TCP, PROTO_UDP, Flow
from .guard import TruthGuard
from .params import DAY_MS, ExportParams, TruthParams, WorkloadParams
from .sites import DTN_HOSTS, GENERAL_HOSTS, Site, TupleRegistry, make_sites

MAX_TRIES = 2000
TRANSFER_PORTS = (5201, 1094, 443, 2811)
TOS_EF = 46 << 2
TOS_CS1 = 8 << 2
T = TypeVar("T")


class WorkloadError(RuntimeError):
    pass


@dataclass(frozen=True)
class Workload:
    flows: list[Flow]  # in start order
    sites: list[Site]
    midnight_ms: int | None  # the midnight a transfer was placed across, if any


def midnight_in_span(wp: WorkloadParams, truth: TruthParams) -> int | None:
    """The first midnight UTC with room for a crossing transfer before D - margin, else None."""
    m = (wp.time_base_ms // DAY_MS + 1) * DAY_MS
    latest_end = wp.time_base_ms + wp.span_ms - wp.margin_ms
    if m - wp.time_base_ms >= 10_000 and m + 4 * truth.interval_ms + 10_000 <= latest_end:
        return m
    return None


def build_workload(wp: WorkloadParams, truth: TruthParams, export: ExportParams) -> Workload:
    rng = random.Random(wp.seed)
    sites = make_sites(wp.sites)
    guard = TruthGuard(truth, export)
    tuples = TupleRegistry()
    b = _Builder(rng, wp, truth, export, sites, guard, tuples)

    midnight = midnight_in_span(wp, truth)
    if wp.cross_midnight is True and midnight is None:
        raise WorkloadError(
            f"--cross-midnight: no midnight UTC between time base {wp.time_base_ms} and "
            f"D - margin leaves room for a transfer; move --time-base or lengthen --span"
        )
    if wp.cross_midnight is False:
        midnight = None
    if midnight is not None:
        b.add(lambda tid: b.midnight_transfer(tid, midnight), "midnight transfer")
    for _ in range(wp.transfers):
        b.add(b.transfer, "transfer")
    for _ in range(wp.realtime_flows):
        b.add_one(b.realtime, "real-time flow")
    for _ in range(round(wp.mice_per_s * wp.span_ms / 1000)):
        b.add_one(b.mouse, "mouse")
    flows = sorted(b.flows, key=lambda f: (f.start_ms, f.key))
    return Workload(flows, sites, midnight)


class _Builder:
    def __init__(
        self,
        rng: random.Random,
        wp: WorkloadParams,
        truth: TruthParams,
        export: ExportParams,
        sites: list[Site],
        guard: TruthGuard,
        tuples: TupleRegistry,
    ) -> None:
        self.rng = rng
        self.wp = wp
        self.truth = truth
        self.export = export
        self.sites = sites
        self.guard = guard
        self.tuples = tuples
        self.flows: list[Flow] = []
        self.base = wp.time_base_ms
        self.end = wp.time_base_ms + wp.span_ms
        self.transfer_end = self.end - wp.margin_ms
        self.next_transfer_id = 0

    # -- drawing loop -------------------------------------------------------

    def add(self, draw: Callable[[int], list[Flow] | None], what: str) -> None:
        for _ in range(MAX_TRIES):
            group = draw(self.next_transfer_id)
            if not group:
                continue
            keys = [f.key for f in group]
            if len(keys) > 1 and len(set(keys)) != len(keys):
                continue
            if self.guard.accept(group):
                self.tuples.claim(keys)
                self.flows.extend(group)
                if group[0].kind == "transfer":
                    self.next_transfer_id += 1
                return
        raise WorkloadError(
            f"could not draw an unambiguous {what} in {MAX_TRIES} tries "
            f"(H={self.truth.h_bytes} B, I={self.truth.interval_ms} ms, tau={self.truth.tau_ms} ms): "
            "widen the span or relax the parameters"
        )

    def add_one(self, draw: Callable[[], Flow], what: str) -> None:
        """add() for a single flow, without the group bookkeeping (~10^5 mice)."""
        for _ in range(MAX_TRIES):
            f = draw()
            if self.guard.accept_one(f):
                self.tuples.claim([f.key])
                self.flows.append(f)
                return
        raise WorkloadError(
            f"could not draw an unambiguous {what} in {MAX_TRIES} tries "
            f"(H={self.truth.h_bytes} B, I={self.truth.interval_ms} ms): widen the span or relax the parameters"
        )

    # -- helpers ------------------------------------------------------------

    # rng.random()-based draws: several times faster than randint/choice/sample
    # for the ~10^5 mice, and just as reproducible per seed.
    def _int(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi]."""
        return lo + int(self.rng.random() * (hi - lo + 1))

    def _pick(self, seq: Sequence[T]) -> T:
        return seq[int(self.rng.random() * len(seq))]

    def _two_sites(self) -> tuple[Site, Site]:
        n = len(self.sites)
        i = int(self.rng.random() * n)
        j = int(self.rng.random() * (n - 1))
        return self.sites[i], self.sites[j + 1 if j >= i else j]

    def _loguniform(self, lo: float, hi: float) -> float:
        return math.exp(self.rng.uniform(math.log(lo), math.log(hi)))

    def _flow(
        self,
        kind: str,
        src_site: Site,
        dst_site: Site,
        src: int,
        dst: int,
        dst_port: int,
        proto: int,
        start: int,
        end: int,
        nbytes: int,
        packets: int,
        tos: int,
        tid: int = -1,
    ) -> Flow:
        key = self.tuples.allocate(self.rng, src, dst, dst_port, proto)
        return Flow(
            key=key,
            start_ms=start,
            end_ms=end,
            bytes=nbytes,
            packets=packets,
            kind=kind,
            exporter=src_site.index % self.export.exporters,
            tos=tos,
            src_as=src_site.asn,
            dst_as=dst_site.asn,
            in_if=src_site.ifindex,
            out_if=dst_site.ifindex,
            transfer_id=tid,
        )

    def _streams(self, tid: int, n: int, total_bytes: float, agg_bps: float, starts: list[int]) -> list[Flow] | None:
        src_site, dst_site = self._two_sites()
        src = src_site.host(self._pick(DTN_HOSTS))
        dst = dst_site.host(self._pick(DTN_HOSTS))
        port = self._pick(TRANSFER_PORTS)
        mtu = self._pick((1500, 9000))
        tos = self._pick((0, TOS_CS1))
        weights = [self.rng.uniform(0.75, 1.25) for _ in range(n)]
        wsum = sum(weights)
        flows = []
        for w, start in zip(weights, starts, strict=False):
            nbytes = max(mtu, int(total_bytes * w / wsum))
            bps = agg_bps / n * self.rng.uniform(0.85, 1.15)
            end = start + max(1, math.ceil(nbytes * 8 / bps * 1000))
            if end > self.transfer_end:
                return None
            packets = -(-nbytes // mtu)
            flows.append(
                self._flow(
                    "transfer", src_site, dst_site, src, dst, port, PROTO_TCP, start, end, nbytes, packets, tos, tid
                )
            )
        return flows

    # -- traffic classes ----------------------------------------------------

    def transfer(self, tid: int) -> list[Flow] | None:
        wp = self.wp
        n = 1 if self.rng.random() < 0.25 else self._int(min(2, wp.max_streams), wp.max_streams)
        total = self._loguniform(*wp.transfer_bytes)
        bps = self._loguniform(*wp.transfer_bps)
        duration = total * 8 / bps * 1000 * 1.2  # the slowest stream
        latest = self.transfer_end - duration - wp.stagger_ms
        if latest <= self.base:
            return None
        t0 = self._int(self.base, int(latest))
        starts = [t0] + [t0 + self._int(0, wp.stagger_ms) for _ in range(n - 1)]
        return self._streams(tid, n, total, bps, starts)

    def midnight_transfer(self, tid: int, midnight: int) -> list[Flow] | None:
        """Streams starting on both sides of midnight, each clearly a cheetah, one flowset."""
        t = self.truth
        n = min(4, self.wp.max_streams)
        # starts ~1 s apart (all within the stagger window and well under tau), half before midnight
        spacing = min(1000, (t.tau_ms - t.tau_guard_ms) // 2 - 1, int(self.wp.stagger_ms / max(1, n - 0.5)))
        if spacing < 4:
            n = 1
        if n == 1:
            starts = [midnight - self._int(1000, 5000)]
        else:
            first = midnight - spacing * (n // 2) + spacing // 2
            starts = [first + i * spacing + self._int(-spacing // 4, spacing // 4) for i in range(n)]
        min_bps = 8 * t.h_bytes / (t.interval_ms / 1000)  # H within one interval
        stream_bps = min_bps * self.rng.uniform(2.0, 4.0)
        duration_ms = t.interval_ms * self.rng.uniform(3.0, 6.0)
        total = stream_bps * n * duration_ms / 1000 / 8
        return self._streams(tid, n, total, stream_bps * n, starts)

    def realtime(self) -> Flow:
        wp = self.wp
        src_site, dst_site = self._two_sites()
        bps = self._loguniform(*wp.realtime_bps)
        dur = int(self.rng.uniform(*wp.realtime_duration_s) * 1000)
        dur = min(dur, wp.span_ms - 1000)
        start = self._int(self.base, self.end - dur)
        nbytes = max(200, int(bps * dur / 1000 / 8))
        packets = max(1, nbytes // self._int(200, 1200))
        port = self._int(16384, 32767) & ~1
        return self._flow(
            "realtime",
            src_site,
            dst_site,
            src_site.host(self._pick(GENERAL_HOSTS)),
            dst_site.host(self._pick(GENERAL_HOSTS)),
            port,
            PROTO_UDP,
            start,
            start + dur,
            nbytes,
            packets,
            TOS_EF,
        )

    def mouse(self) -> Flow:
        src_site, dst_site = self._two_sites()
        src = src_site.host(self._pick(GENERAL_HOSTS))
        dst = dst_site.host(self._pick(GENERAL_HOSTS))
        start = self._int(self.base, self.end - 1)
        if self.rng.random() < 0.7:
            port = self._pick((443, 443, 443, 80, 22, 8443))
            nbytes = int(min(50e6, max(200.0, self.rng.lognormvariate(math.log(30e3), 1.8))))
            pkt = self._int(400, 1400)
            packets = max(3, -(-nbytes // pkt))
            nbytes = max(nbytes, 40 * packets)
            bps = self._loguniform(1e6, 200e6)
            dur = max(1, min(120_000, int(nbytes * 8 / bps * 1000)))
            proto = PROTO_TCP
        else:
            port = self._pick((53, 53, 53, 123))
            packets = self._int(1, 2)
            nbytes = packets * self._int(60, 512)
            dur = 0 if packets == 1 else self._int(1, 100)
            proto = PROTO_UDP
        end = min(self.end, start + dur)
        return self._flow("mouse", src_site, dst_site, src, dst, port, proto, start, end, nbytes, packets, 0)
