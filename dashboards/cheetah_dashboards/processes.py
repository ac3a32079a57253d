"""Child processes started by the tooling: started with a deadline, stopped by their own PID."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from cheetah_dashboards.errors import DashboardsError


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str, interval_s: float = 0.2) -> None:
    """Polls condition until it holds; raises naming `what` once timeout_s has passed."""
    deadline = time.monotonic() + timeout_s
    while True:
        if condition():
            return
        if time.monotonic() >= deadline:
            raise DashboardsError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(interval_s)


@dataclass
class Child:
    """A started child process; its stderr goes to a log file so that failures can quote it."""

    name: str
    process: subprocess.Popen[str]
    log_path: Path
    stdout_lines: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, lines: int = 25) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def ensure_running(self) -> None:
        code = self.process.poll()
        if code is not None:
            raise DashboardsError(
                f"{self.name} (pid {self.pid}) exited with status {code}; last lines of {self.log_path}:\n"
                f"{self.log_tail()}"
            )

    def stop(self, timeout_s: float = 20.0) -> None:
        """SIGTERM this child (and only it, by PID); SIGKILL if it does not exit in time."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout_s)


def start(name: str, argv: Sequence[str], log_path: Path, env: dict[str, str] | None = None,
          cwd: Path | None = None) -> Child:
    """Starts argv with stdout kept in memory (read by a thread) and stderr in log_path."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w")  # noqa: SIM115 - owned by the child for its lifetime
    try:
        process = subprocess.Popen(
            list(argv), stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True,
            env={**os.environ, **(env or {})}, cwd=cwd,
        )
    except OSError as error:
        raise DashboardsError(f"cannot start {name} ({argv[0]}): {error}") from error
    finally:
        log.close()
    child = Child(name=name, process=process, log_path=log_path)

    def read_stdout() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            child.stdout_lines.append(line.rstrip("\n"))

    threading.Thread(target=read_stdout, name=f"{name}-stdout", daemon=True).start()
    return child


def run(name: str, argv: Sequence[str], env: dict[str, str] | None = None, timeout_s: float = 300.0) -> str:
    """Runs a command to completion; raises with its output when it fails."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as error:
        raise DashboardsError(f"{name} did not finish within {timeout_s:g} s: {' '.join(argv[:3])} ...") from error
    except OSError as error:
        raise DashboardsError(f"cannot run {name} ({argv[0]}): {error}") from error
    if done.returncode != 0:
        output = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
        raise DashboardsError(f"{name} failed with status {done.returncode}:\n{output}")
    return done.stdout + done.stderr
