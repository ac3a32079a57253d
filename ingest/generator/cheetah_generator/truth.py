"""Ground truth: NetFlow cheetahs and parallel flowsets (docs/ARCHITECTURE.md, "Definitions and defaults").

Pure functions over what the collector sees: exported records, bytes scaled
by the sampling rate.
- Stitching: records of one 5-tuple from one exporter, in start order, belong
  to one flow while a record starts at most G after the flow's latest end
  (gap <= G); a gap of G + 1 ms starts a new flow.
- Interval bytes, in whole bytes: a record of B bytes over [first, last] has
  sent floor(B * (t - first) / (last - first)) bytes by ms t (the constant rate
  of flows.Flow, rounded down), so the aligned interval [k*I, (k+1)*I) gets
  what it sent between the interval's edges clipped to the record; the last
  interval takes the remainder and the shares sum to B exactly. A zero-length
  record, or one inside a single interval, counts wholly in its first ms's
  interval. A flow's interval bytes are the sums of its records' shares.
- Cheetah iff the peak over all intervals >= H; the peak is an exact integer.
- Flowsets: cheetahs of one (src, dst), sorted by start; a new set starts when
  a flow starts more than tau after the previous flow's start.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .flows import FiveTuple

Span = tuple[int, int, int]  # (first_ms, last_ms, bytes)


@dataclass(frozen=True)
class ObservedFlow:
    key: FiveTuple
    spans: tuple[Span, ...]  # sorted, adjacent records of one flow

    @property
    def start_ms(self) -> int:
        return self.spans[0][0]

    @property
    def end_ms(self) -> int:
        return max(s[1] for s in self.spans)

    @property
    def bytes(self) -> int:
        return sum(s[2] for s in self.spans)


@dataclass(frozen=True)
class Cheetah:
    key: FiveTuple
    start_ms: int
    end_ms: int
    bytes: int
    peak_interval_bytes: int  # exact (whole-byte shares, see the module doc)


@dataclass(frozen=True)
class Flowset:
    src: int
    dst: int
    start_ms: int
    end_ms: int
    bytes: int
    members: tuple[Cheetah, ...]

    @property
    def n_flows(self) -> int:
        return len(self.members)

    @property
    def duration_s(self) -> float:
        return (self.end_ms - self.start_ms) / 1000.0

    @property
    def rate_bps(self) -> float:
        d = self.duration_s
        return self.bytes * 8 / d if d > 0 else 0.0


class SeenRecord(NamedTuple):
    """A record as the collector sees it: who exported it, its 5-tuple, its times, its scaled bytes."""

    exporter: int
    key: FiveTuple
    first_ms: int
    last_ms: int
    bytes: int  # scaled by the sampling rate


def stitch(records: Iterable[SeenRecord], gap_ms: int) -> list[ObservedFlow]:
    """Flows of records of one (exporter, 5-tuple): in start order, gap to the latest end <= G joins."""
    per: dict[tuple[int, FiveTuple], list[SeenRecord]] = defaultdict(list)
    for r in records:
        per[(r.exporter, r.key)].append(r)
    flows: list[ObservedFlow] = []
    for (_, key), recs in per.items():
        recs.sort(key=lambda r: (r.first_ms, r.last_ms))
        current: list[Span] = []
        end = 0
        for r in recs:
            if current and r.first_ms - end > gap_ms:
                flows.append(ObservedFlow(key, tuple(current)))
                current = []
            end = r.last_ms if not current else max(end, r.last_ms)
            current.append((r.first_ms, r.last_ms, r.bytes))
        flows.append(ObservedFlow(key, tuple(current)))
    flows.sort(key=lambda f: (f.start_ms, f.key))
    return flows


def record_shares(first: int, last: int, nbytes: int, interval_ms: int) -> Iterator[tuple[int, int]]:
    """(k, whole bytes of the record within [k*I, (k+1)*I)) for every interval the record overlaps."""
    k0 = first // interval_ms
    if last <= first or (last - 1) // interval_ms == k0:
        yield k0, nbytes
        return
    span = last - first
    sent = 0
    for k in range(k0, (last - 1) // interval_ms + 1):
        by_edge = nbytes * (min(last, (k + 1) * interval_ms) - first) // span
        yield k, by_edge - sent
        sent = by_edge


def interval_bytes(spans: Iterable[Span], interval_ms: int) -> dict[int, int]:
    """Bytes per aligned interval index k ([k*I, (k+1)*I)), whole bytes (module doc)."""
    acc: dict[int, int] = defaultdict(int)
    for first, last, b in spans:
        for k, share in record_shares(first, last, b, interval_ms):
            acc[k] += share
    return acc


def peak_interval_bytes(spans: Iterable[Span], interval_ms: int) -> int:
    return max(interval_bytes(spans, interval_ms).values(), default=0)


def find_cheetahs(flows: Iterable[ObservedFlow], h_bytes: int, interval_ms: int) -> list[Cheetah]:
    """Flows whose bytes within one aligned interval reach H, in start order."""
    out: list[Cheetah] = []
    for f in flows:
        if not f.spans or f.bytes < h_bytes:  # peak <= total bytes
            continue
        peak = peak_interval_bytes(f.spans, interval_ms)
        if peak >= h_bytes:
            out.append(Cheetah(f.key, f.start_ms, f.end_ms, f.bytes, peak))
    out.sort(key=_cheetah_order)
    return out


def group_flowsets(cheetahs: Iterable[Cheetah], tau_ms: int) -> list[Flowset]:
    """Parallel flowsets: per (src, dst), sorted by start, split where a start gap exceeds tau."""
    by_pair: dict[tuple[int, int], list[Cheetah]] = defaultdict(list)
    for c in cheetahs:
        by_pair[(c.key.src, c.key.dst)].append(c)
    sets: list[Flowset] = []
    for (src, dst), members in by_pair.items():
        members.sort(key=_cheetah_order)
        current: list[Cheetah] = [members[0]]
        for prev, nxt in zip(members, members[1:], strict=False):
            if nxt.start_ms - prev.start_ms > tau_ms:
                sets.append(_flowset(src, dst, current))
                current = []
            current.append(nxt)
        sets.append(_flowset(src, dst, current))
    sets.sort(key=lambda s: (s.start_ms, s.src, s.dst))
    return sets


def _flowset(src: int, dst: int, members: Sequence[Cheetah]) -> Flowset:
    return Flowset(
        src=src,
        dst=dst,
        start_ms=min(m.start_ms for m in members),
        end_ms=max(m.end_ms for m in members),
        bytes=sum(m.bytes for m in members),
        members=tuple(members),
    )


def _cheetah_order(c: Cheetah) -> tuple[int, int, FiveTuple]:
    return (c.start_ms, c.end_ms, c.key)
