"""Adding a column the way a newcomer does, end to end, with a real Kafka broker.

In a private copy of schemas/ and clickhouse/: a warehouse runs on today's migrations and
stores a flowset; a field is added to Flowset in the .proto and one line to
tables/flowsets.yaml; `schema new-migration` writes the migration; the warehouse restarts on
the same data directory, applies it, and a flowset carrying the new field lands with it,
while the rows stored before, and the one produced while it was down, keep theirs (0).
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import yaml

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR
from tests.cheetah_messages import address, load_messages
from tests.kafka_broker import KafkaBroker, broker_with_topics
from tests.warehouse_process import run_cli, sql, start_warehouse

MANIFEST = yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"]
FLOWSETS_TOPIC = next(t["name"] for t in MANIFEST if t["table"] == "flowsets")
START_MS = int(time.time() * 1000) - 3_600_000


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    # Every stored topic: a Kafka table whose topic is missing holds one of the engine's few
    # streaming threads for 15 s per attempt ("Can't get assignment"), starving the others.
    with broker_with_topics(tmp_path_factory.mktemp("kafka"), {t["name"]: 1 for t in MANIFEST if t["table"]}) as started:
        yield started


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def produce(bootstrap: str, records: list[bytes]) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for record in records:
        producer.produce(FLOWSETS_TOPIC, record)
    assert producer.flush(30) == 0


def flowset(cls: Any, flowset_id: str, **extra: Any) -> bytes:
    return cls(
        flowset_id=flowset_id, src_addr=address("198.18.1.10"), dst_addr=address("198.18.2.20"), n_flows=3,
        start_ms=START_MS, end_ms=START_MS + 10_000, bytes=3 * 10**9, duration_s=10.0, rate_bps=2.4e9,
        member_flow_ids=["a", "b", "c"], closed_ms=START_MS + 20_000, **extra,
    ).SerializeToString()


def test_a_declared_column_reaches_table_queue_and_view_and_stores_its_field(broker: KafkaBroker, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(DEFAULT_SCHEMAS_DIR, repo / "schemas")
    shutil.copytree(DEFAULT_TABLES_DIR, repo / "tables")
    shutil.copytree(DEFAULT_MIGRATIONS_DIR, repo / "migrations")
    paths = ("--migrations", str(repo / "migrations"), "--schemas", str(repo / "schemas"))
    data = tmp_path / "data"

    old = load_messages(repo / "schemas")["Flowset"]
    produce(broker.bootstrap, [flowset(old, "before")])
    warehouse = start_warehouse(data, brokers=broker.bootstrap, group_prefix="round-trip", extra_args=paths)
    try:
        wait_until(lambda: sql(warehouse.url, "SELECT count() FROM flowsets") == "1\n", "the flowset stored before the change")
    finally:
        assert warehouse.stop() == 0, warehouse.stderr()
    produce(broker.bootstrap, [flowset(old, "while-down")])  # read after the upgrade, by the new queue

    # The change: one field in the .proto, one line in the declaration, one command.
    proto = repo / "schemas" / "cheetah" / "v1" / "flowsets.proto"
    proto.write_text(proto.read_text().replace("  uint64 closed_ms = 14;\n", "  uint64 closed_ms = 14;\n  uint32 hops = 15;\n"))
    declaration = repo / "tables" / "flowsets.yaml"
    declaration.write_text(declaration.read_text().replace("  n_flows: UInt32\n", "  n_flows: UInt32\n  hops: UInt32\n"))
    options = ("--tables", str(repo / "tables"), *paths)
    written = run_cli("schema", "new-migration", "flowsets_hops", *options, timeout=300)
    assert written.returncode == 0, written.stderr
    migration = Path(written.stdout.strip())
    assert migration.parent == repo / "migrations" and migration.name.endswith("_flowsets_hops.sql")
    assert "ALTER TABLE flowsets ADD COLUMN IF NOT EXISTS hops UInt32 AFTER n_flows;" in migration.read_text()
    assert run_cli("schema", "check", *options, timeout=300).returncode == 0

    new = load_messages(repo / "schemas")["Flowset"]
    restarted = start_warehouse(data, brokers=broker.bootstrap, group_prefix="round-trip", extra_args=paths)
    try:
        url = restarted.url
        assert f"applied {migration.name}" in restarted.stderr()
        produce(broker.bootstrap, [flowset(new, "after", hops=7)])
        wait_until(lambda: sql(url, "SELECT count() FROM flowsets WHERE flowset_id = 'after'") == "1\n", "the flowset with hops")
        assert sql(url, "SELECT flowset_id, hops, n_flows, bytes FROM flowsets ORDER BY flowset_id") == (
            "after\t7\t3\t3000000000\nbefore\t0\t3\t3000000000\nwhile-down\t0\t3\t3000000000\n"
        )  # each once: the consumer group continued from its committed offset
        columns = "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '{}' ORDER BY position"
        table = sql(url, columns.format("flowsets")).splitlines()
        assert table[table.index("n_flows\tUInt32") + 1] == "hops\tUInt32"
        # The Kafka table a server gets reads the field (the embedded warehouse drops its own and
        # inserts through the declaration: the row above).
        assert re.search(r"CREATE TABLE IF NOT EXISTS flowsets_queue\s*\([^)]*\bhops\s+UInt32", migration.read_text())
        view = sql(url, "SELECT as_select FROM system.tables WHERE database = currentDatabase() AND name = 'flowsets_mv' FORMAT TSVRaw")
        assert "n_flows, hops, single" in view
        assert sql(url, "SELECT count() FROM rejected") == "0\n"
    finally:
        assert restarted.stop() == 0, restarted.stderr()
