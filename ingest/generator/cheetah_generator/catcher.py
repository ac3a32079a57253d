"""A UDP catcher that records every datagram to a datagram file (see dgram_file).

softflowd exports a pcap's flows in one unpaced burst that overflows
goflow2's socket; catching the burst here (large receive buffer, nothing
else to do) and replaying it paced gets every record to the collector.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from pathlib import Path

from .dgram_file import DatagramWriter, StoredDatagram

RCVBUF_BYTES = 32 * 1024 * 1024


def describe(payload: bytes) -> tuple[int, int]:
    """(export ms, record count) from a v9/IPFIX header; v9 counts include template records."""
    if len(payload) >= 20 and payload[:2] == b"\x00\x09":
        count, _, secs = struct.unpack_from("!HII", payload, 2)
        return secs * 1000, count
    if len(payload) >= 16 and payload[:2] == b"\x00\x0a":
        secs = struct.unpack_from("!I", payload, 4)[0]
        return secs * 1000, 0
    return 0, 0


class DatagramCatcher:
    """Binds host:port (port 0 = any free port), then records datagrams in a thread until stopped."""

    def __init__(self, out: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        self.out = out
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF_BYTES)
        self.sock.bind((host, port))
        self.sock.settimeout(0.05)
        self.address: tuple[str, int] = self.sock.getsockname()
        self.count = 0
        self.last_arrival = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._writer = DatagramWriter(out)
        self._thread = threading.Thread(target=self._run, name="datagram-catcher", daemon=True)

    def start(self) -> DatagramCatcher:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    payload = self.sock.recv(65535)
                except TimeoutError:
                    continue
                export_ms, records = describe(payload)
                with self._lock:
                    self._writer.write(StoredDatagram(payload, export_ms, 0, records))
                    self._writer.flush()
                    self.count += 1
                    self.last_arrival = time.monotonic()
        finally:
            self.sock.close()
            self._writer.close()

    def wait(self, count: int | None = None, idle_s: float | None = None, timeout_s: float = 60.0) -> bool:
        """Block until `count` datagrams arrived, or nothing arrived for idle_s after the first one.

        Returns False if the deadline passed first.
        """
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                n, last = self.count, self.last_arrival
            if count is not None and n >= count:
                return True
            if idle_s is not None and n > 0 and time.monotonic() - last >= idle_s:
                return True
            self._stop.wait(0.02)
        return False

    def stop(self) -> int:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        elif self._thread.ident is None:  # never started
            self.sock.close()
            self._writer.close()
        return self.count

    def __enter__(self) -> DatagramCatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
