"""Start and stop ``python -m cheetah_warehouse serve`` as a child process."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

WAREHOUSE_DIR = Path(__file__).resolve().parents[1]
# A closed port: Kafka tables exist but have no broker (tests that do not need Kafka).
NO_BROKER = "127.0.0.1:9"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(WAREHOUSE_DIR) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cheetah_warehouse", *args],
        capture_output=True, text=True, env=child_env(), timeout=timeout,
    )


@dataclass
class Warehouse:
    url: str
    process: subprocess.Popen[bytes]
    data_dir: Path
    stderr_path: Path

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM and wait; kill if it does not exit in time. Returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode


def start_warehouse(
    data_dir: Path,
    brokers: str = NO_BROKER,
    group_prefix: str = "test",
    extra_args: tuple[str, ...] = (),
    timeout: float = 60,
    extra_env: Mapping[str, str] | None = None,
    stdin: int | None = None,
) -> Warehouse:
    stderr_path = data_dir.parent / f"{data_dir.name}.stderr.log"
    stderr_file = open(stderr_path, "ab")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "cheetah_warehouse", "serve",
            "--data", str(data_dir), "--http-port", "0",
            "--kafka-brokers", brokers, "--kafka-group-prefix", group_prefix, *extra_args,
        ],
        stdin=stdin, stdout=subprocess.PIPE, stderr=stderr_file, env={**child_env(), **(extra_env or {})},
    )
    stderr_file.close()
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    line = b""
    try:
        while not line.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or process.poll() is not None and not selector.select(0):
                break
            if selector.select(timeout=min(remaining, 1.0)):
                chunk = os.read(process.stdout.fileno(), 1)
                if not chunk:
                    break
                line += chunk
    finally:
        selector.close()
    text = line.decode().strip()
    if not text.startswith("READY http://127.0.0.1:"):
        process.kill()
        process.wait()
        raise AssertionError(
            f"warehouse did not print READY within {timeout} s (got {text!r}); stderr:\n"
            + stderr_path.read_text(errors="replace")
        )
    return Warehouse(url=text.split()[1], process=process, data_dir=data_dir, stderr_path=stderr_path)


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def http(
    url: str,
    query: str | None = None,
    body: bytes | str | None = None,
    params: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    path: str = "/",
    timeout: float = 30,
) -> Response:
    """GET when there is no body, POST otherwise; never raises on HTTP errors."""
    all_params = dict(params or {})
    if query is not None:
        all_params["query"] = query
    target = url.rstrip("/") + path + ("?" + urllib.parse.urlencode(all_params) if all_params else "")
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(target, data=data, method="POST" if data is not None else "GET")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Response(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as exc:
        return Response(exc.code, dict(exc.headers), exc.read())


def sql(url: str, statement: str) -> str:
    """Run a statement; fail the test with ClickHouse's text if it errors."""
    response = http(url, body=statement)
    assert response.status == 200, response.text
    return response.text
