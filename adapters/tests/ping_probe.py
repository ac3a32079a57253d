"""A delay probe: iputils ping every 0.1 s, each reply kept with its send time (wall clock).

`ping -D` prints the reply's wall-clock time; the send time is that minus the RTT, so windows
are cut by when a probe entered the queue, which is what the tc classes act on. Unanswered
probes (`-O`) are counted as lost.
"""

from __future__ import annotations

import re
import signal
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field

REPLY = re.compile(r"^\[(\d+\.\d+)\] \d+ bytes from \S+ icmp_seq=(\d+) ttl=\d+ time=([\d.]+) ms")
LOST = re.compile(r"^\[(\d+\.\d+)\] no answer yet for icmp_seq=(\d+)")


@dataclass
class Sample:
    sent: float  # epoch seconds
    rtt_ms: float


@dataclass
class PingProbe:
    process: subprocess.Popen[str]
    samples: list[Sample] = field(default_factory=list)
    lost: list[float] = field(default_factory=list)  # epoch seconds of the "no answer yet" lines
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            reply, lost = REPLY.match(line), LOST.match(line)
            with self.lock:
                if reply:
                    rtt = float(reply.group(3))
                    self.samples.append(Sample(float(reply.group(1)) - rtt / 1000, rtt))
                elif lost:
                    self.lost.append(float(lost.group(1)))

    def window(self, start: float, end: float = float("inf")) -> list[float]:
        """RTTs (ms) of the probes sent in [start, end)."""
        with self.lock:
            return [s.rtt_ms for s in self.samples if start <= s.sent < end]

    def await_samples(self, start: float, count: int, timeout: float) -> list[float]:
        deadline = time.monotonic() + timeout
        while len(got := self.window(start)) < count:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"ping: {len(got)} replies of {count} within {timeout} s (exit {self.process.poll()})")
            time.sleep(0.1)
        return got

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_ping(target: str, interval_s: float = 0.1) -> PingProbe:
    process = subprocess.Popen(
        ["ping", "-D", "-n", "-O", "-i", str(interval_s), "-W", "2", target], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    probe = PingProbe(process)
    threading.Thread(target=probe._read, daemon=True).start()
    return probe


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
