"""UDP sending, paced: a token bucket with room for one datagram, so there are no bursts;
or flow-controlled by the collector (`CollectorWindow`): as fast as it takes datagrams in.

A collector's socket buffer overflows when datagrams arrive faster than it
decodes them, and the kernel drops the rest; a fixed pace below the
collector's speed, or a window of datagrams in flight that its receive
buffer can hold whole, avoids that.
"""

from __future__ import annotations

import socket
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

from .dgram_file import StoredDatagram


@dataclass
class Pace:
    """Limits: records per second and/or datagrams per second (None = unlimited); depth_s: how
    much sending time the bucket may save up (0: one datagram's worth), so that wake-ups later
    than one datagram's interval (thousands of datagrams per second) do not lower the rate."""

    records_per_s: float | None = None
    datagrams_per_s: float | None = None
    depth_s: float = 0.0


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
        start = max(now - max(cost, self.pace.depth_s), self._ready_at)  # depth: one datagram, or depth_s
        self._ready_at = start + cost
        return max(0.0, start - now)


# Bytes the kernel accounts for one received datagram of n bytes on loopback is at most this
# (measured on Linux 6.x: 100 B -> 832, 1400 B -> 2304, 9000 B -> 16640).
def datagram_cost(n: int) -> int:
    return max(2048, 2 * (n + 256))


def metric_sum(page: str, name: str, port: int | None = None) -> float:
    """Sum of every series of one metric in a Prometheus text page (only local_port="port")."""
    total = 0.0
    want = f'local_port="{port}"' if port is not None else None
    for line in page.splitlines():
        if not (line.startswith(name + "{") or line.startswith(name + " ")):
            continue
        labels, _, value = line.rpartition(" ")
        if want is None or want in labels:
            total += float(value)
    return total


class CollectorWindow:
    """Flow control by the collector's own counters (cheetah-goflow2's /metrics): at most
    `window` datagrams sent and not yet taken by it (decoded by goflow2, or dropped by the
    kernel, which the collector also counts). The collector's decoder blocks while Kafka has
    not acknowledged enough, so this follows the whole path to Kafka. The window defaults to
    half of what the collector's granted receive buffer holds of the largest datagram: even if
    its reader stalls, the kernel never drops."""

    TAKEN = ("goflow2_flow_traffic_packets_total", "cheetah_goflow2_socket_drops_total")
    BUFFER = "cheetah_goflow2_socket_receive_buffer_bytes"

    def __init__(self, metrics_url: str, port: int, max_datagram: int, window: int | None = None) -> None:
        self.url = metrics_url
        self.port = port
        self.polls = 0
        self.waited_s = 0.0
        page = self._page()
        buffer = metric_sum(page, self.BUFFER, port)
        if window is None:
            if buffer <= 0:
                raise RuntimeError(
                    f"{metrics_url} has no {self.BUFFER} for port {port}: is it cheetah-goflow2 listening there?"
                )
            window = int(buffer // 2 // datagram_cost(max_datagram))
        self.window = max(1, window)
        self.buffer = int(buffer)
        self._base = self._taken(page)
        self._taken_now = 0

    def _page(self) -> str:
        try:
            with urllib.request.urlopen(self.url, timeout=10) as r:
                return str(r.read().decode())
        except OSError as e:
            raise RuntimeError(f"cannot read the collector's metrics at {self.url}: {e}") from e

    def _taken(self, page: str) -> int:
        return int(sum(metric_sum(page, name, self.port) for name in self.TAKEN))

    def wait_room(self, sent: int, poll_s: float = 0.002, stall_s: float = 120.0) -> None:
        """Returns once fewer than `window` of the `sent` datagrams are still in flight."""
        if sent - self._taken_now < self.window:
            return
        t0 = time.monotonic()
        while True:
            self.polls += 1
            self._taken_now = self._taken(self._page()) - self._base
            if sent - self._taken_now < self.window:
                self.waited_s += time.monotonic() - t0
                return
            if time.monotonic() - t0 > stall_s:
                raise RuntimeError(
                    f"the collector took no datagram for {stall_s:.0f} s ({sent - self._taken_now} in flight):"
                    f" is it running? ({self.url})"
                )
            time.sleep(poll_s)  # polling the collector's counter, with a deadline


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
    follow: CollectorWindow | None = None,
) -> SendStats:
    """Send every datagram from one socket (collectors key templates by source address:port),
    paced by `pace` and, with `follow`, never more than its window ahead of the collector."""
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
            if follow is not None:
                follow.wait_room(stats.datagrams)
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
