"""`./cheetah up` as a child process on free loopback ports: started, waited for, stopped by PID.

Once Kafka, the jobs, the warehouse and goflow2 are up the stack prints `up: ready. NetFlow/IPFIX
-> udp://... | sFlow -> udp://... | warehouse URL | Flink URL | Kafka HOST:PORT` on stderr (and the same as a JSON
line on stdout). Every stderr line goes to the log file; the ready line is parsed from it.
SIGTERM makes the stack stop cleanly (savepoints, warehouse catch-up); if it does not exit in
time, its children (warehouse, goflow2) and then the JVM are killed by PID.

CHEETAH_UP_CMD overrides the command; by default it is <repo>/cheetah up (which runs from a
private copy of Cheetah's jars, so a rebuild meanwhile cannot break it).

`Stack.job_restarts()` reads each Flink job's restart count from the stack's REST API (the
`numRestarts` metric); a test that kills nothing ends with `assert_no_restarts()`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from cheetah_adapters.ports import free_ports

REPO = Path(__file__).resolve().parents[2]
READY = re.compile(r"^up: ready\. NetFlow/IPFIX -> udp://127\.0\.0\.1:(\d+) \| sFlow -> udp://127\.0\.0\.1:(\d+) \| "
                   r"warehouse (\S+) \| Flink (\S+) \| Kafka (\S+)")


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    return free_ports(kind)[0]


@dataclass
class Stack:
    process: subprocess.Popen[str]
    log_path: Path
    data_dir: Path
    netflow_port: int = 0
    sflow_port: int = 0
    warehouse_url: str = ""
    flink_url: str = ""
    bootstrap: str = ""
    ready_line: threading.Event = field(default_factory=threading.Event)
    last_lines: list[str] = field(default_factory=list)

    @property
    def keys_file(self) -> Path:
        return self.data_dir / "keys" / "redirects.json"

    def _drain(self) -> None:
        assert self.process.stderr is not None
        with open(self.log_path, "a") as log:
            for line in self.process.stderr:
                log.write(line)
                log.flush()
                self.last_lines = (self.last_lines + [line.rstrip()])[-20:]
                found = READY.match(line)
                if found:
                    self.netflow_port, self.sflow_port = int(found.group(1)), int(found.group(2))
                    self.warehouse_url, self.flink_url, self.bootstrap = found.group(3), found.group(4), found.group(5)
                    self.ready_line.set()

    def problems(self, limit: int = 5) -> str:
        """The stack log's most repeated error lines (numbers folded), to say why nothing came out."""
        counts: dict[str, int] = {}
        example: dict[str, str] = {}
        for line in self.log_path.read_text(errors="replace").splitlines():
            if re.search(r"Exception|Error|ERROR|failed", line) and not line.startswith("\t"):
                key = re.sub(r"\d+", "N", line)
                counts[key] = counts.get(key, 0) + 1
                example.setdefault(key, line[:300])
        top = sorted(counts, key=lambda k: -counts[k])[:limit]
        return "\n  ".join(f"{counts[k]}x {example[k]}" for k in top) or "(none)"

    def _flink(self, path: str) -> object:
        with urllib.request.urlopen(self.flink_url + path, timeout=10) as r:
            return json.load(r)

    def job_states(self) -> dict[str, str]:
        """Every Flink job of the stack by name, with its state (RUNNING while healthy)."""
        overview = self._flink("/jobs/overview")
        assert isinstance(overview, dict), overview
        return {j["name"]: j["state"] for j in overview["jobs"]}

    def job_restarts(self) -> dict[str, int]:
        """How often each Flink job restarted: its numRestarts metric from the REST API."""
        overview = self._flink("/jobs/overview")
        assert isinstance(overview, dict), overview
        restarts: dict[str, int] = {}
        for job in overview["jobs"]:
            metrics = self._flink(f"/jobs/{job['jid']}/metrics?get=numRestarts")
            assert isinstance(metrics, list), metrics
            values = [int(m["value"]) for m in metrics if m.get("id") == "numRestarts" and "value" in m]
            assert values, f"the Flink REST API reports no numRestarts for job {job['name']} ({job['jid']}): {metrics}"
            restarts[job["name"]] = values[0]
        return restarts

    def assert_no_restarts(self) -> None:
        """Every job runs and never restarted; the causes are in the stack's 'warning: Flink job' lines."""
        states = self.job_states()
        assert states and all(s == "RUNNING" for s in states.values()), f"Flink jobs: {states}\nerrors in {self.log_path}:\n  {self.problems()}"
        restarts = self.job_restarts()
        assert all(n == 0 for n in restarts.values()), f"Flink jobs restarted: {restarts}\nerrors in {self.log_path}:\n  {self.problems()}"

    def await_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.ready_line.wait(0.2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                state = f"exited {self.process.returncode}" if self.process.poll() is not None else f"not ready after {timeout:.0f} s"
                tail = "\n  ".join(self.last_lines[-8:])
                raise AssertionError(f"`cheetah up` {state}; last lines:\n  {tail}\nfull log: {self.log_path}")

    def stop(self, timeout: float = 90) -> int | None:
        """SIGTERM (a clean stop), then SIGKILL by PID to whatever is left. Returns the exit code."""
        if self.process.poll() is None:
            children = _children(self.process.pid)
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                for pid in children + [self.process.pid]:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                self.process.wait()
        return self.process.returncode


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def start_stack(data_dir: Path, log_path: Path, settings: dict[str, str]) -> Stack:
    """`cheetah up` with every port free and chosen here, and `settings` as --set overrides."""
    kinds = {
        "kafka.port": socket.SOCK_STREAM,
        "kafka.controller-port": socket.SOCK_STREAM,
        "flink.rest-port": socket.SOCK_STREAM,
        "netflow.udp-port": socket.SOCK_DGRAM,
        "netflow.sflow-udp-port": socket.SOCK_DGRAM,
        "netflow.metrics-port": socket.SOCK_STREAM,
        "warehouse.http-port": socket.SOCK_STREAM,
    }
    ports = dict(zip(kinds, free_ports(*kinds.values())))
    sets = {**{k: str(v) for k, v in ports.items()}, "data-dir": str(data_dir), **settings}
    command = shlex.split(os.environ.get("CHEETAH_UP_CMD", "")) or [str(REPO / "cheetah"), "up"]
    argv = command + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    with open(log_path, "w") as log:
        log.write(" ".join(argv) + "\n")
    # `cheetah` execs the JVM (after its setup checks), so this PID becomes the stack's own.
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stack = Stack(process, log_path, data_dir)
    threading.Thread(target=stack._drain, daemon=True).start()
    return stack
