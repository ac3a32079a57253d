"""The incast guard on one access port: attach its tc programs, guard receivers, read its counts.

    g = Guard.attach(interface="sw-r0", netns="ns-sw")   # the port towards the receivers
    g.set_receiver("10.9.0.1", buffer_bytes=65536, mss=1448)
    g.watch_queue()                                        # the port's root qdisc backlog -> guard
    g.stats()["10.9.0.1"]["senders"]
    g.detach()

The data path is adapters/incast_bpf/guard.bpf.c (the share policy: policy.h), attached by the
cheetah-incast-guard loader; its maps are pinned under PIN_ROOT, one directory per port, so a new
Guard on the same port (an adapter restart) finds the settings and counts in force.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from cheetah_adapters.incast.bpf import NOEXIST, BpfError, PinnedMap
from cheetah_adapters.incast.qdisc import QdiscError, QueueReader, QueueStats

log = logging.getLogger("cheetah_adapters.incast")

# Where adapters/build.sh puts the loader and the object (CHEETAH_ADAPTERS_BIN overrides).
BIN = Path(os.environ.get("CHEETAH_ADAPTERS_BIN", Path(__file__).resolve().parents[2] / ".bin"))
PIN_ROOT = Path("/sys/fs/bpf/cheetah-incast")

_SETTINGS = struct.Struct("=QII")  # buffer_bytes, mss, pad
_COUNTERS = struct.Struct("=9Q")
COUNTER_NAMES = (
    "senders", "senders_one_mss", "syn_acks", "releases", "acks_seen", "acks_capped", "share_bytes", "promotions", "table_full",
)
_PORT = struct.Struct("=QQ")  # backlog_bytes, updated_ns
_CONN_KEY_SIZE, _CONN_VALUE_SIZE = 36, 8


class GuardError(RuntimeError):
    pass


def address_key(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> bytes:
    """16 bytes, IPv4 as IPv4-mapped IPv6 (the data path's receiver key)."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    return (ipaddress.IPv6Address(f"::ffff:{ip}") if ip.version == 4 else ip).packed


def address_of(key: bytes) -> str:
    ip = ipaddress.IPv6Address(key)
    return str(ip.ipv4_mapped or ip)


@dataclass(frozen=True)
class ReceiverSettings:
    buffer_bytes: int
    mss: int


class Guard:
    def __init__(self, interface: str, netns: str, pin_dir: Path) -> None:
        self.interface = interface
        self.netns = netns
        self.pin_dir = pin_dir
        try:
            self.settings = PinnedMap(str(pin_dir / "settings"), 16, _SETTINGS.size)
            self.counters = PinnedMap(str(pin_dir / "counters"), 16, _COUNTERS.size)
            self.port = PinnedMap(str(pin_dir / "port"), 4, _PORT.size)
            self.conns = PinnedMap(str(pin_dir / "conns"), _CONN_KEY_SIZE, _CONN_VALUE_SIZE)
        except BpfError as e:
            raise GuardError(str(e)) from None
        self._watch: threading.Thread | None = None
        self._stop = threading.Event()
        self.queue: QueueStats | None = None
        self.max_backlog = 0
        self._peak_lock = threading.Lock()  # the queue thread raises the peak, the samples take it

    @staticmethod
    def pin_dir_for(interface: str, netns: str = "") -> Path:
        return PIN_ROOT / f"{netns or 'root'}-{interface}"

    @classmethod
    def attach(cls, interface: str, netns: str = "", pin_dir: Path | None = None, bin_dir: Path = BIN) -> "Guard":
        """Loads and attaches the programs (or re-attaches them, keeping their maps)."""
        pin = pin_dir or cls.pin_dir_for(interface, netns)
        loader, obj = bin_dir / "cheetah-incast-guard", bin_dir / "incast_guard.bpf.o"
        for f in (loader, obj):
            if not f.exists():
                raise GuardError(f"{f} is missing: build the adapters (./cheetah setup, or adapters/build.sh)")
        args = [str(loader), "attach", "--object", str(obj), "--interface", interface, "--pin", str(pin)]
        if netns:
            args += ["--netns", netns]
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise GuardError(f"attaching the incast guard to {interface} failed: {done.stderr.strip() or done.stdout.strip()}")
        log.info("incast guard attached: %s", done.stdout.strip())
        return cls(interface, netns, pin)

    def detach(self) -> None:
        """Stops the queue watch, removes the programs and the pinned maps."""
        self.stop_watch()
        for m in (self.settings, self.counters, self.port, self.conns):
            m.close()
        Guard.detach_port(self.interface, self.netns, self.pin_dir)

    @staticmethod
    def detach_port(interface: str, netns: str = "", pin_dir: Path | None = None, bin_dir: Path = BIN) -> None:
        """Removes the guard from a port (and its pins), whether or not a Guard holds it."""
        pin = pin_dir or Guard.pin_dir_for(interface, netns)
        args = [str(bin_dir / "cheetah-incast-guard"), "detach", "--interface", interface, "--pin", str(pin)]
        if netns:
            args += ["--netns", netns]
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise GuardError(f"detaching the incast guard from {interface} failed: {done.stderr.strip()}")

    # --- receivers ------------------------------------------------------------------------------

    def set_receiver(self, address: str, buffer_bytes: int, mss: int) -> None:
        """Guards a receiver: its senders are counted from now and share 75 % of buffer_bytes."""
        if buffer_bytes <= 0 or mss <= 0:
            raise GuardError(f"buffer ({buffer_bytes}) and mss ({mss}) must be positive")
        key = address_key(address)
        try:
            self.counters.update(key, bytes(_COUNTERS.size), NOEXIST)
        except BpfError as e:
            if e.errno != 17:  # EEXIST: a guard already counting keeps its counts
                raise GuardError(f"cannot add receiver {address}: {e}") from None
        self.settings.update(key, _SETTINGS.pack(buffer_bytes, mss, 0))

    def clear_receiver(self, address: str) -> None:
        """Stops guarding a receiver: its ACKs pass untouched, its counts and connections go."""
        key = address_key(address)
        self.settings.delete(key)
        self.counters.delete(key)
        for conn in list(self.conns.keys()):
            if conn[:16] == key:
                self.conns.delete(conn)

    def receivers(self) -> dict[str, ReceiverSettings]:
        found = {}
        for key in self.settings.keys():
            raw = self.settings.lookup(key)
            if raw is not None:
                buffer_bytes, mss, _ = _SETTINGS.unpack(raw)
                found[address_of(key)] = ReceiverSettings(buffer_bytes, mss)
        return found

    def stats(self) -> dict[str, dict[str, int]]:
        """Per guarded receiver: the data path's counts, its settings and the queue's state."""
        found = {}
        for address, s in self.receivers().items():
            raw = self.counters.lookup(address_key(address))
            counts = dict(zip(COUNTER_NAMES, _COUNTERS.unpack(raw))) if raw else dict.fromkeys(COUNTER_NAMES, 0)
            counts.update(buffer_bytes=s.buffer_bytes, mss=s.mss)
            if self.queue is not None:
                counts.update(backlog_bytes=self.queue.backlog_bytes, queue_drops=self.queue.drops)
            found[address] = counts
        return found

    # --- the queue ------------------------------------------------------------------------------

    def set_backlog(self, backlog_bytes: int) -> None:
        self.port.update(struct.pack("=I", 0), _PORT.pack(backlog_bytes, time.monotonic_ns()))

    def watch_queue(self, interval_s: float = 0.001) -> QueueStats:
        """Starts a thread feeding the interface's root qdisc backlog to the data path; returns the
        queue's first reading (its kind and byte limit)."""
        try:
            reader = QueueReader(self.interface, self.netns)
            first = reader.root()
        except QdiscError as e:
            raise GuardError(str(e)) from None
        self.queue = first
        self._stop.clear()

        def loop() -> None:
            try:
                while not self._stop.is_set():
                    self.queue = reader.root()
                    with self._peak_lock:
                        self.max_backlog = max(self.max_backlog, self.queue.backlog_bytes)
                    self.set_backlog(self.queue.backlog_bytes)
                    self._stop.wait(interval_s)
            except (QdiscError, BpfError, OSError) as e:
                log.error("incast guard: reading the queue of %s stopped: %s", self.interface, e)
            finally:
                reader.close()

        self._watch = threading.Thread(target=loop, name=f"incast-queue-{self.interface}", daemon=True)
        self._watch.start()
        return first

    def take_max_backlog(self) -> int:
        """The largest backlog seen since the previous call."""
        with self._peak_lock:
            peak, self.max_backlog = self.max_backlog, self.queue.backlog_bytes if self.queue else 0
        return peak

    def stop_watch(self) -> None:
        self._stop.set()
        if self._watch is not None:
            self._watch.join(timeout=5)
            self._watch = None
