"""The warehouse survives its own SIGKILL: no table loses or doubles a row.

Known records go to every result topic of schemas/topics.yaml (the Flink results with
transactions, one of them aborted; the others with a plain idempotent producer; a few records that
do not decode). The warehouse runs as a child process with small batches and merges stopped from
the start (``--stop-merges``: a ReplacingMergeTree merge would hide a row stored twice), and is
killed with SIGKILL several times while it ingests, then started again: at random moments, and
(every other time) right after a batch is written and before its offset is committed, where a
Kafka engine table would store the batch twice; then twice more that way while the last flows
trickle in, so that the batches killed are cut by time and records after them arrive meanwhile
(a batch written again must keep its boundaries). Once it
has read everything, EVERY MergeTree-family table it holds is counted without FINAL: each result
table, ``rejected``, ``redirect_rules`` and every rollup has exactly the rows expected, and the
rollups' sums equal the sums of the records sent. Expected values come from the records as they
were built here, never from the warehouse. Every key is distinct, so a row count is exactly the
number of records (or, for a rollup, of records in distinct buckets).
"""

from __future__ import annotations

import random
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import yaml

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR, migrations
from cheetah_warehouse.consumer import KILL_AFTER_WRITES
from tests.cheetah_messages import address, load_messages
from tests.kafka_broker import KafkaBroker, broker_with_topics
from tests.warehouse_process import Warehouse, sql, start_warehouse

TOPICS = {t["name"]: t["table"] for t in yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"] if t["table"]}
NOW_MS = int(time.time() * 1000) - 3_600_000  # an hour ago: inside every TTL
KILLS = 8
TRICKLED = 240  # flows produced a few at a time once the rest is stored
SEED = random.randrange(1 << 30)
# Tables not fed from the topics, so not counted against them.
NOT_FROM_TOPICS = {
    "schema_migrations": "bookkeeping (counted separately: one row per migration)",
    "site_prefixes": "reference data loaded by `sites`",
    "prefix_filter_effectiveness": "recomputed every hour by a refreshable view over cheetahs, not per record",
}


def ip(i: int) -> bytes:
    return address(f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}")


def build_records(m: dict[str, Any]) -> dict[str, list[bytes]]:
    """Every topic's records; each key distinct (see the module's docstring)."""
    t0 = NOW_MS
    month_ms = [NOW_MS - k * 31 * 86_400_000 for k in range(12)]  # flowsets: one per month of start
    gen: dict[str, Callable[[int], Any]] = {
        "flows.v1": lambda i: m["FlowRecord"](
            exporter=ip(i), source=3, received_ms=t0 + 500, start_ms=t0 + i, end_ms=t0 + i + 1000,
            src_addr=address("198.18.1.10"), dst_addr=address("198.18.2.20"), proto=6, bytes=1000 + i, packets=1 + i % 7, sampling_rate=1),
        "flows.rejected.v1": lambda i: m["RejectedRecord"](
            stage="normalize", reason="inverted_times", detail=f"r{i}", payload=b"\x00", exporter=ip(i), received_ms=t0 + i,
            source_topic="flows.goflow2.v1", source_partition=0, source_offset=i),
        "cheetahs.v1": lambda i: m["CheetahEvent"](
            flow_id=f"f-{i}", type=1, source=1, event_ms=t0 + i, seq=1, src_addr=ip(i), dst_addr=ip(i + 1), start_ms=t0, end_ms=t0 + i, bytes=10**9 + i),
        "flowsets.v1": lambda i: m["Flowset"](
            flowset_id=f"s-{i}", src_addr=ip(i), dst_addr=ip(i + 1), n_flows=1 + i % 3, single=i % 3 == 0, start_ms=month_ms[i],
            end_ms=month_ms[i] + 20_000, bytes=10**9 + i, duration_s=20.0, rate_bps=4e8, member_flow_ids=[f"f-{i}"], closed_ms=NOW_MS),
        "probe.flights.v1": lambda i: m["Flight"](flow_id=f"p-{i}", link_id=f"l-{i}", probe_id="probe-1", first_ns=(t0 + i) * 1_000_000, bytes=i, rate_bps=1e9),
        "probe.bins.v1": lambda i: m["LinkBin"](link_id=f"l-{i}", probe_id="probe-1", bin_start_ms=t0, bin_ms=100, bytes=9000 + i, packets=6, cheetah_bytes=4000),
        "probe.packets.v1": lambda i: m["PacketSummary"](flow_id=f"p-{i}", link_id=f"l-{i}", ts_ns=(t0 + i) * 1_000_000, length=1500),
        "probe.counters.v1": lambda i: m["ProbeCounters"](probe_id=f"probe-{i}", link_id="l-1", started_ms=t0 - 60_000, at_ms=t0 + i, packets=i),
        "snmp.counters.v1": lambda i: m["SnmpCounters"](link_id=f"l-{i}", device="r1", if_index=7, polled_ms=t0 + i, if_hc_out_octets=i),
        "transfers.v1": lambda i: m["Transfer"](src_host=f"dtn{i}", dst_host="dtn0", tool="iperf3", streams=1, bytes=i, seconds=1.0, start_ms=t0 + i, end_ms=t0 + i + 1000),
        "links.stats.v1": lambda i: m["LinkStats"](
            link_id=f"l-{i}", window_start_ms=t0, window_end_ms=t0 + 60_000, t1_ms=100, t2_ms=60_000, bins=600, mean_bg_bps=1e6 + i,
            burstiness=0.5, utilization=0.25, capacity_bps=1e9, sliding=i % 2 == 0),
        "thresholds.v1": lambda i: m["Threshold"](link_id="l-1", version=i + 1, mode=2, rate_bps=5e8, computed_ms=t0 + i),
        "redirects.commands.v1": lambda i: m["RedirectCommand"](command_id=f"c-{i}", issued_ms=t0 + i, expires_ms=t0 + 600_000, device_id="r1", action=1),
        "redirects.decisions.v1": lambda i: m["RedirectCommand"](command_id=f"d-{i}", issued_ms=t0 + i, expires_ms=t0 + 600_000, device_id="r1", action=1),
        "redirects.acks.v1": lambda i: m["RedirectAck"](command_id=f"c-{i}", device_id="r1", status=1, acked_ms=t0 + i, adapter="tc"),
        "throughput.v1": lambda i: m["Throughput"](src_host=f"dtn{i}", dst_host="dtn0", start_ms=t0 + i, end_ms=t0 + i + 1000, streams=1, bytes=i),
        "alerts.v1": lambda i: m["Alert"](alert_id=f"a-{i}", kind="step_change", detected_ms=t0 + i, severity="warning"),
        "incast.guard.v1": lambda i: m["IncastGuardSample"](
            time_ms=t0 + i, device_id="tor-1", receiver=ip(i), senders=1 + i % 30, buffer_bytes=262_144, share_bytes=196_608 // (1 + i % 30)),
        "fabric.links.v1": lambda i: m["FabricLinkState"](
            fabric="k4", round_ms=t0 + 1000 * i, link_id=f"e1:3>a1:{i}", capacity_bps=1e7, utilisation_bps=1e3 * i, elephants=i % 3),
    }
    assert set(gen) == set(TOPICS), "every stored topic of schemas/topics.yaml needs records here"
    sizes = {"flows.v1": 3000, "probe.bins.v1": 600, "links.stats.v1": 300, "cheetahs.v1": 300, "flowsets.v1": 12}
    return {topic: [make(i).SerializeToString() for i in range(sizes.get(topic, 120))] for topic, make in gen.items()}


UNDECODABLE = {"flows.v1": [b"\xff\xff\xff not a FlowRecord"], "thresholds.v1": [b"\x08garbage"]}
TRANSACTIONAL = ("flows.v1", "flows.rejected.v1", "cheetahs.v1", "flowsets.v1", "links.stats.v1", "fabric.links.v1")  # as Flink writes them
PARTITIONS = {"flows.v1": 2, "probe.bins.v1": 2}


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    with broker_with_topics(tmp_path_factory.mktemp("kafka"), {t: PARTITIONS.get(t, 1) for t in TOPICS}) as started:
        yield started


def produce(bootstrap: str, records: dict[str, list[bytes]]) -> None:
    from confluent_kafka import Producer

    tx = Producer({"bootstrap.servers": bootstrap, "transactional.id": "crash-test", "linger.ms": 5})
    tx.init_transactions(30)
    for topic in TRANSACTIONAL:
        rows = records[topic] + UNDECODABLE.get(topic, [])
        for start in range(0, len(rows), 500):  # several transactions: commit markers inside batches
            tx.begin_transaction()
            for k, value in enumerate(rows[start : start + 500]):
                tx.produce(topic, value, partition=(start + k) % PARTITIONS.get(topic, 1))
            tx.commit_transaction(30)
        tx.begin_transaction()  # aborted: never stored
        tx.produce(topic, records[topic][0])
        tx.flush(30)
        tx.abort_transaction(30)
    plain = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
    for topic, rows in records.items():
        if topic not in TRANSACTIONAL:
            for k, value in enumerate(rows + UNDECODABLE.get(topic, [])):
                plain.produce(topic, value, partition=k % PARTITIONS.get(topic, 1))
    assert plain.flush(60) == 0
    del tx, plain


def stored_rows(url: str, tables: list[str]) -> int:
    names = ", ".join(f"'{t}'" for t in tables)
    return int(sql(url, f"SELECT sum(rows) FROM system.parts WHERE active AND database = 'default' AND table IN ({names})").strip() or 0)


def killed_itself(warehouse: Warehouse, tables: list[str], idle_s: float = 15.0) -> bool:
    """Wait for a warehouse started with KILL_AFTER_WRITES=N to SIGKILL itself after its N-th write.

    Fewer than N batches may be left to read (earlier runs stored the rest): then it stores nothing
    more and would wait forever. If no row arrives for ``idle_s`` it is killed here and False is
    returned. Any other exit, or no progress at all within 120 s of work, fails the test."""
    deadline = time.monotonic() + 120
    last, quiet_since = -1, time.monotonic()
    while warehouse.process.poll() is None:
        try:
            rows = stored_rows(warehouse.url, tables)
        except Exception:  # noqa: BLE001 - it may kill itself between two queries
            rows = last
        if rows != last:
            last, quiet_since = rows, time.monotonic()
        elif time.monotonic() - quiet_since > idle_s:
            warehouse.process.send_signal(signal.SIGKILL)
            warehouse.process.wait(timeout=30)
            return False
        assert time.monotonic() < deadline, "no self-kill within 120 s:\n" + warehouse.stderr()[-3000:]
        time.sleep(0.2)
    assert warehouse.process.returncode == -signal.SIGKILL, warehouse.stderr()[-3000:]
    return True


def trickle(bootstrap: str, topic: str, rows: list[bytes]) -> None:
    """``rows`` a few at a time, each few in a transaction of its own: a warehouse that has caught
    up then writes batches cut by its flush interval, not by their size."""
    from confluent_kafka import Producer

    tx = Producer({"bootstrap.servers": bootstrap, "transactional.id": "crash-test-trickle", "linger.ms": 5})
    tx.init_transactions(30)
    for start in range(0, len(rows), 3):
        tx.begin_transaction()
        for k, value in enumerate(rows[start : start + 3]):
            tx.produce(topic, value, partition=(start + k) % PARTITIONS.get(topic, 1))
        tx.commit_transaction(30)
        time.sleep(0.4)  # slower than a warehouse starts: the records after a batch arrive after it
    del tx


def test_sigkill_mid_ingest_loses_and_doubles_no_row(broker: KafkaBroker, tmp_path: Path) -> None:
    m = load_messages()
    records = build_records(m)
    late = records["flows.v1"][-TRICKLED:]  # produced while the warehouse has caught up (below)
    produce(broker.bootstrap, {**records, "flows.v1": records["flows.v1"][:-TRICKLED]})
    n = {TOPICS[t]: len(v) for t, v in records.items()}
    undecodable = sum(len(v) for v in UNDECODABLE.values())
    total = sum(n.values()) + undecodable

    rng = random.Random(SEED)
    data_dir = tmp_path / "data"
    args = ("--kafka-max-batch-records", "25", "--kafka-flush-interval-ms", "200", "--stop-merges")
    partial_kills = seen = 0
    warehouse: Warehouse | None = None
    try:
        for kill in range(KILLS):
            injected = kill % 2 == 1
            # Every other kill lands where a Kafka engine table stores a batch twice: the warehouse
            # kills itself (SIGKILL) right after a batch is written, before its offset is committed
            # (consumer.py, KILL_AFTER_WRITES). The others land at a random moment.
            env = {KILL_AFTER_WRITES: str(rng.randint(1, 40))} if injected else {}
            try:
                warehouse = start_warehouse(data_dir, brokers=broker.bootstrap, group_prefix="crash", extra_args=args,
                                            timeout=120, extra_env=env)
            except AssertionError:
                if not injected:
                    raise
                partial_kills += 1  # killed itself after a write, before READY
                print(f"kill {kill + 1}: SIGKILL after a write, before its commit, during start-up (seed {SEED})")
                continue
            if injected:
                if not killed_itself(warehouse, list(n)):
                    print(f"kill {kill + 1}: fewer than {env[KILL_AFTER_WRITES]} batches were left; SIGKILL while idle (seed {SEED})")
                    continue
                partial_kills += 1  # after a write, by construction
            else:
                before, deadline = seen, time.monotonic() + 120
                while stored_rows(warehouse.url, list(n)) <= before and seen < total and time.monotonic() < deadline:
                    time.sleep(0.05)  # until this run has stored something
                time.sleep(rng.uniform(0.0, 1.5))  # then a random moment of the ingest (the kill point, not a wait)
                seen = stored_rows(warehouse.url, list(n))
                warehouse.process.send_signal(signal.SIGKILL)
                warehouse.process.wait(timeout=30)
                partial_kills += 0 < seen < total
            print(f"kill {kill + 1}: SIGKILL {'after a write, before its commit' if injected else f'with {seen} result rows stored'} (seed {SEED})")
        assert partial_kills >= KILLS // 2, f"only {partial_kills} of {KILLS} kills hit the ingest mid-way (seed {SEED}): make it longer"

        # Batches cut by time, not size: a batch written again after a kill must keep its boundaries
        # (the records after it have arrived meanwhile). The warehouse catches up, then the last
        # flows trickle in while it kills itself twice right after a write.
        warehouse = start_warehouse(data_dir, brokers=broker.bootstrap, group_prefix="crash", extra_args=args, timeout=120)
        deadline = time.monotonic() + 300
        while int(sql(warehouse.url, "SELECT count() FROM flows")) < n["flows"] - TRICKLED:
            assert time.monotonic() < deadline, "the warehouse did not catch up within 300 s:\n" + warehouse.stderr()[-3000:]
            time.sleep(0.2)
        warehouse.stop()
        producer = threading.Thread(target=trickle, args=(broker.bootstrap, "flows.v1", late))
        producer.start()
        for kill in range(2):
            try:
                warehouse = start_warehouse(data_dir, brokers=broker.bootstrap, group_prefix="crash", extra_args=args,
                                            timeout=120, extra_env={KILL_AFTER_WRITES: str(rng.randint(2, 4))})
                killed_itself(warehouse, list(n))
            except AssertionError as exc:
                if "did not print READY" not in str(exc):
                    raise  # killed itself before READY, else a failure
            print(f"trickle kill {kill + 1}: SIGKILL after a write, before its commit (seed {SEED})")
        producer.join(timeout=120)

        warehouse = start_warehouse(data_dir, brokers=broker.bootstrap, group_prefix="crash", extra_args=args, timeout=120)
        url = warehouse.url
        deadline = time.monotonic() + 300
        while int(sql(url, "SELECT count() FROM flows")) < n["flows"] or int(sql(url, "SELECT count() FROM rejected")) < n["rejected"] + undecodable:
            assert time.monotonic() < deadline, "the warehouse did not read everything within 300 s:\n" + warehouse.stderr()[-3000:]
            time.sleep(0.5)
        for table in n:  # every table caught up (or more: then the assertions below say so)
            while int(sql(url, f"SELECT count() FROM {table}")) < n[table] + (undecodable if table == "rejected" else 0):
                assert time.monotonic() < deadline, f"{table} did not catch up:\n" + warehouse.stderr()[-3000:]
                time.sleep(0.5)
        time.sleep(2)  # nothing more may arrive: every batch is in; a doubled one would land now too

        flows = [m["FlowRecord"].FromString(v) for v in records["flows.v1"]]
        bins = [m["LinkBin"].FromString(v) for v in records["probe.bins.v1"]]
        stats = [m["LinkStats"].FromString(v) for v in records["links.stats.v1"]]
        flowsets = [m["Flowset"].FromString(v) for v in records["flowsets.v1"]]
        expected_rows = dict(n)
        expected_rows["rejected"] = n["rejected"] + undecodable
        expected_rows["redirect_rules"] = n["redirect_commands"]
        for grain in ("1m", "1h", "1d"):
            expected_rows[f"flows_{grain}"] = len(flows)  # a distinct exporter per flow: a bucket each
            expected_rows[f"link_load_{grain}"] = len(bins)  # a distinct link per bin
            expected_rows[f"link_stats_{grain}"] = len(stats)
        expected_rows["flowsets_site_month"] = len(flowsets)  # one flowset per month

        tables = sql(url, "SELECT name FROM system.tables WHERE database = 'default' AND engine LIKE '%MergeTree' ORDER BY name").split()
        uncovered = sorted(set(tables) - set(expected_rows) - set(NOT_FROM_TOPICS))
        assert not uncovered, f"tables this test does not count: {uncovered}; add their expected rows"
        stored = {t: int(sql(url, f"SELECT count() FROM {t}")) for t in expected_rows}
        wrong = {t: (stored[t], want) for t, want in expected_rows.items() if stored[t] != want}
        assert not wrong, f"rows stored != rows expected (table: (stored, expected)), seed {SEED}: {wrong}"
        assert int(sql(url, "SELECT count() FROM schema_migrations")) == len(migrations.discover(DEFAULT_MIGRATIONS_DIR))
        assert sql(url, "SELECT count() FROM rejected WHERE stage = 'warehouse' AND reason = 'undecodable_protobuf'") == f"{undecodable}\n"

        sums = {
            "SELECT sum(records), sum(bytes), sum(packets) FROM flows_{g}":
                f"{len(flows)}\t{sum(f.bytes for f in flows)}\t{sum(f.packets for f in flows)}\n",
            "SELECT sum(bins), sum(bytes), sum(cheetah_bytes), sum(bg_bytes) FROM link_load_{g}":
                f"{len(bins)}\t{sum(b.bytes for b in bins)}\t{sum(b.cheetah_bytes for b in bins)}\t{sum(b.bytes - b.cheetah_bytes for b in bins)}\n",
            "SELECT sum(windows), round(sum(sum_mean_bg_bps)), countIf(sliding) FROM link_stats_{g}":
                f"{len(stats)}\t{round(sum(s.mean_bg_bps for s in stats))}\t{sum(s.sliding for s in stats)}\n",
        }
        for query, want in sums.items():
            for grain in ("1m", "1h", "1d"):
                assert sql(url, query.format(g=grain)) == want, query.format(g=grain)
        assert sql(url, "SELECT sum(flowsets), sum(singles), sum(flows), sum(bytes) FROM flowsets_site_month") == (
            f"{len(flowsets)}\t{sum(f.single for f in flowsets)}\t{sum(f.n_flows for f in flowsets)}\t{sum(f.bytes for f in flowsets)}\n"
        )
        # Caught up as Kafka sees it too (Warehouse.awaitCaughtUp in Java reads this): every group
        # has committed the end of its partitions, past commit markers and the aborted transaction.
        from confluent_kafka import Consumer, TopicPartition

        behind = {}
        for topic, table in TOPICS.items():
            reader = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"crash.{table}", "isolation.level": "read_committed"})
            for tp in reader.committed([TopicPartition(topic, p) for p in range(PARTITIONS.get(topic, 1))], timeout=30):
                end = reader.get_watermark_offsets(tp, timeout=30)[1]
                if tp.offset != end:
                    behind[f"{topic}/{tp.partition}"] = (tp.offset, end)
            reader.close()
        assert not behind, f"committed offsets short of the end (committed, end): {behind}"
        replays = warehouse.stderr().count("writing batch")
        print(f"{KILLS} kills ({partial_kills} mid-ingest), {replays} batches written again after a kill, seed {SEED}")
    finally:
        if warehouse is not None:
            warehouse.stop()
