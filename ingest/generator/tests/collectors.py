"""Real collectors and exporters for integration tests: stock goflow2, softflowd (loopback, free ports)."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import string
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Stock goflow2 v2.2.6 as `./cheetah setup` installs it (GOFLOW2 overrides).
GOFLOW2 = os.environ.get("GOFLOW2", str(Path(__file__).resolve().parents[3] / ".cheetah" / "bin" / "goflow2"))
SOFTFLOWD = shutil.which("softflowd") or "/usr/sbin/softflowd"


def free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Goflow2:
    port: int
    out: Path
    log: Path
    proc: subprocess.Popen[bytes]

    def lines(self) -> int:
        if not self.out.exists():
            return 0
        with self.out.open("rb") as fh:
            return sum(1 for _ in fh)

    def wait_lines(self, n: int, timeout_s: float = 30.0) -> int:
        """Wait (condition + deadline) until goflow2 wrote n JSON lines; returns the count seen."""
        deadline = time.monotonic() + timeout_s
        seen = self.lines()
        while seen < n and time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"goflow2 exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            time.sleep(0.05)
            seen = self.lines()
        return seen

    def send_in_windows(self, datagrams: list[Any], window: int = 32) -> int:
        """Send datagrams (with their record counts) a window at a time, each only after goflow2
        wrote the records of the windows before; returns the lines seen at the end.

        At most `window` datagrams (< 48 KB) are ever unread, well inside a default socket
        buffer (net.core.rmem_default, 208 KB here): no pace can overflow it however busy the
        machine, so a missing record is the decoder's, never the kernel's."""
        sent = 0
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for i in range(0, len(datagrams), window):
                for d in datagrams[i : i + window]:
                    sock.sendto(d.payload, ("127.0.0.1", self.port))
                    sent += d.records
                if self.wait_lines(sent) < sent:
                    break  # lost: the caller's exact count names it
        return self.lines()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM to this PID: goflow2 closes its file transport
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.read_text().splitlines() if line.strip()]


@contextmanager
def running_goflow2(tmp: Path) -> Iterator[Goflow2]:
    port, http = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
    out, log = tmp / "goflow2.json", tmp / "goflow2.log"
    cmd = [
        GOFLOW2,
        "-listen",
        f"netflow://127.0.0.1:{port}?workers=1",
        "-format",
        "json",
        "-transport",
        "file",
        "-transport.file",
        str(out),
        "-templates.path",
        "",
        "-addr",
        f"127.0.0.1:{http}",
    ]
    with log.open("wb") as log_fh:
        proc = subprocess.Popen(cmd, stdout=log_fh, stderr=subprocess.STDOUT)
    g = Goflow2(port, out, log, proc)
    try:
        _wait_healthy(g, http)
        yield g
    finally:
        g.stop()


def _wait_healthy(g: Goflow2, http_port: int, timeout_s: float = 15.0) -> None:
    """goflow2 answers /__health with 200 once its UDP receivers are started."""
    deadline = time.monotonic() + timeout_s
    url = f"http://127.0.0.1:{http_port}/__health"
    while time.monotonic() < deadline:
        if g.proc.poll() is not None:
            raise RuntimeError(f"goflow2 exited at start: {g.log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"goflow2 not healthy on {url} within {timeout_s} s: {g.log.read_text()[-2000:]}")


def run_softflowd(pcap: Path, target_port: int, version: int, *extra: str) -> str:
    """softflowd reading a pcap (-a: pcap time), exporting to 127.0.0.1:target_port; returns its output."""
    ctl = _short_ctl_path()
    with tempfile.TemporaryDirectory() as d:
        cmd = [
            SOFTFLOWD,
            "-d",
            "-r",
            str(pcap),
            "-n",
            f"127.0.0.1:{target_port}",
            "-v",
            str(version),
            "-a",
            "-p",
            f"{d}/softflowd.pid",
            "-c",
            ctl,
            *extra,
        ]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        finally:
            Path(ctl).unlink(missing_ok=True)
    if r.returncode != 0:
        raise RuntimeError(f"softflowd failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout + r.stderr


def _short_ctl_path() -> str:
    """softflowd 1.1.0 blocks forever in accept() on its control socket after reading a
    pcap when the -c path is longer than 12 characters (measured): use /tmp/sfXXXXX."""
    alphabet = string.ascii_lowercase + string.digits
    for _ in range(100):
        path = "/tmp/sf" + "".join(random.choices(alphabet, k=5))
        if not os.path.exists(path):
            return path
    raise RuntimeError("no free /tmp/sfXXXXX path for softflowd's control socket")
