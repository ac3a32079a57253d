"""Superset's webserver (gunicorn) on 127.0.0.1:<port>, up once /health answers."""

from __future__ import annotations

import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from cheetah_dashboards.errors import DashboardsError
from cheetah_dashboards.processes import Child, free_port, start, wait_until
from cheetah_dashboards.superset_home import SupersetHome

HEALTH_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class RunningSuperset:
    url: str
    child: Child


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"OK"
    except (urllib.error.URLError, OSError):
        return False


def start_superset(home: SupersetHome, port: int = 0, workers: int = 1, threads: int = 4) -> RunningSuperset:
    """Starts gunicorn for the prepared home; returns once /health says OK."""
    port = port or free_port()
    gunicorn = Path(home.superset_bin()).parent / "gunicorn"
    argv = [
        str(gunicorn), "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--worker-class", "gthread",
        "--threads", str(threads), "--timeout", "120", "--limit-request-line", "0",
        "--limit-request-field_size", "0", "superset.app:create_app()",
    ]
    child = start("superset webserver", argv, home.logs_dir / "superset.log", env=home.env(), cwd=home.state_dir)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        child.ensure_running()
        return _healthy(url)

    try:
        wait_until(up, HEALTH_TIMEOUT_S, f"Superset /health on {url} (log: {child.log_path})", interval_s=0.25)
    except DashboardsError:
        child.stop()
        raise
    return RunningSuperset(url=url, child=child)


@contextmanager
def running_superset(home: SupersetHome, port: int = 0) -> Iterator[RunningSuperset]:
    server = start_superset(home, port)
    try:
        yield server
    finally:
        server.child.stop()
