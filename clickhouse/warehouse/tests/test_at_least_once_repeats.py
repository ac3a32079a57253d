"""A record repeated on an at-least-once topic is stored once (consumer.py, "Repeats").

The control topics (``delivery: at-least-once`` in schemas/topics.yaml: thresholds, redirect
decisions and commands) may carry a record twice after a Flink restore, sometimes re-stamped (a
redirect decision's issue time is the job's processing time). Their tables replace rows by key,
but a row count without FINAL (merges stopped, as the stored-once checks count) would see both
copies. The warehouse's consumer skips a record whose key (the table's sorting key, from its
declaration) is stored already or repeated in its batch, and writes a batch killed after its
insert again with exactly the same records skipped. Other versions of a result (another
threshold version, another outcome, a cheetah's next event on an exactly-once topic) are kept.

Real parts: a Kafka broker, the warehouse as a child process with merges stopped. Records are
produced the way Flink's at-least-once sink does (an idempotent producer, no transaction). Every
expected count is worked out by hand from the records sent here.
"""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
import yaml

from cheetah_warehouse import DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR
from cheetah_warehouse.consumer import KILL_AFTER_WRITES, PENDING, _offsets, _ranges, batch_metadata
from cheetah_warehouse.declarations import load_declarations, replacing_key
from cheetah_warehouse.errors import WarehouseError
from tests.cheetah_messages import load_messages
from tests.kafka_broker import KafkaBroker, broker_with_topics
from tests.warehouse_process import Warehouse, sql, start_warehouse

TOPICS = {t["name"]: t["table"] for t in yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"] if t["table"]}
NOW_MS = int(time.time() * 1000) - 3_600_000  # an hour ago: inside every TTL
GROUP = "repeats"
ARGS = ("--kafka-flush-interval-ms", "200", "--stop-merges")


def test_skip_lists_survive_the_commit_metadata() -> None:
    assert _ranges([9, 3, 4, 5, 12, 13]) == "3-5,9,12-13"
    assert _offsets("3-5,9,12-13") == {3, 4, 5, 9, 12, 13}
    assert _offsets("") == frozenset()
    meta = batch_metadata(40, 49, frozenset({41, 42, 47}))
    assert meta == "cheetah-batch 40-49 skip 41-42,47"
    match = PENDING.match(meta)
    assert match and match.groups() == ("40", "49", "41-42,47")
    assert PENDING.match("cheetah-batch 40-49").groups() == ("40", "49", None)  # written before skip lists


def test_the_key_is_the_declarations_sorting_key() -> None:
    declarations = load_declarations(DEFAULT_TABLES_DIR, DEFAULT_SCHEMAS_DIR)
    keys = {d.table: replacing_key(d) for d in declarations}
    # Hand-read from clickhouse/tables/*.yaml (engine and order_by).
    assert keys["thresholds"] == ("link_id", "version")
    assert keys["redirect_decisions"] == ("device_id", "command_id", "outcome")
    assert keys["redirect_commands"] == ("command_id",)
    assert keys["cheetahs"] == ("flow_id",)
    assert keys["transfers"] == ("src_host", "dst_host", "start_at")  # a transfer shipped again (ingest/transfers)
    assert keys["flows"] == () and keys["rejected"] == ()  # MergeTree: every record is a row
    # Hand-read from schemas/topics.yaml: the tables whose repeats are skipped.
    assert sorted(d.table for d in declarations if d.topic.at_least_once) == ["redirect_commands", "redirect_decisions", "thresholds", "transfers"]


def test_an_at_least_once_topic_needs_a_table_that_replaces_by_key(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    shutil.copytree(DEFAULT_TABLES_DIR, tables)
    text = (tables / "thresholds.yaml").read_text()
    (tables / "thresholds.yaml").write_text(text.replace("engine: ReplacingMergeTree(computed_at)", "engine: MergeTree"))
    with pytest.raises(WarehouseError, match="thresholds.v1 is delivered at least once .* must replace rows by key"):
        load_declarations(tables, DEFAULT_SCHEMAS_DIR)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    with broker_with_topics(tmp_path_factory.mktemp("kafka"), {t: 1 for t in TOPICS}) as started:
        yield started


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    """As KafkaIO.atLeastOnceSink writes: idempotent, acks=all, no transaction."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})
    for value in values:
        producer.produce(topic, value, partition=0)
    assert producer.flush(60) == 0
    del producer


def committed(bootstrap: str, topic: str) -> tuple[int, int, str]:
    """The warehouse group's committed offset and metadata on partition 0, and the partition's end."""
    from confluent_kafka import Consumer, TopicPartition

    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{GROUP}.{TOPICS[topic]}"})
    try:
        tp = reader.committed([TopicPartition(topic, 0)], timeout=30)[0]
        end = reader.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)[1]
        return tp.offset, end, tp.metadata or ""
    finally:
        reader.close()


def wait_until(condition: Callable[[], bool], what: str, warehouse: Warehouse, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout} s; stderr:\n" + warehouse.stderr()[-3000:]
        time.sleep(0.2)


def caught_up(broker: KafkaBroker, warehouse: Warehouse, *topics: str) -> None:
    """Until the warehouse has committed the end of each topic: everything sent is written."""
    from confluent_kafka import KafkaException

    def at_end(topic: str) -> bool:
        try:
            offset, end, _ = committed(broker.bootstrap, topic)
        except KafkaException:  # the group's coordinator is not elected yet: ask again
            return False
        return offset == end

    for topic in topics:
        wait_until(lambda: at_end(topic), f"{topic} read to its end", warehouse)


def rows(url: str, table: str) -> int:
    return int(sql(url, f"SELECT count() FROM {table}"))  # no FINAL: merges are stopped


def test_a_repeated_record_is_stored_once_and_another_version_is_kept(broker: KafkaBroker, tmp_path: Path) -> None:
    m = load_messages()

    def threshold(version: int, computed_ms: int, rate_bps: float = 5e8) -> bytes:
        return m["Threshold"](link_id="l-1", version=version, mode=2, rate_bps=rate_bps, computed_ms=computed_ms).SerializeToString()

    def decision(command_id: str, refusal: str = "", issued_ms: int = NOW_MS) -> bytes:
        return m["RedirectCommand"](command_id=command_id, issued_ms=issued_ms, expires_ms=NOW_MS + 600_000,
                                    device_id="r1", action=1, refusal=refusal).SerializeToString()

    def cheetah(seq: int) -> bytes:
        return m["CheetahEvent"](flow_id="f-1", type=1 if seq == 1 else 2, source=1, event_ms=NOW_MS + seq, seq=seq,
                                 start_ms=NOW_MS, end_ms=NOW_MS + seq, bytes=10**9 * seq).SerializeToString()

    v1, v2 = threshold(1, NOW_MS), threshold(2, NOW_MS + 30_000)
    refused, published = decision("d-1", refusal="max rules 5"), decision("d-1")
    # Batch 1, all sent before the warehouse starts (so read in one batch): v1 twice, v2 once.
    produce(broker.bootstrap, "thresholds.v1", [v1, v2, v1])
    # One decision refused then published: two keys (the outcome differs), the published one twice.
    produce(broker.bootstrap, "redirects.decisions.v1", [refused, published, published])
    # An exactly-once topic whose table replaces by key: each event of a flow is a version, kept
    # (one per batch: within one insert ClickHouse itself keeps the highest version only).
    produce(broker.bootstrap, "cheetahs.v1", [cheetah(1)])
    warehouse = start_warehouse(tmp_path / "data", brokers=broker.bootstrap, group_prefix=GROUP, extra_args=ARGS)
    try:
        url = warehouse.url
        caught_up(broker, warehouse, "thresholds.v1", "redirects.decisions.v1", "cheetahs.v1")
        assert rows(url, "thresholds") == 2, sql(url, "SELECT * FROM thresholds")
        assert rows(url, "redirect_decisions") == 2, sql(url, "SELECT * FROM redirect_decisions")

        # Batch 2, across batches: v2 again, and v1 again re-stamped (another computed_at and R,
        # as a recomputation after a restore could send it) are repeats of stored keys: skipped,
        # the first copy stays. Version 3 is another key. The published decision again, re-stamped
        # as the redirect job does after a restore (its issue time is processing time): skipped.
        v1_again, v3 = threshold(1, NOW_MS + 1, rate_bps=4e8), threshold(3, NOW_MS + 60_000)
        produce(broker.bootstrap, "thresholds.v1", [v2, v1_again, v3])
        produce(broker.bootstrap, "redirects.decisions.v1", [decision("d-1", issued_ms=NOW_MS + 5_000), decision("d-2")])
        produce(broker.bootstrap, "cheetahs.v1", [cheetah(2)])
        caught_up(broker, warehouse, "thresholds.v1", "redirects.decisions.v1", "cheetahs.v1")
        assert sql(url, "SELECT version, rate_bps, toUnixTimestamp64Milli(computed_at) - {t} FROM thresholds ORDER BY version".format(
            t=NOW_MS)) == "1\t500000000\t0\n2\t500000000\t30000\n3\t500000000\t60000\n"
        assert sql(url, "SELECT command_id, outcome, toUnixTimestamp64Milli(issued_at) - {t} FROM redirect_decisions "
                        "ORDER BY command_id, outcome".format(t=NOW_MS)) == "d-1\tpublished\t0\nd-1\trefused\t0\nd-2\tpublished\t0\n"
        assert sql(url, "SELECT seq FROM cheetahs ORDER BY seq") == "1\n2\n"
        # Within one insert ClickHouse itself keeps one row per key; the skip is counted all the same.
        said = warehouse.stderr()
        assert "thresholds: thresholds.v1/0: 1 repeats of an at-least-once topic skipped in batch 0-2" in said
        assert "thresholds: thresholds.v1/0: 2 repeats of an at-least-once topic skipped in batch 3-5 (key already stored" in said
        assert "redirect_decisions: redirects.decisions.v1/0: 1 repeats of an at-least-once topic skipped in batch 0-2" in said
        assert "redirect_decisions: redirects.decisions.v1/0: 1 repeats of an at-least-once topic skipped in batch 3-4" in said
        assert "cheetahs:" not in said
    finally:
        warehouse.stop()


def test_a_batch_written_again_after_a_sigkill_skips_the_same_records(broker: KafkaBroker, tmp_path: Path) -> None:
    """redirect_commands feeds redirect_rules through a view: a batch written again after a crash
    must skip exactly what it skipped the first time, or the view would miss rows."""
    m = load_messages()

    def command(command_id: str, issued_ms: int) -> bytes:
        return m["RedirectCommand"](command_id=command_id, issued_ms=issued_ms, expires_ms=NOW_MS + 600_000,
                                    device_id="r2", action=1).SerializeToString()

    a, b, c = command("c-a", NOW_MS), command("c-b", NOW_MS + 1), command("c-c", NOW_MS + 2)
    data = tmp_path / "data"
    produce(broker.bootstrap, "redirects.commands.v1", [a])
    warehouse = start_warehouse(data, brokers=broker.bootstrap, group_prefix=GROUP, extra_args=ARGS)
    try:
        caught_up(broker, warehouse, "redirects.commands.v1")
        assert rows(warehouse.url, "redirect_commands") == 1
    finally:
        warehouse.stop()

    # Offsets 1..4: a again (stored by the first batch), b, c, b again. The warehouse kills itself
    # right after writing this batch, before committing its end (consumer.py, KILL_AFTER_WRITES).
    produce(broker.bootstrap, "redirects.commands.v1", [a, b, c, b])
    try:
        warehouse = start_warehouse(data, brokers=broker.bootstrap, group_prefix=GROUP, extra_args=ARGS,
                                    extra_env={KILL_AFTER_WRITES: "1"})
        warehouse.process.wait(timeout=120)
        assert warehouse.process.returncode == -signal.SIGKILL, warehouse.stderr()[-3000:]
    except AssertionError as exc:
        if "did not print READY" not in str(exc):
            raise  # killed itself before READY: the same point
    offset, end, metadata = committed(broker.bootstrap, "redirects.commands.v1")
    assert (offset, end, metadata) == (1, 5, "cheetah-batch 1-4 skip 1,4"), "the batch's boundaries and skips, kept in Kafka"

    warehouse = start_warehouse(data, brokers=broker.bootstrap, group_prefix=GROUP, extra_args=ARGS)
    try:
        caught_up(broker, warehouse, "redirects.commands.v1")
        url = warehouse.url
        assert "writing batch 1-4 again" in warehouse.stderr()
        assert sql(url, "SELECT command_id, count() FROM redirect_commands GROUP BY command_id ORDER BY command_id") == (
            "c-a\t1\nc-b\t1\nc-c\t1\n"
        )
        assert sql(url, "SELECT rule_id, count() FROM redirect_rules GROUP BY rule_id ORDER BY rule_id") == (
            "c-a\t1\nc-b\t1\nc-c\t1\n"
        )
    finally:
        warehouse.stop()
