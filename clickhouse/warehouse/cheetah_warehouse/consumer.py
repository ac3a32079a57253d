"""The embedded warehouse's own Kafka consumer: each result topic into its table, each row once,
also across a SIGKILL (clickhouse/README.md, "Delivery guarantees").

One consumer per declared table (group ``PFX.<table>``, the Kafka tables' groups, so offsets they
committed are continued), reading committed records only. Records are written in batches, one
per partition, and a batch is written like this:

1. the consumer group's offset for the partition is committed at the batch's first offset with
   the metadata ``cheetah-batch FIRST-LAST``: the batch's boundaries survive a crash;
2. the batch is inserted with ``insert_deduplication_token = TOPIC/PARTITION/FIRST-LAST``
   (``deduplicate_blocks_in_dependent_materialized_views``: the rollups fed by views check the
   token too, each on its own);
3. the offset LAST + 1 is committed without metadata.

A warehouse killed anywhere in between finds the metadata on restart, reads exactly FIRST..LAST
again and inserts it with the same token: the tables and views that stored it skip it, those the
crash cut off store it. Every MergeTree table of the embedded warehouse remembers the tokens of
its last ``DEDUPLICATION_WINDOW`` inserts (``non_replicated_deduplication_window``, embedded.py).

Fault injection, for tests only: with ``CHEETAH_WAREHOUSE_KILL_AFTER_WRITES=N`` in its environment
the process sends itself SIGKILL right after its N-th batch is written, before that batch's offset
is committed (the point where a Kafka engine table stores a batch twice); tests/test_crash_recovery.py.

Repeats of an at-least-once topic. The control topics (``delivery: at-least-once`` in
schemas/topics.yaml: thresholds, redirect decisions and commands; docs/ARCHITECTURE.md "Delivery
guarantees") may carry a record again after a Flink restore, re-stamped or not. Their tables
replace rows by key (ReplacingMergeTree), so a repeat is harmless with FINAL or after a merge, but
a row count sees it. So before step 1, such a batch is checked against the table: a record whose
key (``replacing_key``: the table's sorting key, from its declaration) is stored already, or
repeated earlier in the batch, is skipped; the first copy stays, as the probe keeps the first
threshold of a version. The skipped offsets go into the metadata of step 1 (``cheetah-batch
FIRST-LAST skip A-B,C``): a batch written again after a crash skips exactly those, even when the
crash came after the table stored the rest (so the views that missed the batch get the same
rows). One consumer per table, so no other writer races the check. Each batch that skips
something says so on stderr ("repeats of an at-least-once topic skipped"). Topics written once
(transactions) are not checked: a table like ``cheetahs`` keeps each version of a key as a row.

A batch that does not decode (or holds a value its table cannot take) is written record by record
(ProtobufSingle, token ``TOPIC/PARTITION/OFFSET``); a record that still fails goes to ``rejected``
(stage ``warehouse``, reason ``undecodable_protobuf``, the engine's error as the detail), as the
Kafka tables' views do.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .declarations import (
    TableDeclaration,
    ingest_statement,
    replacing_key,
    stored_keys_statement,
    undecodable_statement,
)
from .embedded import EmbeddedEngine
from .errors import QueryError, WarehouseError

PENDING = re.compile(r"^cheetah-batch (\d+)-(\d+)(?: skip ([0-9,-]+))?$")
# Kafka keeps at most offset.metadata.max.bytes (4096 by default) of commit metadata: a batch whose
# skip list would not fit is cut shorter.
MAX_METADATA = 3000
DEFAULT_MAX_BATCH_RECORDS = 5000  # below DEDUPLICATION_WINDOW (embedded.py): a batch written record by record fits
# Errors of the Protobuf input format: the record does not decode, or decodes into values its table
# cannot take (PROTOBUF_BAD_CAST 436: a 3-byte address, an enum value the table does not know;
# TYPE_MISMATCH 53, CANNOT_CONVERT_TYPE 70, VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE 321). Such a record
# goes to `rejected`; anything else is retried, and a record retried forever would hold its
# partition back for good.
UNDECODABLE_CODES = frozenset({6, 26, 27, 32, 33, 38, 41, 53, 70, 72, 117, 321, 436, 444})
KILL_AFTER_WRITES = "CHEETAH_WAREHOUSE_KILL_AFTER_WRITES"  # fault injection (the module's docstring)
_writes = 0
_writes_lock = threading.Lock()


def _after_write() -> None:
    global _writes
    limit = os.environ.get(KILL_AFTER_WRITES)
    if not limit:
        return
    with _writes_lock:
        _writes += 1
        if _writes >= int(limit):
            os.kill(os.getpid(), signal.SIGKILL)


@dataclass(frozen=True)
class ConsumerConfig:
    brokers: str
    group_prefix: str
    flush_interval_s: float = 1.0
    max_batch_records: int = DEFAULT_MAX_BATCH_RECORDS
    # librdkafka settings added to every consumer's (--kafka-config): security.protocol, SASL, TLS.
    client_options: dict[str, str] = field(default_factory=dict)


def read_client_options(path: Path) -> dict[str, str]:
    """librdkafka settings from a ``key=value`` file (``#`` comments, blank lines): --kafka-config."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise WarehouseError(f"--kafka-config {path}: cannot read it ({e.strerror})") from None
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        if not eq or not key.strip():
            raise WarehouseError(f"--kafka-config {path}:{n}: not a key=value line (librdkafka setting)")
        out[key.strip()] = value.strip()
    return out


def _ranges(offsets: list[int]) -> str:
    """[3, 4, 5, 9] -> ``3-5,9``"""
    out: list[str] = []
    for o in sorted(offsets):
        if out and o == int(out[-1].rsplit("-", 1)[-1]) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{o}"
        else:
            out.append(str(o))
    return ",".join(out)


def _offsets(ranges: str) -> frozenset[int]:
    """``3-5,9`` -> {3, 4, 5, 9}"""
    out: set[int] = set()
    for part in filter(None, ranges.split(",")):
        first, _, last = part.partition("-")
        out.update(range(int(first), int(last or first) + 1))
    return frozenset(out)


def batch_metadata(first: int, last: int, skip: frozenset[int]) -> str:
    return f"cheetah-batch {first}-{last}" + (f" skip {_ranges(list(skip))}" if skip else "")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


@dataclass
class _Partition:
    records: list[Any] = field(default_factory=list)  # confluent_kafka Messages, in offset order
    since: float = 0.0  # monotonic time the oldest buffered record arrived
    pending: tuple[int, int] | None = None  # a batch begun before a crash: (first, last) to write again
    pending_skip: frozenset[int] = frozenset()  # the offsets of repeats that batch skips
    committed: int = -1  # the offset this consumer last committed (-1: none yet)


class TableConsumer(threading.Thread):
    """Consumes one table's topic until ``stop`` is set."""

    def __init__(
        self,
        engine: EmbeddedEngine,
        declaration: TableDeclaration,
        config: ConsumerConfig,
        stop: threading.Event,
        log: Callable[[str], None],
        kafka_logger: logging.Logger | None = None,
    ) -> None:
        super().__init__(name=f"consume-{declaration.table}", daemon=True)
        self.engine = engine
        self.d = declaration
        self.config = config
        self.stop = stop
        self.log = log
        self.group = f"{config.group_prefix}.{declaration.table}"
        self.partitions: dict[int, _Partition] = {}
        self.kafka_logger = kafka_logger
        # Repeats are skipped (the module's docstring); load_declaration made sure the key exists.
        self.skips_repeats = declaration.topic.at_least_once and bool(replacing_key(declaration))
        self.repeats_skipped = 0

    # ------------------------------------------------------------ Kafka

    def _consumer(self) -> Any:
        from confluent_kafka import Consumer

        options: dict[str, Any] = {"logger": self.kafka_logger} if self.kafka_logger is not None else {}
        return Consumer(
            {
                "bootstrap.servers": self.config.brokers,
                "group.id": self.group,
                # Static membership: a restarted warehouse takes its partitions back at once instead
                # of waiting for the dead member's session to time out.
                "group.instance.id": f"cheetah-warehouse.{self.d.table}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "isolation.level": "read_committed",  # producers write with transactions
                "enable.partition.eof": False,
                **self.config.client_options,
            },
            **options,
        )

    def _on_assign(self, consumer: Any, assigned: list[Any]) -> None:
        committed = consumer.committed(assigned, timeout=30)
        for tp in committed:
            state = self.partitions.setdefault(tp.partition, _Partition())
            state.records.clear()
            state.committed = tp.offset if tp.offset >= 0 else -1
            match = PENDING.match(tp.metadata or "")
            state.pending = (int(match.group(1)), int(match.group(2))) if match and tp.offset == int(match.group(1)) else None
            state.pending_skip = _offsets(match.group(3) or "") if state.pending and match else frozenset()
            if state.pending:
                self.log(f"{self.d.table}: {tp.topic}/{tp.partition}: writing batch {state.pending[0]}-{state.pending[1]} again "
                         "(begun before the warehouse stopped; what was stored of it is skipped)")

    def _on_revoke(self, consumer: Any, revoked: list[Any]) -> None:
        for tp in revoked:
            self.partitions.pop(tp.partition, None)

    def _commit(self, consumer: Any, partition: int, offset: int, metadata: str | None) -> None:
        from confluent_kafka import TopicPartition

        tp = TopicPartition(self.d.topic.name, partition, offset) if metadata is None else TopicPartition(
            self.d.topic.name, partition, offset, metadata=metadata
        )
        consumer.commit(offsets=[tp], asynchronous=False)

    # ------------------------------------------------------------ writing

    def _insert(self, statement: str, params: dict[str, str]) -> None:
        self.engine.query(statement, params=params)

    def _repeats(self, batch: list[Any]) -> frozenset[int]:
        """The offsets of the batch's records whose key the table holds already or an earlier
        record of the batch has (the module's docstring). A record that does not decode has no
        key: it is never skipped here (it goes to ``rejected``)."""
        if not self.skips_repeats:
            return frozenset()
        records = [m for m in batch if m.value()]
        if not records:
            return frozenset()
        statement = stored_keys_statement(self.d, "Protobuf")
        try:
            rows = self._keys(statement, b"".join(_varint(len(m.value())) + m.value() for m in records))
        except QueryError as exc:
            if exc.code not in UNDECODABLE_CODES:
                raise
            rows = []  # some record does not decode: record by record
            single = stored_keys_statement(self.d, "ProtobufSingle")
            for m in records:
                try:
                    rows += self._keys(single, m.value())
                except QueryError as one:
                    if one.code not in UNDECODABLE_CODES:
                        raise
                    rows.append(None)
        if len(rows) != len(records):
            raise WarehouseError(f"{self.d.table}: {len(records)} records gave {len(rows)} keys")
        seen: set[str] = set()
        skip: set[int] = set()
        for m, row in zip(records, rows):
            if row is None:
                continue
            key, stored = row
            if stored or key in seen:
                skip.add(m.offset())
            seen.add(key)
        return frozenset(skip)

    def _keys(self, statement: str, records: bytes) -> list[tuple[str, bool] | None]:
        out = self.engine.query(statement, params={"records": records.hex()}).data.decode()
        rows: list[tuple[str, bool] | None] = []
        for line in out.splitlines():
            key, _, stored = line.rpartition("\t")
            rows.append((key, stored == "1"))
        return rows

    def _write(self, partition: int, batch: list[Any], skip: frozenset[int] = frozenset()) -> None:
        topic = self.d.topic.name
        first, last = batch[0].offset(), batch[-1].offset()
        batch = [m for m in batch if m.offset() not in skip]
        # Empty records carry nothing (as the Kafka engine skips them).
        values = [m.value() for m in batch if m.value()]
        if not values:
            return
        token = f"{topic}/{partition}/{first}-{last}"
        records = b"".join(_varint(len(v)) + v for v in values)
        try:
            self._insert(ingest_statement(self.d, "Protobuf", token), {"records": records.hex()})
            return
        except QueryError as exc:
            if exc.code not in UNDECODABLE_CODES:
                raise
        for m in batch:  # some record does not decode: record by record, each with a token of its own
            if not m.value():
                continue
            one = f"{topic}/{partition}/{m.offset()}"
            try:
                self._insert(ingest_statement(self.d, "ProtobufSingle", one), {"records": m.value().hex()})
            except QueryError as exc:
                if exc.code not in UNDECODABLE_CODES:
                    raise
                self._insert(
                    undecodable_statement(one + "/undecodable"),
                    {"error": exc.text, "payload": m.value().hex(), "topic": topic,
                     "partition": str(partition), "offset": str(m.offset())},
                )

    def _flush(self, consumer: Any, partition: int, state: _Partition, now: float) -> None:
        if state.pending is not None:
            first, last = state.pending
            if not state.records or state.records[-1].offset() < last:
                return  # the batch is not read in full yet
            batch = [m for m in state.records if m.offset() <= last]
            skip = state.pending_skip
        else:
            if not state.records:
                return
            full = len(state.records) >= self.config.max_batch_records
            if not full and now - state.since < self.config.flush_interval_s:
                return
            batch = state.records[: self.config.max_batch_records]
            while True:
                first, last = batch[0].offset(), batch[-1].offset()
                skip = self._repeats(batch)
                metadata = batch_metadata(first, last, skip)
                if len(metadata) <= MAX_METADATA or len(batch) == 1:
                    break
                batch = batch[: len(batch) // 2]  # too many ranges of repeats to keep: a shorter batch
            self._commit(consumer, partition, first, metadata)
            if skip:
                self.repeats_skipped += len(skip)
                self.log(f"{self.d.table}: {self.d.topic.name}/{partition}: {len(skip)} repeats of an at-least-once "
                         f"topic skipped in batch {first}-{last} (key already stored or repeated in the batch; "
                         f"{self.repeats_skipped} so far)")
        self._write(partition, batch, skip)
        _after_write()
        self._commit(consumer, partition, last + 1, None)
        state.committed = last + 1
        state.pending = None
        state.pending_skip = frozenset()
        del state.records[: len(batch)]
        state.since = now

    def _advance(self, consumer: Any, partition: int, state: _Partition) -> None:
        """With nothing buffered, commit the consumer's position when it is past the last commit:
        it has skipped commit markers and aborted records there, and a group's lag then reads 0."""
        from confluent_kafka import TopicPartition

        if state.records or state.pending is not None:
            return
        position = consumer.position([TopicPartition(self.d.topic.name, partition)])[0].offset
        if position >= 0 and position > state.committed:
            self._commit(consumer, partition, position, None)
            state.committed = position

    # ------------------------------------------------------------ loop

    def run(self) -> None:
        backoff = 1.0
        while not self.stop.is_set():
            consumer = None
            try:
                consumer = self._consumer()
                consumer.subscribe([self.d.topic.name], on_assign=self._on_assign, on_revoke=self._on_revoke)
                while not self.stop.is_set():
                    for m in consumer.consume(num_messages=self.config.max_batch_records, timeout=0.2):
                        if m.error():
                            if not m.error().retriable() and m.error().fatal():
                                raise WarehouseError(f"{self.d.table}: Kafka: {m.error()}")
                            continue
                        state = self.partitions.setdefault(m.partition(), _Partition())
                        if not state.records:
                            state.since = time.monotonic()
                        state.records.append(m)
                    now = time.monotonic()
                    for partition, state in list(self.partitions.items()):
                        self._flush(consumer, partition, state, now)
                        self._advance(consumer, partition, state)
                    backoff = 1.0
            except Exception as exc:  # noqa: BLE001 - logged, then read again from the committed offsets
                if self.stop.is_set():
                    break
                self.log(f"{self.d.table}: {type(exc).__name__}: {exc}; reading again from the committed offset in {backoff:g} s")
                self.partitions.clear()
                self.stop.wait(backoff)
                backoff = min(backoff * 2, 30.0)
            finally:
                if consumer is not None:
                    try:
                        consumer.close()  # static member: its partitions wait for the restart
                    except Exception:  # noqa: BLE001
                        pass


class Ingest:
    """Every declared table's consumer, started and stopped together."""

    def __init__(
        self,
        engine: EmbeddedEngine,
        declarations: list[TableDeclaration],
        config: ConsumerConfig,
        log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    ) -> None:
        self.stop_event = threading.Event()
        # librdkafka's own messages (a broker away, reconnects) go to DIR/logs/kafka.log, not stderr.
        kafka_logger = logging.getLogger("cheetah_warehouse.kafka")
        kafka_logger.propagate = False
        if not kafka_logger.handlers:
            handler = logging.FileHandler(engine.config.data_dir / "logs" / "kafka.log", encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            kafka_logger.addHandler(handler)
            kafka_logger.setLevel(logging.INFO)
        self.threads = [TableConsumer(engine, d, config, self.stop_event, log, kafka_logger) for d in declarations]

    def start(self) -> "Ingest":
        for t in self.threads:
            t.start()
        return self

    def stop(self, timeout: float = 20) -> None:
        """Stop reading; a batch being written is finished (the rest is read again on the next start)."""
        self.stop_event.set()
        deadline = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))
