"""Ingest rate of the embedded warehouse with and without a heavy dashboards query running.

    .cheetah/venv/bin/python clickhouse/bench/ingest_vs_dashboards.py [--flows 2000000] [--phase-s 15] [--rounds 2]
    ./cheetah bench warehouse [same options] [--users DIR: another users.d profile to try]

A real Kafka broker (the warehouse tests' one) holds a backlog of --flows flow records
(flows.v1, 2 partitions, produced before the warehouse starts); `serve` then consumes it as it
does in production (consumer.py: batches of up to 5,000 records, MergeTree inserts feeding the
rollup views). While it catches up, phases of --phase-s seconds alternate: "alone" (nothing
else runs) and "dashboards" (the read-only `dashboards` user runs a CPU-bound aggregation over
HTTP, one after another, each about 5 s, with its profile's settings). The rate of a phase is
the rows counted in `flows` at its end minus at its start, over its length; a phase the backlog
ran out in is not a figure (it says so). Prints `FIGURE` lines with the load average and the
command (docs/BENCHMARKS.md, "Dashboards vs ingest").
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "clickhouse" / "warehouse"))

from tests.cheetah_messages import address, load_messages  # noqa: E402
from tests.kafka_broker import broker_with_topics  # noqa: E402
from tests.warehouse_process import http, sql, start_warehouse  # noqa: E402

import yaml  # noqa: E402

from cheetah_warehouse import DEFAULT_SCHEMAS_DIR  # noqa: E402

PASSWORD = "cheetah-dashboards"  # the documented default of clickhouse/users.d/cheetah-dashboards.xml
AUTH = {"Authorization": "Basic " + base64.b64encode(f"dashboards:{PASSWORD}".encode()).decode()}
PARTITIONS = 2
QUERY_S = 5.0  # each dashboards query's aimed length


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def figure(name: str, value: str, command: str) -> None:
    print(f"FIGURE {name:<28} {value}\n       load {load()} | {command}", flush=True)


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def heavy(rows: int) -> str:
    return f"SELECT count(), sum(cityHash64(number)) FROM numbers({rows})"


def produce_backlog(bootstrap: str, n: int) -> None:
    from confluent_kafka import Producer

    m = load_messages()
    now_ms = int(time.time() * 1000) - 3_600_000
    flow = m["FlowRecord"]
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 20,
                         "batch.size": 1 << 20, "queue.buffering.max.messages": 1_000_000})
    for i in range(n):
        record = flow(exporter=address(f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"), source=3,
                      received_ms=now_ms + 500, start_ms=now_ms + i, end_ms=now_ms + i + 1000,
                      src_addr=address("198.18.1.10"), dst_addr=address("198.18.2.20"), proto=6,
                      bytes=1000 + i, packets=1 + i % 7, sampling_rate=1).SerializeToString()
        while True:
            try:
                producer.produce("flows.v1", record, partition=i % PARTITIONS)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(120) == 0, "the backlog was not all delivered"


def count(url: str) -> int:
    return int(sql(url, "SELECT count() FROM flows").strip())


def measure(bootstrap: str, tmp: Path, args: argparse.Namespace) -> tuple[dict[str, list[float]], list[float]]:
    started = time.monotonic()
    produce_backlog(bootstrap, args.flows)
    say(f"{args.flows} flows produced in {time.monotonic() - started:.1f} s")
    users = ("--users", str(args.users)) if args.users else ()
    warehouse = start_warehouse(tmp / "data", brokers=bootstrap, group_prefix="bench", timeout=180, extra_args=users)
    try:
        # Calibrated while the warehouse consumes: the conditions the phases see.
        rows = 20_000_000
        while True:
            t0 = time.monotonic()
            response = http(warehouse.url, body=heavy(rows), headers=AUTH)
            took = time.monotonic() - t0
            assert response.status == 200, response.text
            if took >= 1.0:
                break
            rows *= 4
        rows = int(rows * QUERY_S / took)
        say(f"dashboards query: {rows} rows, about {QUERY_S:g} s each")
        rates: dict[str, list[float]] = {"alone": [], "dashboards": []}
        queries: list[float] = []
        for _ in range(args.rounds):
            for phase in ("alone", "dashboards"):
                stop = threading.Event()

                def dashboards() -> None:
                    while not stop.is_set():
                        q0 = time.monotonic()
                        r = http(warehouse.url, body=heavy(rows), headers=AUTH)
                        assert r.status == 200, r.text
                        queries.append(time.monotonic() - q0)

                worker = threading.Thread(target=dashboards) if phase == "dashboards" else None
                if worker is not None:
                    worker.start()
                    time.sleep(0.5)  # under way
                c0, t0 = count(warehouse.url), time.monotonic()
                time.sleep(args.phase_s)
                c1, t1 = count(warehouse.url), time.monotonic()
                stop.set()
                if worker is not None:
                    worker.join()
                if c1 >= args.flows:
                    say(f"{phase}: the backlog ran out ({c1} of {args.flows} stored): not a figure; use more --flows")
                    continue
                rate = (c1 - c0) / (t1 - t0)
                rates[phase].append(rate)
                say(f"{phase}: {c1 - c0} rows in {t1 - t0:.1f} s = {rate:,.0f} rows/s (stored {c1} of {args.flows})")
    finally:
        warehouse.stop()
    return rates, queries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flows", type=int, default=2_000_000, help="backlog of flow records (default 2,000,000)")
    parser.add_argument("--phase-s", type=float, default=15.0, help="length of each phase (default 15 s)")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of phases, alone then dashboards (default 2)")
    parser.add_argument("--users", type=Path, help="users.d directory for `serve` (default clickhouse/users.d): another profile to try")
    args = parser.parse_args()
    command = f"./cheetah bench warehouse --flows {args.flows} --phase-s {args.phase_s:g} --rounds {args.rounds}" + (
        f" --users {args.users}" if args.users else "")
    topics = [t["name"] for t in yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"] if t["table"]]
    with tempfile.TemporaryDirectory(prefix="cheetah-bench-warehouse-") as tmp:
        (Path(tmp) / "kafka").mkdir()
        with broker_with_topics(Path(tmp) / "kafka", {t: PARTITIONS if t == "flows.v1" else 1 for t in topics}) as broker:
            rates, queries = measure(broker.bootstrap, Path(tmp), args)
    if not rates["alone"] or not rates["dashboards"]:
        say("no complete pair of phases: use more --flows")
        return 1
    alone, busy = statistics.median(rates["alone"]), statistics.median(rates["dashboards"])
    runs = lambda xs: ", ".join(f"{x:,.0f}" for x in xs)  # noqa: E731
    figure("warehouse_ingest_alone", f"{alone:,.0f} rows/s (runs: {runs(rates['alone'])})", command)
    figure("warehouse_ingest_dashboards", f"{busy:,.0f} rows/s (runs: {runs(rates['dashboards'])}); "
           f"{len(queries)} dashboards queries of {statistics.median(queries):.1f} s median", command)
    figure("warehouse_ingest_ratio", f"{busy / alone:.2f} of the rate alone", command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
