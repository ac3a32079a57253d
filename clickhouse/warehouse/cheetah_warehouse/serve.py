"""``serve``: own the data directory, apply migrations, consume, answer HTTP.

Start-up order: open the engine, apply pending migrations, drop the Kafka
engine tables they create (kafka_tables.py), start the consumers (consumer.py),
start the HTTP front, then print exactly one line ``READY http://127.0.0.1:PORT``
on stdout. SIGTERM/SIGINT stop the consumers (a batch being written is
finished), the front and the engine; the exit status is 0. A SIGKILL loses and
repeats nothing either: see consumer.py.
"""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from . import migrations
from .consumer import DEFAULT_MAX_BATCH_RECORDS, ConsumerConfig, Ingest
from .declarations import load_declarations
from .clients import EngineClient
from .embedded import EmbeddedEngine, EngineConfig
from .http_front import HttpFront
from .kafka_tables import NO_BROKER, drop_kafka_tables
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
    tables_dir: Path | None = None  # table declarations (default: tables/ beside migrations_dir): what each consumer writes
    max_batch_records: int = DEFAULT_MAX_BATCH_RECORDS
    stop_merges: Path | None = None  # a SQL file (queries/stop_merges.sql) run before consuming
    kafka_client_options: dict[str, str] = field(default_factory=dict)  # --kafka-config: credentials


def serve(config: ServeConfig) -> int:
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    engine = EmbeddedEngine(EngineConfig(config.data_dir, config.schemas_dir, config.log_level))
    front: HttpFront | None = None
    ingest: Ingest | None = None
    owner_file = engine.config.data_dir / OWNER_FILE_NAME
    try:
        engine.open()
        drop_kafka_tables(EngineClient(engine))
        migrations.resolve_variables({"kafka_brokers": config.kafka_brokers})  # refuse a bad value as before
        migrations.apply(
            EngineClient(engine),
            config.migrations_dir,
            {
                "kafka_brokers": NO_BROKER,  # the Kafka tables are dropped: this process consumes (consumer.py)
                "kafka_group_prefix": config.kafka_group_prefix,
                "kafka_flush_interval_ms": config.kafka_flush_interval_ms,
            },
        )
        drop_kafka_tables(EngineClient(engine))
        if config.stop_merges is not None:
            engine.query(config.stop_merges.read_text(encoding="utf-8"))
        ingest = Ingest(
            engine,
            # The declarations the migrations were written from: tables/ beside them unless given.
            load_declarations(config.tables_dir or config.migrations_dir.parent / "tables", config.schemas_dir),
            ConsumerConfig(
                brokers=config.kafka_brokers,
                group_prefix=config.kafka_group_prefix or str(migrations.VARIABLES["kafka_group_prefix"][2]),
                flush_interval_s=int(config.kafka_flush_interval_ms or str(migrations.VARIABLES["kafka_flush_interval_ms"][2])) / 1000,
                max_batch_records=config.max_batch_records,
                client_options=dict(config.kafka_client_options),
            ),
        ).start()
        users = load_users(sorted(config.users_dir.glob("*.xml")) if config.users_dir else [])
        front = HttpFront(engine, config.http_port, users).start()
        owner_file.write_text(front.url + "\n", encoding="utf-8")
        print(f"READY {front.url}", flush=True)
        while not stop.wait(timeout=1.0):
            pass
        print("stopping: closing the HTTP front and the engine", file=sys.stderr, flush=True)
        return 0
    finally:
        if ingest is not None:
            ingest.stop()
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
