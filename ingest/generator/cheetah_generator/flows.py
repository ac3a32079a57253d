"""The flow model: one constant-rate 5-tuple flow over [start_ms, end_ms)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import NamedTuple

PROTO_TCP = 6
PROTO_UDP = 17

TCP_FIN = 0x01
TCP_SYN = 0x02
TCP_PSH = 0x08
TCP_ACK = 0x10


def ip_to_str(addr: int) -> str:
    return str(ipaddress.IPv4Address(addr))


def ip_from_str(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


class FiveTuple(NamedTuple):
    src: int  # IPv4 as an integer
    dst: int
    src_port: int
    dst_port: int
    proto: int


@dataclass(frozen=True)
class Flow:
    """A flow that sends `bytes` in `packets` at a constant rate over [start_ms, end_ms).

    Bytes sent before time t are floor(bytes * (t - start) / (end - start)); a
    zero-length flow (end == start) sends everything at start.
    """

    key: FiveTuple
    start_ms: int
    end_ms: int
    bytes: int
    packets: int
    kind: str  # "mouse", "realtime", "transfer"
    exporter: int = 0
    tos: int = 0
    src_as: int = 0
    dst_as: int = 0
    in_if: int = 0
    out_if: int = 0
    transfer_id: int = -1

    def __post_init__(self) -> None:
        if self.end_ms < self.start_ms:
            raise ValueError(f"flow {self.key} ends before it starts ({self.start_ms} > {self.end_ms})")
        if self.packets < 1 or self.bytes < self.packets:
            raise ValueError(
                f"flow {self.key} needs packets >= 1 and bytes >= packets, got {self.bytes} B / {self.packets} pkts"
            )

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms

    def bytes_before(self, t_ms: int) -> int:
        return _cumulative(self.bytes, self.start_ms, self.end_ms, t_ms)

    def packets_before(self, t_ms: int) -> int:
        return _cumulative(self.packets, self.start_ms, self.end_ms, t_ms)

    def bytes_between(self, t0_ms: int, t1_ms: int) -> int:
        """Bytes sent in [t0, t1) (the whole zero-length flow counts at its start)."""
        if self.end_ms == self.start_ms:
            return self.bytes if t0_ms <= self.start_ms < t1_ms else 0
        return self.bytes_before(t1_ms) - self.bytes_before(t0_ms)


def _cumulative(total: int, start: int, end: int, t: int) -> int:
    if t <= start:
        return 0
    if t >= end:
        return total
    return total * (t - start) // (end - start)
