"""Ground truth: NetFlow cheetahs and parallel flowsets (ARCHITECTURE.md, "Definitions and defaults").

Pure functions over what the collector sees after stitching and scaling: for
each flow, its records as (first_ms, last_ms, bytes scaled by the sampling
rate). A record's bytes are spread uniformly over [first, last) (a zero-length
record counts at its first ms), and a flow's bytes within the aligned interval
[k*I, (k+1)*I) are the sum of those shares. Cheetah iff the peak over all
intervals >= H. Flowsets: cheetahs of one (src, dst), sorted by start; a new
set starts when a flow starts more than tau after the previous flow's start.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

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
    peak_interval_bytes: int  # rounded half up from the exact value


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


def interval_bytes(spans: Iterable[Span], interval_ms: int) -> dict[int, Fraction]:
    """Bytes per aligned interval index k ([k*I, (k+1)*I)), exact."""
    acc: dict[int, Fraction] = defaultdict(Fraction)
    for first, last, b in spans:
        k0 = first // interval_ms
        if last <= first or (last - 1) // interval_ms == k0:
            acc[k0] += b
            continue
        dur = last - first
        for k in range(k0, (last - 1) // interval_ms + 1):
            overlap = min(last, (k + 1) * interval_ms) - max(first, k * interval_ms)
            acc[k] += Fraction(b * overlap, dur)
    return acc


def peak_interval_bytes(spans: Iterable[Span], interval_ms: int) -> Fraction:
    per = interval_bytes(spans, interval_ms)
    return max(per.values(), default=Fraction(0))


def round_half_up(x: Fraction) -> int:
    return int((x + Fraction(1, 2)) // 1)


def find_cheetahs(flows: Iterable[ObservedFlow], h_bytes: int, interval_ms: int) -> list[Cheetah]:
    """Flows whose bytes within one aligned interval reach H, in start order."""
    out: list[Cheetah] = []
    for f in flows:
        if not f.spans or f.bytes < h_bytes:  # peak <= total bytes
            continue
        peak = peak_interval_bytes(f.spans, interval_ms)
        if peak >= h_bytes:
            out.append(Cheetah(f.key, f.start_ms, f.end_ms, f.bytes, round_half_up(peak)))
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
