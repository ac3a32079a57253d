"""Fixed-rate UDP sending: a token bucket with room for one datagram, so there are no bursts.

A collector's socket buffer (goflow2 has no option to enlarge it) overflows
when datagrams arrive faster than it decodes them; pacing avoids that.
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

from .dgram_file import StoredDatagram


@dataclass
class Pace:
    """Limits: records per second and/or datagrams per second (None = unlimited)."""

    records_per_s: float | None = None
    datagrams_per_s: float | None = None


class TokenBucket:
    """Tokens accrue at the configured rate(s); the bucket holds one datagram's worth.

    So the long-run rate is exact (a late wake-up is made up by one early
    send), yet after a pause at most one extra datagram goes out back to back:
    no bursts.
    """

    def __init__(self, pace: Pace, clock: Callable[[], float] = time.monotonic) -> None:
        self.pace = pace
        self.clock = clock
        self._ready_at = clock()

    def delay(self, records: int) -> float:
        """Seconds to wait before sending a datagram with `records` records; reserves the slot."""
        now = self.clock()
        cost = 0.0
        if self.pace.records_per_s:
            cost = max(cost, max(1, records) / self.pace.records_per_s)
        if self.pace.datagrams_per_s:
            cost = max(cost, 1.0 / self.pace.datagrams_per_s)
        start = max(now - cost, self._ready_at)  # depth: one datagram
        self._ready_at = start + cost
        return max(0.0, start - now)


@dataclass
class SendStats:
    datagrams: int = 0
    records: int = 0
    bytes: int = 0
    seconds: float = 0.0


class Progress:
    """A line on stderr about once per second: records sent, % of the virtual span, rate."""

    def __init__(self, span: tuple[int, int] | None, out: TextIO | None = sys.stderr, every_s: float = 1.0) -> None:
        self.span = span
        self.out = out
        self.every_s = every_s
        self._t0 = time.monotonic()
        self._next = self._t0 + every_s

    def update(self, stats: SendStats, export_ms: int, final: bool = False) -> None:
        if self.out is None:
            return
        now = time.monotonic()
        if not final and now < self._next:
            return
        self._next = now + self.every_s
        elapsed = max(now - self._t0, 1e-9)
        pct = ""
        if self.span and export_ms:
            lo, hi = self.span
            pct = f", virtual {100.0 * (export_ms - lo) / max(1, hi - lo):5.1f} % of span"
        self.out.write(
            f"{'done' if final else 'sent'}: {stats.records} records in {stats.datagrams} datagrams"
            f"{pct}, {stats.records / elapsed:.0f} records/s, {stats.datagrams / elapsed:.0f} datagrams/s,"
            f" {elapsed:.1f} s\n"
        )
        self.out.flush()


def parse_target(text: str, allow_remote: bool = False) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"target {text!r}: expected HOST:PORT, e.g. 127.0.0.1:2055")
    if not allow_remote and host not in ("127.0.0.1", "localhost"):
        raise ValueError(f"target {text!r}: only 127.0.0.1 unless --allow-remote is given")
    return ("127.0.0.1" if host == "localhost" else host), int(port)


def send_paced(
    datagrams: Iterable[StoredDatagram],
    target: tuple[str, int],
    pace: Pace,
    progress: Progress | None = None,
    bind: tuple[str, int] = ("127.0.0.1", 0),
) -> SendStats:
    """Send every datagram from one socket (collectors key templates by source address:port)."""
    stats = SendStats()
    bucket = TokenBucket(pace)
    t0 = time.monotonic()
    last_export = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(bind)
        for d in datagrams:
            wait = bucket.delay(d.records)
            if wait > 0:
                time.sleep(wait)  # pacing, not synchronisation
            sock.sendto(d.payload, target)
            stats.datagrams += 1
            stats.records += d.records
            stats.bytes += len(d.payload)
            last_export = d.export_ms
            if progress:
                progress.update(stats, last_export)
    stats.seconds = time.monotonic() - t0
    if progress:
        progress.update(stats, last_export, final=True)
    return stats
