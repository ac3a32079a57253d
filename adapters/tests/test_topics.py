"""The adapter's topics are the manifest's: the topic it consumes names it as a consumer, the one it
writes names it as a producer (schemas/topics.yaml), with the messages the adapter decodes."""

from __future__ import annotations

from cheetah_adapters.kafka_loop import ACKS_TOPIC, COMMANDS_TOPIC
from tests.topics_manifest import manifest_topics


def by_name() -> dict[str, dict]:
    return {t["name"]: t for t in manifest_topics()}


def test_commands_topic_is_the_manifests_and_names_the_adapters_as_consumer() -> None:
    topic = by_name()[COMMANDS_TOPIC]
    assert "adapters" in topic["consumers"]
    assert topic["message"] == "cheetah/v1/redirects.proto:RedirectCommand"


def test_acks_topic_is_the_manifests_and_names_the_adapters_as_producer() -> None:
    topic = by_name()[ACKS_TOPIC]
    assert topic["producers"] == ["adapters"]
    assert topic["message"] == "cheetah/v1/redirects.proto:RedirectAck"


def test_every_topic_naming_the_adapters_is_one_they_use() -> None:
    used = {t["name"] for t in manifest_topics() if "adapters" in t["producers"] + t["consumers"]}
    assert used == {COMMANDS_TOPIC, ACKS_TOPIC}
