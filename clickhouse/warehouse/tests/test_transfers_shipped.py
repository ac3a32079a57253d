"""Transfer logs shipped to Kafka land in the warehouse once, also when shipped again.

`./cheetah ship-transfers iperf3 FILE --kafka BOOTSTRAP` (ingest/transfers) publishes each run as
a transfers.v1 record, the CPU use iperf3 measured at both ends as transfers.hosts.v1 host samples
(not stored; read back from the topic here), and each bad part as a flows.rejected.v1 reject. transfers.v1 is delivered
at least once (schemas/topics.yaml): shipping the same file again sends the same records, and the
warehouse stores a transfer whose sorting key (hosts, start time) it holds already once.

Real parts: two real `iperf3 -J` runs over loopback, the shipper as a child process, a Kafka
broker, the warehouse (`serve`, merges stopped, rows counted without FINAL). Expected values come
from the iperf3 JSON, read here independently of the shipper's parser.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
import yaml

from cheetah_warehouse import DEFAULT_SCHEMAS_DIR
from tests.kafka_broker import KafkaBroker, broker_with_topics
from tests.warehouse_process import Warehouse, sql, start_warehouse

REPO = Path(__file__).resolve().parents[3]
SHIPPERS = REPO / "ingest" / "transfers"
GROUP = "shipped"
MANIFEST = yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"]
STORED = [t["name"] for t in MANIFEST if t["table"]]
HOST_SAMPLES = next(t["name"] for t in MANIFEST if t["id"] == "host_samples")
BAD = '{"start": oops, not iperf3\n'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    want = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[1].endswith(want) and cols[3] == "0A":  # 0A: LISTEN
                    return True
        except OSError:
            continue
    return False


def iperf3_run(window: str) -> str:
    """One 1 s `iperf3 -J` run with 2 streams over loopback: its JSON."""
    port = free_port()
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 30
        while not listening(port):  # -s -1 serves one client: do not probe by connecting
            assert time.monotonic() < end and server.poll() is None, "iperf3 server did not listen"
            time.sleep(0.05)
        out = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-J", "-t", "1", "-P", "2", "-w", window],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        server.wait(timeout=30)
        return out
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def ship(path: Path, bootstrap: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SHIPPERS)}
    return subprocess.run([sys.executable, "-m", "cheetah_transfers", "iperf3", str(path), "--kafka", bootstrap],
                          capture_output=True, text=True, timeout=120, env=env)


def committed_at_end(bootstrap: str, topic: str, table: str) -> bool:
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{GROUP}.{table}"})
    try:
        tp = reader.committed([TopicPartition(topic, 0)], timeout=30)[0]
        return tp.offset == reader.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)[1] > 0
    except KafkaException:  # the group's coordinator is not elected yet: ask again
        return False
    finally:
        reader.close()


def host_samples(bootstrap: str) -> list[tuple[str, int, float, bool]]:
    """The host samples on the topic: (host, time_ms, cpu_percent, whether disk_percent is set)."""
    from confluent_kafka import Consumer, TopicPartition

    sys.path.insert(0, str(SHIPPERS))
    from cheetah_transfers.kafka import message_class, topic

    cls = message_class(topic("host_samples", DEFAULT_SCHEMAS_DIR)[1], DEFAULT_SCHEMAS_DIR)
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": "host-samples-check", "enable.auto.commit": False})
    try:
        reader.assign([TopicPartition(HOST_SAMPLES, 0, 0)])
        end = reader.get_watermark_offsets(TopicPartition(HOST_SAMPLES, 0), timeout=30)[1]
        out: list[tuple[str, int, float, bool]] = []
        deadline = time.monotonic() + 60
        while len(out) < end and time.monotonic() < deadline:
            m = reader.poll(1.0)
            if m is None or m.error():
                continue
            s = cls.FromString(m.value())
            assert m.key() == s.host.encode(), "a host sample's key is its host"
            out.append((s.host, s.time_ms, s.cpu_percent, s.HasField("disk_percent")))
        return out
    finally:
        reader.close()


def wait_until(condition: Callable[[], bool], what: str, warehouse: Warehouse, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout} s; stderr:\n" + warehouse.stderr()[-3000:]
        time.sleep(0.2)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[KafkaBroker]:
    (tmp_path / "kafka").mkdir()
    with broker_with_topics(tmp_path / "kafka", {t: 1 for t in [*STORED, HOST_SAMPLES]}) as started:
        yield started


def test_shipped_iperf3_runs_are_stored_once_and_the_bad_part_is_rejected(broker: KafkaBroker, tmp_path: Path) -> None:
    assert shutil.which("iperf3"), "iperf3 is not installed (./cheetah setup installs it, pinned)"
    runs = [iperf3_run("256K"), iperf3_run("128K")]  # one after the other: different start seconds
    log = tmp_path / "runs.json"
    log.write_text(runs[0] + BAD + runs[1])
    # Expected rows, read from the JSON here (not by the shipper): sender -> receiver, the bytes and
    # seconds the receiver counted, the start second.
    want = []
    for doc in map(json.loads, runs):
        conn, test = doc["start"]["connected"][0], doc["start"]["test_start"]
        want.append((conn["local_host"], conn["remote_host"], "iperf3", test["num_streams"],
                     sum(s["receiver"]["bytes"] for s in doc["end"]["streams"]),
                     doc["start"]["timestamp"]["timesecs"] * 1000, doc["start"]["sock_bufsize"],
                     doc["end"]["sender_tcp_congestion"]))
    want.sort(key=lambda w: w[5])
    assert want[0][5] < want[1][5] and want[0][4] > 0
    # Host samples: each run's CPU use of the client (host_total) and the server (remote_total),
    # at the middle of the run (start + half the receiver's seconds); disk not sampled.
    samples = []
    for doc in map(json.loads, runs):
        conn, cpu = doc["start"]["connected"][0], doc["end"]["cpu_utilization_percent"]
        mid = doc["start"]["timestamp"]["timesecs"] * 1000 + round(doc["end"]["sum_received"]["seconds"] * 500)
        samples += [(conn["local_host"], mid, cpu["host_total"], False), (conn["remote_host"], mid, cpu["remote_total"], False)]

    warehouse = start_warehouse(tmp_path / "wh", brokers=broker.bootstrap, group_prefix=GROUP,
                                extra_args=("--kafka-flush-interval-ms", "200", "--stop-merges"))
    try:
        first = ship(log, broker.bootstrap)
        assert first.returncode == 0, first.stderr
        assert "2 record(s), 1 rejected" in first.stderr
        assert "sent 2 to transfers.v1, 1 to flows.rejected.v1, 4 to transfers.hosts.v1" in first.stderr
        assert sorted(host_samples(broker.bootstrap)) == sorted(samples)
        wait_until(lambda: committed_at_end(broker.bootstrap, "transfers.v1", "transfers"), "transfers.v1 read", warehouse)
        wait_until(lambda: committed_at_end(broker.bootstrap, "flows.rejected.v1", "rejected"), "rejects read", warehouse)
        got = sql(warehouse.url, "SELECT src_host, dst_host, tool, streams, bytes, toUnixTimestamp64Milli(start_at),"
                  " tcp_buffer_bytes, congestion_control FROM transfers ORDER BY start_at FORMAT TSV")
        assert got.splitlines() == ["\t".join(map(str, w)) for w in want]
        rejected = sql(warehouse.url, "SELECT stage, reason, base64Encode(payload), source_offset FROM rejected"
                       " FORMAT TSV").splitlines()
        bad_line = runs[0].count("\n") + 1
        assert rejected == [f"transfer-shipper\tmalformed_json\t{base64.b64encode(BAD.encode()).decode()}\t{bad_line}"]

        again = ship(log, broker.bootstrap)  # the same file again: the same two transfers
        assert again.returncode == 0, again.stderr
        assert "sent 2 to transfers.v1, 1 to flows.rejected.v1" in again.stderr
        wait_until(lambda: committed_at_end(broker.bootstrap, "transfers.v1", "transfers"), "transfers.v1 read again", warehouse)
        wait_until(lambda: committed_at_end(broker.bootstrap, "flows.rejected.v1", "rejected"), "rejects read again", warehouse)
        assert sql(warehouse.url, "SELECT count() FROM transfers") == "2\n"  # no FINAL: merges are stopped
        assert "transfers: transfers.v1/0: 2 repeats of an at-least-once topic skipped" in warehouse.stderr()
        # A reject is a report of that run: each shipping reports it (flows.rejected.v1 is written once).
        assert sql(warehouse.url, "SELECT count() FROM rejected WHERE reason = 'malformed_json'") == "2\n"
    finally:
        warehouse.stop()
