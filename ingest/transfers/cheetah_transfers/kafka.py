"""``ship-transfers --kafka``: records onto transfers.v1, host samples onto transfers.hosts.v1,
rejects onto flows.rejected.v1.

A plain producer like the other producers outside Flink (docs/ARCHITECTURE.md, "Producers outside
Flink"): idempotent, ``acks=all``, each message a bare protobuf (cheetah/v1/transfers.proto
Transfer and HostSample, cheetah/v1/flows.proto RejectedRecord). A transfer's key is its host pair
(src_host, newline, dst_host), a host sample's its host, as schemas/topics.yaml says; a reject has
none. A utilisation not sampled (None) is left unset, never 0. transfers.v1 is delivered at
least once: shipping a file again sends its records again, and the warehouse stores a transfer
whose sorting key (hosts and start time) it holds already only once. Topic names come from
schemas/topics.yaml (by id), message types from schemas/ (compiled by protoc at run time).

Needs the repository's venv (confluent-kafka, protobuf, grpcio-tools, PyYAML); the file outputs
need only the standard library.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMAS_DIR = Path(os.environ.get("CHEETAH_SCHEMAS", Path(__file__).resolve().parents[3] / "schemas"))


class KafkaSetupError(RuntimeError):
    """Kafka cannot be used as asked: the message says what to fix."""


def read_client_options(path: Path) -> dict[str, str]:
    """librdkafka settings from a ``key=value`` file (``#`` comments, blank lines): --kafka-config,
    the shippers' principal's credentials (docs/DEPLOY.md, "Security"); as the adapters read it."""
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


def topic(topic_id: str, schemas_dir: Path = SCHEMAS_DIR) -> tuple[str, str]:
    """(name, FILE:MESSAGE) of the topic with this id in schemas/topics.yaml."""
    import yaml

    for t in yaml.safe_load((schemas_dir / "topics.yaml").read_text(encoding="utf-8"))["topics"]:
        if t.get("id") == topic_id:
            return str(t["name"]), str(t["message"])
    raise KafkaSetupError(f"{schemas_dir / 'topics.yaml'} has no topic with id {topic_id}")


def message_class(spec: str, schemas_dir: Path = SCHEMAS_DIR) -> Any:
    """The class of FILE:MESSAGE (cheetah.v1) under schemas/."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from grpc_tools import protoc

    proto, _, name = spec.partition(":")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "messages.pb"
        status = protoc.main(["protoc", f"-I{schemas_dir}", f"--descriptor_set_out={out}", "--include_imports", proto])
        if status != 0:
            raise KafkaSetupError(f"protoc failed ({status}) on {schemas_dir / proto}; set CHEETAH_SCHEMAS to the repository's schemas/")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"cheetah.v1.{name}"))


def transfer_key(record: dict[str, Any]) -> bytes:
    """The Kafka key of a transfers.v1 record: its host pair (schemas/topics.yaml)."""
    return f"{record['src_host']}\n{record['dst_host']}".encode()


@dataclass
class Sent:
    """What Kafka acknowledged, per topic, and what it did not (with the first error)."""

    delivered: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def host_sample_message(sample: dict[str, Any]) -> dict[str, Any]:
    """A host sample (records.host_sample) in the proto3 JSON form of HostSample: None left out."""
    return {k: v for k, v in sample.items() if v is not None}


def publish(bootstrap: str, records: list[dict[str, Any]], rejects: list[dict[str, Any]],
            client_options: dict[str, str] | None = None, timeout_s: float = 60.0,
            host_samples: list[dict[str, Any]] | None = None) -> Sent:
    """Sends every record, host sample and reject and waits (up to ``timeout_s``) for Kafka's
    acknowledgement."""
    from confluent_kafka import Producer
    from google.protobuf import json_format

    transfers_topic, transfers_msg = topic("transfers")
    rejected_topic, rejected_msg = topic("rejected")
    samples_topic, samples_msg = topic("host_samples")
    transfer_cls, reject_cls = message_class(transfers_msg), message_class(rejected_msg)
    topics = [transfers_topic, rejected_topic] + ([samples_topic] if host_samples else [])
    sent = Sent(delivered={t: 0 for t in topics}, failed={t: 0 for t in topics})

    def done(error: Any, message: Any) -> None:
        t = message.topic()
        if error is None:
            sent.delivered[t] += 1
        else:
            sent.failed[t] += 1
            if len(sent.errors) < 5:
                sent.errors.append(f"{t}: {error}")

    producer = Producer({
        "bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5,
        "message.timeout.ms": int(timeout_s * 1000), **(client_options or {}),
    })
    for r in records:
        value = json_format.ParseDict(r, transfer_cls()).SerializeToString()
        producer.produce(transfers_topic, key=transfer_key(r), value=value, on_delivery=done)
        producer.poll(0)
    if host_samples:
        sample_cls = message_class(samples_msg)
        for h in host_samples:
            value = json_format.ParseDict(host_sample_message(h), sample_cls()).SerializeToString()
            producer.produce(samples_topic, key=str(h["host"]).encode(), value=value, on_delivery=done)
            producer.poll(0)
    for r in rejects:
        producer.produce(rejected_topic, value=json_format.ParseDict(r, reject_cls()).SerializeToString(), on_delivery=done)
        producer.poll(0)
    left = producer.flush(timeout_s + 5)
    if left:
        sent.errors.append(f"{left} message(s) still unacknowledged after {timeout_s + 5:.0f} s")
        sent.failed["unacknowledged"] = left
    return sent
