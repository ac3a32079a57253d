"""The adapter CLI as a child process: started, waited for on its ready line, stopped by PID."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

ADAPTERS = Path(__file__).resolve().parents[1]


class AdapterProcess:
    def __init__(self, args: list[str], log_path: Path) -> None:
        self.log = open(log_path, "a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cheetah_adapters", *args], cwd=ADAPTERS, stdout=subprocess.PIPE, stderr=self.log, text=True,
        )
        self.lines: Queue[dict[str, Any]] = Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))

    def next_event(self, timeout: float) -> dict[str, Any]:
        try:
            return self.lines.get(timeout=timeout)
        except Empty:
            raise AssertionError(f"the adapter printed nothing within {timeout} s (exit {self.process.poll()}); see {self.log.name}") from None

    def stop(self, timeout: float = 20) -> dict[str, Any]:
        """SIGTERM, then the stopped line with its counters."""
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        finally:
            self.kill()
        assert code == 0, f"adapter exited {code}; see {self.log.name}"
        return self.next_event(5)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()
