"""Watches the detection → command → ack chain on a live broker, decoding with schemas/ only.

One consumer reads cheetahs.v1, redirects.commands.v1 and redirects.acks.v1 from their start
(committed records only, as the jobs publish transactionally) and keeps every record decoded,
with its Kafka timestamp and the time it was seen here.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from cheetah_adapters.kafka_loop import ACKS_TOPIC, COMMANDS_TOPIC
from cheetah_adapters.messages import DEFAULT_SCHEMAS_DIR, RedirectMessages
from tests.topics_manifest import manifest_topic

# The adapters' own topics come from the adapter; cheetahs.v1 is read from the manifest.
COMMANDS, ACKS = COMMANDS_TOPIC, ACKS_TOPIC
CHEETAHS = manifest_topic("cheetahs")


def cheetah_event_class(schemas_dir: Path = DEFAULT_SCHEMAS_DIR) -> Any:
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cheetahs.pb"
        if protoc.main(["protoc", f"-I{schemas_dir}", f"--descriptor_set_out={out}", "--include_imports", "cheetah/v1/cheetahs.proto"]) != 0:
            raise RuntimeError(f"protoc failed on {schemas_dir}/cheetah/v1/cheetahs.proto")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("cheetah.v1.CheetahEvent"))


@dataclass
class Seen:
    topic: str
    message: Any
    kafka_ms: int  # the record's timestamp (the producer's clock at send)
    seen_s: float  # epoch seconds when this consumer got it


class RedirectTopics:
    def __init__(self, bootstrap: str, messages: RedirectMessages) -> None:
        self.decoders: dict[str, Callable[[bytes], Any]] = {
            CHEETAHS: cheetah_event_class().FromString, COMMANDS: messages.command.FromString, ACKS: messages.ack.FromString,
        }
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "isolation-experiment", "enable.auto.commit": False,
                                  "isolation.level": "read_committed"})
        metadata = self.consumer.list_topics(timeout=10)
        self.consumer.assign([
            TopicPartition(t, p, OFFSET_BEGINNING) for t in self.decoders for p in metadata.topics[t].partitions
        ])
        self.seen: list[Seen] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping.is_set():
            record = self.consumer.poll(0.1)
            if record is None:
                continue
            if record.error():
                self.errors.append(str(record.error()))
                continue
            decoded = self.decoders[record.topic()](record.value())
            with self.lock:
                self.seen.append(Seen(record.topic(), decoded, record.timestamp()[1], time.time()))

    def first(self, topic: str, matches: Callable[[Any], bool], timeout: float, what: str) -> Seen:
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                found = [s for s in self.seen if s.topic == topic and matches(s.message)]
                counts = {t: sum(1 for s in self.seen if s.topic == t) for t in self.decoders}
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} on {topic} within {timeout:.0f} s (records seen per topic: {counts}; errors: {self.errors[-3:]})")
            time.sleep(0.05)

    def all(self, topic: str) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.topic == topic]

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        self.consumer.close()
