"""The real Kafka broker of `./cheetah broker` (every topic created), started and stopped by PID.

CHEETAH_BROKER_CMD overrides the command (for instance to run the broker's class directly while
the Maven build is busy); by default it is <repo>/cheetah broker.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Broker:
    bootstrap: str
    process: subprocess.Popen[str]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_broker(log_path: Path, timeout: float = 180) -> Broker:
    command = shlex.split(os.environ.get("CHEETAH_BROKER_CMD", "")) or [str(REPO / "cheetah"), "broker"]
    log = open(log_path, "w")
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    ready: list[str] = []
    reader = threading.Thread(target=lambda: ready.append(process.stdout.readline() if process.stdout else ""), daemon=True)
    reader.start()
    reader.join(timeout)
    line = ready[0] if ready else ""
    try:
        event = json.loads(line)
        assert event.get("event") == "ready"
        return Broker(event["bootstrap"], process)
    except (ValueError, AssertionError, KeyError):
        process.kill()
        process.wait()
        raise RuntimeError(f"`{shlex.join(command)}` did not print its ready line within {timeout} s (got {line!r}); log: {log_path}")
