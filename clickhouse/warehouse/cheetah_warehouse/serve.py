"""``serve``: own the data directory, apply migrations, consume, answer HTTP.

Start-up order: open the engine (Kafka tables attach and start consuming),
apply pending migrations, start the HTTP front, then print exactly one line
``READY http://127.0.0.1:PORT`` on stdout. SIGTERM/SIGINT stop the front and
close the engine (consumers commit their offsets); the exit status is 0.
"""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from . import kafka_retarget, migrations
from .clients import EngineClient
from .embedded import EmbeddedEngine, EngineConfig
from .http_front import HttpFront
from .users import load_users

OWNER_FILE_NAME = "warehouse-url"  # lets `query --data` point at the running server


@dataclass(frozen=True)
class ServeConfig:
    data_dir: Path
    schemas_dir: Path
    migrations_dir: Path
    http_port: int
    kafka_brokers: str
    kafka_group_prefix: str | None
    kafka_flush_interval_ms: str | None
    log_level: str
    users_dir: Path | None = None  # users.d files: read-only dashboard users (users.py)


def serve(config: ServeConfig) -> int:
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    engine = EmbeddedEngine(EngineConfig(config.data_dir, config.schemas_dir, config.log_level))
    front: HttpFront | None = None
    owner_file = engine.config.data_dir / OWNER_FILE_NAME
    try:
        engine.open()
        migrations.apply(
            EngineClient(engine),
            config.migrations_dir,
            {
                "kafka_brokers": config.kafka_brokers,
                "kafka_group_prefix": config.kafka_group_prefix,
                "kafka_flush_interval_ms": config.kafka_flush_interval_ms,
            },
        )
        kafka_retarget.retarget(EngineClient(engine), config.kafka_brokers, config.kafka_group_prefix)
        users = load_users(sorted(config.users_dir.glob("*.xml")) if config.users_dir else [])
        front = HttpFront(engine, config.http_port, users).start()
        owner_file.write_text(front.url + "\n", encoding="utf-8")
        print(f"READY {front.url}", flush=True)
        while not stop.wait(timeout=1.0):
            pass
        print("stopping: closing the HTTP front and the engine", file=sys.stderr, flush=True)
        return 0
    finally:
        if front is not None:
            front.stop()
        engine.close()
        owner_file.unlink(missing_ok=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def running_url(data_dir: Path) -> str | None:
    """The URL a running ``serve`` wrote for this data directory, if any."""
    try:
        return (data_dir / OWNER_FILE_NAME).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
