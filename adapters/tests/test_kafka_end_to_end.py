"""The tc adapter CLI on a real broker: signed commands in, filters on a real interface, acks out."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from cheetah_adapters.kafka_loop import ACKS_TOPIC, COMMANDS_TOPIC
from cheetah_adapters.messages import RedirectMessages
from tests.adapter_process import AdapterProcess
from tests.conftest import DEVICE_ID
from tests.kafka_broker import Broker, start_broker
from tests.namespaces import VethPair, sh
from tests.signer import Signer


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    started = start_broker(tmp_path_factory.mktemp("broker") / "broker.log")
    try:
        yield started
    finally:
        started.stop()


class Acks:
    """Reads redirects.acks.v1 from its start, decoding every ack."""

    def __init__(self, bootstrap: str, messages: RedirectMessages) -> None:
        self.m = messages
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-acks", "enable.auto.commit": False})
        self.consumer.assign([TopicPartition(ACKS_TOPIC, 0, OFFSET_BEGINNING)])
        self.seen: list[tuple[Any, float]] = []  # ack, receive time

    def until(self, count: int, timeout: float = 20) -> list[Any]:
        deadline = time.monotonic() + timeout
        while len(self.seen) < count:
            assert time.monotonic() < deadline, f"{len(self.seen)} acks of {count} within {timeout} s: {[a for a, _ in self.seen]}"
            message = self.consumer.poll(0.1)
            if message is not None and not message.error():
                assert message.key() == DEVICE_ID.encode()
                self.seen.append((self.m.ack.FromString(message.value()), time.monotonic()))
        return [a for a, _ in self.seen[:count]]

    def status(self, ack: Any) -> tuple[str, str]:
        return ack.command_id, self.m.status_name(ack.status)


MEDIAN_LATENCY_BOUND_MS = 1000


def adapter_args(broker: Broker, keys: Path, state: Path, pair: VethPair) -> list[str]:
    return [
        "--target", "tc", "--device", DEVICE_ID, "--bootstrap", broker.bootstrap, "--keys", str(keys), "--state-dir", str(state),
        "--interface", pair.dev_a, "--netns", pair.a, "--rate", "100mbit", "--scavenger-rate", "5mbit",
    ]


def test_commands_through_kafka_applied_once_acked_and_reconciled_after_restart(
    broker: Broker, messages: RedirectMessages, signer: Signer, keys_path: Path, pair: VethPair, tmp_path: Path,
) -> None:
    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    sent: dict[str, float] = {}

    def publish(command: Any, key: str = DEVICE_ID, raw: bytes | None = None) -> None:
        producer.produce(COMMANDS_TOPIC, key=key.encode(), value=raw if raw is not None else signer.sign(command))
        producer.flush(10)
        sent[command.command_id] = time.monotonic()

    acks = Acks(broker.bootstrap, messages)
    adapter = AdapterProcess(adapter_args(broker, keys_path, tmp_path / "state", pair), tmp_path / "adapter.log")
    try:
        ready = adapter.next_event(60)
        assert ready["event"] == "ready" and ready["reconcile"] == {"in_force": 0, "installed": 0, "removed": 0, "failed": 0}

        c1 = signer.flow("c1", pair.ip_a, pair.ip_b, 40001, 5201)
        publish(c1)
        publish(c1, raw=signer.sign(signer.flow("c1", pair.ip_a, pair.ip_b, 40001, 5201)))  # a redelivery, same id
        forged = signer.flow("f1", pair.ip_a, pair.ip_b, 40002, 5201)
        forged.hmac = b"\x00" * 32  # a signature that was never computed
        publish(forged, raw=forged.SerializeToString())
        other = Signer(messages, "router-9")
        publish(other.flow("o1", pair.ip_a, pair.ip_b, 1, 2), key="router-9", raw=other.sign(other.flow("o1", pair.ip_a, pair.ip_b, 1, 2)))
        got = [acks.status(a) for a in acks.until(3)]
        assert got == [("c1", "APPLIED"), ("c1", "DUPLICATE"), ("f1", "REJECTED")]
        assert acks.seen[2][0].detail.startswith("bad_signature:")
        assert all(a.adapter == "tc" and a.device_id == DEVICE_ID for a, _ in acks.seen)
        assert sh("tc", "-n", pair.a, "filter", "show", "dev", pair.dev_a, "parent", "1:").count("flowid 1:20") == 1

        # Command -> applied-and-acked latency, one command at a time.
        latencies = []
        for i in range(20):
            command = signer.flow(f"lat{i}", pair.ip_a, pair.ip_b, 41000 + i, 5201)
            publish(command)
            ack, received = acks.until(4 + i)[-1], acks.seen[3 + i][1]
            assert acks.status(ack) == (f"lat{i}", "APPLIED")
            latencies.append((received - sent[f"lat{i}"]) * 1000)
        latencies.sort()
        p50 = statistics.median(latencies)
        print(f"\ntc command -> ack latency over 20 commands: p50 {p50:.1f} ms, max {latencies[-1]:.1f} ms (load {os.getloadavg()[0]:.1f})")
        # The figure itself is printed (docs/ADAPTERS.md quotes it); what is asserted is that
        # commands are applied as they come, not on a timer. Working: p50 14 ms idle, 32 ms at
        # load average 12 on 2 cores (max 104 ms there: one stall decides a max, so it is not
        # asserted). An adapter that batches acks, lingers before sending them or polls on a
        # >= 1 s period shows >= 1 s on every command, so on the median.
        assert p50 < MEDIAN_LATENCY_BOUND_MS, f"median command -> ack latency {p50:.0f} ms: {[round(x) for x in latencies]}"

        stopped = adapter.stop()["counters"]
        assert (stopped["seen"], stopped["applied"], stopped["duplicates"]) == (23, 21, 1)
        assert stopped["rejected"] == {"bad_signature": 1} and stopped["other_device_skipped"] == 1
        assert stopped["acks_sent"] == stopped["acks_delivered"] == 23 and stopped["rules_in_force"] == 21
    finally:
        adapter.kill()

    # While the adapter is down: c1 is removed and c2 added; then it restarts.
    publish(signer.remove("c1-end", c1))
    publish(signer.flow("c2", pair.ip_a, pair.ip_b, 40003, 5201))
    again = AdapterProcess(adapter_args(broker, keys_path, tmp_path / "state", pair), tmp_path / "adapter.log")
    try:
        ready = again.next_event(60)
        assert ready["reconcile"] == {"in_force": 21, "installed": 1, "removed": 1, "failed": 0}
        assert [acks.status(a) for a in acks.until(25)[23:]] == [("c1-end", "APPLIED"), ("c2", "APPLIED")]
        shown = sh("tc", "-n", pair.a, "filter", "show", "dev", pair.dev_a, "parent", "1:")
        assert "match 9c411451/ffffffff at 20" not in shown  # c1 (sport 40001, dport 5201) is gone
        assert "match 9c431451/ffffffff at 20" in shown  # c2 (sport 40003) is in
        stopped = again.stop()["counters"]
        assert (stopped["applied"], stopped["replayed_known"], stopped["acks_sent"]) == (2, 23, 2)
    finally:
        again.kill()
        acks.consumer.close()
