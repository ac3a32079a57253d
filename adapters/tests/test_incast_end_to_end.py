"""The incast adapter CLI on a real broker: a signed RWND_CAP command guards a receiver on a real
port, real TCP senders are counted and released, and the guard's samples reach incast.guard.v1."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from cheetah_adapters.incast.guard import Guard
from cheetah_adapters.incast.qdisc import in_netns
from cheetah_adapters.kafka_loop import COMMANDS_TOPIC
from cheetah_adapters.messages import RedirectMessages, message_class
from cheetah_adapters.targets.incast import INCAST_PROTO, SAMPLES_TOPIC
from tests.adapter_process import AdapterProcess
from tests.conftest import DEVICE_ID
from tests.incast_topology import Topology, topology  # noqa: F401 (fixture)
from tests.kafka_broker import Broker
from tests.namespaces import sh
from tests.signer import Signer, mapped
from tests.test_incast_adapter import rwnd_cap
from tests.test_kafka_end_to_end import Acks, broker  # noqa: F401 (fixture)

RECEIVER, SENDER, PORT = "10.78.1.2", "10.78.2.2", 5301


class Samples:
    def __init__(self, bootstrap: str) -> None:
        self.cls = message_class(INCAST_PROTO, "IncastGuardSample")
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "test-incast-samples", "enable.auto.commit": False})
        partitions = self.consumer.list_topics(SAMPLES_TOPIC, timeout=10).topics[SAMPLES_TOPIC].partitions
        self.consumer.assign([TopicPartition(SAMPLES_TOPIC, p, OFFSET_BEGINNING) for p in partitions])

    def first(self, what: str, matches: Any, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.consumer.poll(0.2)
            if message is None or message.error():
                continue
            assert message.key() == DEVICE_ID.encode()
            sample = self.cls.FromString(message.value())
            if matches(sample):
                return sample
        raise AssertionError(f"no sample on {SAMPLES_TOPIC} with {what} within {timeout} s")


def test_signed_guard_counts_real_senders_and_publishes_samples(
    broker: Broker, messages: RedirectMessages, signer: Signer, keys_path: Path, topology: Topology, tmp_path: Path,  # noqa: F811
) -> None:
    sh("tc", "-n", topology.s, "qdisc", "add", "dev", "s-r", "root", "tbf", "rate", "100mbit", "burst", "16kb", "limit", "64000")
    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    acks = Acks(broker.bootstrap, messages)
    samples = Samples(broker.bootstrap)
    adapter = AdapterProcess([
        "--target", "incast", "--device", DEVICE_ID, "--bootstrap", broker.bootstrap, "--keys", str(keys_path),
        "--state-dir", str(tmp_path / "state"), "--interface", "s-r", "--netns", topology.s, "--mss", "1000",
        "--sample-interval", "0.2",
    ], tmp_path / "adapter.log")
    sockets: list[socket.socket] = []
    try:
        assert adapter.next_event(60)["event"] == "ready"
        add = rwnd_cap(signer, "guard-1")
        producer.produce(COMMANDS_TOPIC, key=DEVICE_ID.encode(), value=signer.sign(add))
        producer.flush(10)
        assert [acks.status(a) for a in acks.until(1)] == [("guard-1", "APPLIED")]

        server = in_netns(topology.x, lambda: socket.create_server((SENDER, PORT)))
        sockets.append(server)
        clients = [in_netns(topology.r, lambda: socket.create_connection((SENDER, PORT), timeout=10)) for _ in range(3)]
        sockets += clients
        accepted = [server.accept()[0] for _ in range(3)]
        sockets += accepted
        for conn in accepted:
            threading.Thread(target=conn.sendall, args=(b"z" * 300_000,), daemon=True).start()
        for c in clients:
            got = 0
            while got < 300_000:
                got += len(c.recv(65536))
        three = samples.first("3 senders", lambda s: s.senders == 3 and s.acks_capped_total > 0)
        assert (three.receiver, three.syn_acks_total, three.buffer_bytes, three.share_bytes, three.command_id) == (
            mapped(RECEIVER), 3, 64000, 16000, "guard-1",  # 75 % of the tbf limit 64000, among 3
        )
        for s in sockets:
            s.close()
        sockets.clear()
        released = samples.first("3 releases", lambda s: s.releases_total == 3)
        assert (released.senders, released.syn_acks_total) == (0, 3)

        producer.produce(COMMANDS_TOPIC, key=DEVICE_ID.encode(), value=signer.sign(signer.remove("guard-1-end", add)))
        producer.flush(10)
        assert acks.status(acks.until(2)[1]) == ("guard-1-end", "APPLIED")
        stopped = adapter.stop()
        assert stopped["counters"]["applied"] == 2 and stopped["counters"]["rules_in_force"] == 0
        assert Guard(interface="s-r", netns=topology.s, pin_dir=Guard.pin_dir_for("s-r", topology.s)).receivers() == {}
    finally:
        for s in sockets:
            s.close()
        adapter.kill()
        Guard.detach_port("s-r", topology.s)
