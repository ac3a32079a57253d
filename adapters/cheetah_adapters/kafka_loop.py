"""The adapter on Kafka: replay redirects.commands.v1 from its start, reconcile, then follow.

No consumer offsets are committed: every start re-reads the retained commands (docs/REDIRECTS.md,
"Delivery"), and the adapter's own state tells which of them were already applied or answered.
Acks go to redirects.acks.v1 keyed by device id, from an idempotent producer.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

from cheetah_adapters.engine import Adapter

log = logging.getLogger("cheetah_adapters")
COMMANDS_TOPIC = "redirects.commands.v1"
ACKS_TOPIC = "redirects.acks.v1"


class KafkaSetupError(RuntimeError):
    pass


def read_client_options(path: Path) -> dict[str, str]:
    """librdkafka settings from a ``key=value`` file (``#`` comments, blank lines): --kafka-config,
    the adapter principal's credentials (docs/DEPLOY.md, "Security")."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise KafkaSetupError(f"--kafka-config {path}: cannot read it ({e.strerror})") from None
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        if not eq or not key.strip():
            raise KafkaSetupError(f"--kafka-config {path}:{n}: not a key=value line (librdkafka setting)")
        out[key.strip()] = value.strip()
    return out


class AckProducer:
    def __init__(self, bootstrap: str, topic: str, device_id: str, client_options: dict[str, str] | None = None) -> None:
        self.topic = topic
        self.key = device_id.encode()
        self.delivered = 0
        self.failed = 0
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 0, **(client_options or {}),
        })

    def _done(self, error: Any, _message: Any) -> None:
        if error is None:
            self.delivered += 1
        else:
            self.failed += 1
            log.error("ack not delivered to %s: %s", self.topic, error)

    def send(self, ack: Any) -> None:
        self.producer.produce(self.topic, key=self.key, value=ack.SerializeToString(), on_delivery=self._done)
        self.producer.poll(0)

    def close(self, timeout: float = 10) -> None:
        left = self.producer.flush(timeout)
        if left:
            self.failed += left
            log.error("%d acks still undelivered after %s s", left, timeout)


def _assign_from_start(consumer: Consumer, topic: str, timeout: float) -> dict[int, int]:
    """Assigns every partition at its beginning; returns the end offset of each at this moment."""
    try:
        metadata = consumer.list_topics(topic, timeout=timeout)
    except KafkaException as e:
        raise KafkaSetupError(f"no Kafka broker answered ({e}); check --bootstrap") from e
    described = metadata.topics.get(topic)
    if described is None or described.error is not None or not described.partitions:
        raise KafkaSetupError(f"topic {topic} does not exist on the broker ({described.error if described else 'absent'}); create it (./cheetah broker does)")
    ends: dict[int, int] = {}
    for partition in sorted(described.partitions):
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=timeout)
        if high > low:
            ends[partition] = high
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in sorted(described.partitions)])
    return ends


def run(
    adapter: Adapter, bootstrap: str, device_id: str, stop: threading.Event, on_ready: Callable[[dict[str, int]], None],
    topic: str = COMMANDS_TOPIC, acks_topic: str = ACKS_TOPIC, poll_s: float = 0.1,
    client_options: dict[str, str] | None = None,
) -> AckProducer:
    acks = AckProducer(bootstrap, acks_topic, device_id, client_options)
    adapter.send_ack = acks.send
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        # Prefixed by the adapters' Kafka principal, whose ACLs cover its groups (docs/DEPLOY.md,
        # "Security"); no offsets are committed under it.
        "group.id": f"cheetah-adapters.{adapter.device.name}.{device_id}",
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "auto.offset.reset": "earliest",
        "isolation.level": "read_committed",
        # The end of a partition ends its replay even when transaction markers follow the last record.
        "enable.partition.eof": True,
        **(client_options or {}),
    })
    try:
        pending = _assign_from_start(consumer, topic, timeout=15)
        while pending and not stop.is_set():  # replay: up to the end offsets seen at start
            message = consumer.poll(poll_s)
            if message is None:
                continue
            if message.error():
                if message.error().code() == KafkaError._PARTITION_EOF:
                    pending.pop(message.partition(), None)
                _report(message.error())
                continue
            adapter.offer(message.key(), message.value() or b"")
            if message.offset() + 1 >= pending.get(message.partition(), 0):
                pending.pop(message.partition(), None)
        if stop.is_set():
            return acks
        on_ready(adapter.reconcile())
        while not stop.is_set():
            message = consumer.poll(poll_s)
            if message is not None:
                if message.error():
                    _report(message.error())
                else:
                    adapter.offer(message.key(), message.value() or b"")
            adapter.expire()
        return acks
    finally:
        consumer.close()
        acks.close()


def _report(error: KafkaError) -> None:
    if error.code() != KafkaError._PARTITION_EOF:
        log.error("Kafka consumer error: %s", error)
