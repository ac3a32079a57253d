"""Exporter behaviour: a flow becomes records split by the active timeout, then sampled.

Record k of a flow covers [start + k*AT, min(end, start + (k+1)*AT)); its
first/last timestamps are those boundaries, so consecutive records of one flow
are adjacent (last of k == first of k+1). Its bytes/packets are what the flow
sent in that span. A span that would carry no packet is merged with its
neighbour (an exporter never reports an empty record); this only happens for
flows slower than one packet per active timeout.

1:N sampling exports floor(bytes/N) and floor(packets/N); a record with no
sampled packet is not exported at all. The collector scales counts back by N.
"""

from __future__ import annotations

from typing import NamedTuple

from .flows import PROTO_TCP, TCP_ACK, TCP_FIN, TCP_PSH, TCP_SYN, Flow


class ExportRecord(NamedTuple):
    flow_index: int  # index of the flow in the workload
    first_ms: int
    last_ms: int
    bytes: int  # as exported (sampled)
    packets: int  # as exported (sampled)
    tcp_flags: int


def split_flow(flow: Flow, flow_index: int, active_timeout_ms: int, sampling: int = 1) -> list[ExportRecord]:
    """The records an exporter with this active timeout and 1:N sampling exports for `flow`."""
    spans = _spans(flow, active_timeout_ms)
    records: list[ExportRecord] = []
    last = len(spans) - 1
    for i, (t0, t1, b, p) in enumerate(spans):
        sb, sp = b // sampling, p // sampling
        if sp == 0:
            continue
        records.append(ExportRecord(flow_index, t0, t1, sb, sp, _tcp_flags(flow, i == 0, i == last)))
    return records


def _spans(flow: Flow, active_timeout_ms: int) -> list[tuple[int, int, int, int]]:
    """(first, last, bytes, packets) per active-timeout span, empty spans merged with a neighbour."""
    if flow.end_ms - flow.start_ms <= active_timeout_ms:  # one span (zero-length included)
        return [(flow.start_ms, flow.end_ms, flow.bytes, flow.packets)]
    spans: list[tuple[int, int, int, int]] = []
    t0 = flow.start_ms
    while t0 < flow.end_ms:
        t1 = min(flow.end_ms, t0 + active_timeout_ms)
        b = flow.bytes_before(t1) - flow.bytes_before(t0)
        p = flow.packets_before(t1) - flow.packets_before(t0)
        if spans and (p == 0 or spans[-1][3] == 0):
            f0, _, b0, p0 = spans.pop()
            spans.append((f0, t1, b0 + b, p0 + p))
        else:
            spans.append((t0, t1, b, p))
        t0 = t1
    return spans


def _tcp_flags(flow: Flow, first: bool, last: bool) -> int:
    if flow.key.proto != PROTO_TCP:
        return 0
    flags = TCP_ACK | TCP_PSH
    if first:
        flags |= TCP_SYN
    if last:
        flags |= TCP_FIN
    return flags
