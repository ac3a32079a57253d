"""A heavy dashboards query does not stall ingestion (embedded warehouse, real broker, `serve`).

The consumers' inserts and the dashboards user's queries share one chdb engine in one process.
While the read-only ``dashboards`` user runs an aggregation of tens of seconds (calibrated here
on this machine, under its profile's 60 s limit), flows are produced in small waves, one a
second; the admin counts ``flows`` four times a second. Every wave produced in the query's first
part must be stored, and seen, before the query ends, and each within ``MAX_LAG_S`` of being
produced. Expected counts are the records produced here, never the warehouse's own.

(Before each restricted session had a lock of its own, every query of the process waited for the
dashboards query: no row arrived, and no count answered, until it ended.)
"""

from __future__ import annotations

import base64
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from cheetah_warehouse import DEFAULT_SCHEMAS_DIR
from tests.cheetah_messages import address, load_messages
from tests.kafka_broker import KafkaBroker, broker_with_topics
from tests.warehouse_process import Response, Warehouse, http, sql, start_warehouse

TOPICS = [t["name"] for t in yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"] if t["table"]]
PASSWORD = "cheetah-dashboards"  # the documented default of clickhouse/users.d/cheetah-dashboards.xml
HEAVY_S = 25.0  # aimed length of the dashboards query (its profile stops it at 60 s)
MAX_LAG_S = 10.0  # produced -> counted, per wave, while the query runs
WAVE = 20  # flows per wave
NOW_MS = int(time.time() * 1000) - 3_600_000  # an hour ago: inside every TTL


@dataclass
class HeavyQuery:
    start: float = 0.0
    end: float = 0.0
    response: Response | None = None


def as_dashboards() -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"dashboards:{PASSWORD}".encode()).decode()}


def heavy(rows: int) -> str:
    """CPU-bound, constant memory: every row hashed and summed."""
    return f"SELECT count(), sum(cityHash64(number)) FROM numbers({rows})"


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    with broker_with_topics(tmp_path_factory.mktemp("kafka"), {t: 1 for t in TOPICS}) as started:
        yield started


@pytest.fixture
def warehouse(broker: KafkaBroker, tmp_path: Path) -> Iterator[Warehouse]:
    started = start_warehouse(tmp_path / "data", brokers=broker.bootstrap, group_prefix="dashboards-vs-ingest",
                              extra_args=("--kafka-flush-interval-ms", "200"), timeout=120)
    try:
        yield started
    finally:
        started.stop()


def calibrate(url: str) -> int:
    """Rows of ``heavy`` that take about HEAVY_S here, measured as the dashboards user."""
    rows = 20_000_000
    while True:
        started = time.monotonic()
        response = http(url, body=heavy(rows), headers=as_dashboards())
        took = time.monotonic() - started
        assert response.status == 200, response.text
        assert response.text.startswith(f"{rows}\t"), response.text
        if took >= 1.0:
            return int(rows * HEAVY_S / took)
        rows *= 4


def flows_count(url: str) -> int:
    return int(sql(url, "SELECT count() FROM flows").strip())


def test_flows_keep_arriving_while_a_heavy_dashboards_query_runs(broker: KafkaBroker, warehouse: Warehouse) -> None:
    from confluent_kafka import Producer

    m = load_messages()

    def flow(i: int) -> bytes:
        exporter = address(f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}")
        return m["FlowRecord"](
            exporter=exporter, source=3, received_ms=NOW_MS + 500, start_ms=NOW_MS + i, end_ms=NOW_MS + i + 1000,
            src_addr=address("198.18.1.10"), dst_addr=address("198.18.2.20"), proto=6, bytes=1000 + i, packets=1,
            sampling_rate=1).SerializeToString()

    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "linger.ms": 1})
    produced = 0

    def wave() -> float:
        nonlocal produced
        for _ in range(WAVE):
            producer.produce("flows.v1", flow(produced))
            produced += 1
        assert producer.flush(30) == 0
        return time.monotonic()

    # Ingestion works before the query: one wave stored.
    wave()
    deadline = time.monotonic() + 60
    while flows_count(warehouse.url) < produced:
        assert time.monotonic() < deadline, "the first wave was never stored:\n" + warehouse.stderr()[-3000:]
        time.sleep(0.2)

    rows = calibrate(warehouse.url)
    counts: list[tuple[float, int]] = []
    done = threading.Event()
    started = threading.Event()
    query = HeavyQuery()

    def run_heavy() -> None:
        query.start = time.monotonic()
        started.set()
        try:
            # Longer than the dashboards profile's 60 s limit: the warehouse answers first, either way.
            query.response = http(warehouse.url, body=heavy(rows), headers=as_dashboards(), timeout=120)
        finally:  # a failed request ends the waves too (they would run until the test's timeout)
            query.end = time.monotonic()
            done.set()

    def poll() -> None:
        while not done.is_set():
            count = flows_count(warehouse.url)
            counts.append((time.monotonic(), count))  # when the answer came (a count waits for nothing)
            time.sleep(0.25)

    heavy_thread = threading.Thread(target=run_heavy)
    heavy_thread.start()
    started.wait(30)
    time.sleep(1.0)  # the query is under way
    poller = threading.Thread(target=poll)
    poller.start()
    waves: list[tuple[float, int]] = []  # (produced at, flows produced so far)
    while not done.wait(1.0):
        waves.append((wave(), produced))
    heavy_thread.join()
    poller.join()
    del producer

    response = query.response
    assert response is not None
    took = query.end - query.start
    if response.status == 200:
        assert response.text.startswith(f"{rows}\t"), response.text
    else:  # a machine far slower than when calibrated: stopped by its profile's 60 s, heavy all the same
        assert response.headers.get("X-ClickHouse-Exception-Code") == "159", response.text
    assert took >= 10.0, f"the dashboards query took {took:.1f} s: not heavy enough to show anything"
    early = [(at, total) for at, total in waves if at < query.end - MAX_LAG_S]
    assert len(early) >= 3, (took, waves)
    lags = []
    for at, total in early:
        seen = next((t for t, count in counts if count >= total), None)
        assert seen is not None and seen < query.end, (
            f"flows produced {at - query.start:.1f} s into a {took:.1f} s dashboards query were not "
            f"stored before it ended; counts seen (s into the query, rows): {[(round(t - query.start, 1), c) for t, c in counts[::8]]}"
        )
        lags.append(seen - at)
    assert max(lags) <= MAX_LAG_S, lags
    # Every row once: the waves after the query too.
    deadline = time.monotonic() + 60
    while flows_count(warehouse.url) != produced:
        assert time.monotonic() < deadline, (flows_count(warehouse.url), produced)
        time.sleep(0.2)
    print(f"dashboards query {took:.1f} s ({rows} rows); {len(early)} waves stored during it, lag max {max(lags):.2f} s")
