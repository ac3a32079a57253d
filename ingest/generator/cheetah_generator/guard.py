"""Keeps the ground truth unambiguous while the workload is drawn.

A candidate flow (or a whole transfer) is refused, and redrawn, when
- its peak interval bytes lie within +-ambiguity_frac of H, by the model
  (rate x overlap, unsampled) or by the exported records (scaled), or the two
  disagree about cheetah or not; or
- as a cheetah, its start is within +-tau_guard of tau from the start of the
  neighbouring cheetah of the same (src, dst) in start order.
So sub-percent rounding in any correct pipeline cannot flip a result.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .flows import Flow
from .params import ExportParams, TruthParams
from .records import ExportRecord, split_flow
from .truth import peak_interval_bytes


@dataclass(frozen=True)
class Verdict:
    ambiguous: bool
    cheetah: bool
    start_ms: int  # first exported ms (meaningful for cheetahs)


def model_peak(flow: Flow, interval_ms: int) -> int:
    """Max bytes the flow sent within one aligned interval (constant rate, unsampled)."""
    if flow.end_ms == flow.start_ms:
        return flow.bytes
    k0 = flow.start_ms // interval_ms
    k1 = (flow.end_ms - 1) // interval_ms
    best = 0
    for k in range(k0, k1 + 1):
        t0 = max(flow.start_ms, k * interval_ms)
        t1 = min(flow.end_ms, (k + 1) * interval_ms)
        best = max(best, flow.bytes_between(t0, t1))
    return best


class TruthGuard:
    def __init__(self, truth: TruthParams, export: ExportParams) -> None:
        self.t = truth
        self.e = export
        self._low = truth.h_bytes * (1 - truth.ambiguity_frac)
        self._high = truth.h_bytes * (1 + truth.ambiguity_frac)
        self._starts: dict[tuple[int, int], list[int]] = defaultdict(list)

    def verdict(self, flow: Flow) -> Verdict:
        if flow.bytes < self._low:  # peak <= bytes: clearly not a cheetah
            return Verdict(False, False, flow.start_ms)
        recs = self.records(flow, -1)
        m_peak = model_peak(flow, self.t.interval_ms)
        s = self.e.sampling_of(flow.exporter)
        r_peak = peak_interval_bytes(((r.first_ms, r.last_ms, r.bytes * s) for r in recs), self.t.interval_ms)
        ambiguous = (
            self._low <= m_peak <= self._high
            or self._low <= r_peak <= self._high
            or (m_peak >= self.t.h_bytes) != (r_peak >= self.t.h_bytes)
        )
        start = recs[0].first_ms if recs else flow.start_ms
        return Verdict(ambiguous, r_peak >= self.t.h_bytes and not ambiguous, start)

    def records(self, flow: Flow, index: int) -> list[ExportRecord]:
        return split_flow(flow, index, self.e.active_timeout_ms, self.e.sampling_of(flow.exporter))

    def accept_one(self, flow: Flow) -> bool:
        if flow.bytes < self._low:  # fast path: clearly not a cheetah, nothing to remember
            return True
        return self.accept([flow])

    def accept(self, flows: Sequence[Flow]) -> bool:
        """Accept (and remember) a group of flows if none makes the truth ambiguous."""
        verdicts = [self.verdict(f) for f in flows]
        if any(v.ambiguous for v in verdicts):
            return False
        new: dict[tuple[int, int], list[int]] = defaultdict(list)
        for f, v in zip(flows, verdicts, strict=False):
            if v.cheetah:
                new[(f.key.src, f.key.dst)].append(v.start_ms)
        for pair, starts in new.items():
            merged = sorted(self._starts[pair] + starts)
            if any(self._near_tau(b - a) for a, b in zip(merged, merged[1:], strict=False)):
                return False
        for pair, starts in new.items():
            for s in starts:
                bisect.insort(self._starts[pair], s)
        return True

    def _near_tau(self, gap_ms: int) -> bool:
        return abs(gap_ms - self.t.tau_ms) <= self.t.tau_guard_ms
