"""The topic manifest, schemas/topics.yaml: which topic fills which table, with which message.

The warehouse never lists topic names itself: a table's Kafka engine table reads the topic
whose ``table`` field names it, decoding the manifest's ``message`` (``FILE:MESSAGE`` under
schemas/, exactly the form ``kafka_schema`` takes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from .errors import WarehouseError

MANIFEST_NAME = "topics.yaml"


@dataclass(frozen=True)
class Topic:
    name: str
    message: str  # FILE:MESSAGE under schemas/, e.g. cheetah/v1/flowsets.proto:Flowset
    table: str | None  # the warehouse table it fills, None when it is not stored
    at_least_once: bool = False  # `delivery: at-least-once`: a record may come twice

    @property
    def proto_file(self) -> str:
        return self.message.split(":", 1)[0]

    @property
    def message_name(self) -> str:
        return self.message.split(":", 1)[1]


def load_topics(schemas_dir: Path) -> list[Topic]:
    """Every topic of the manifest in ``schemas_dir``, in file order."""
    path = schemas_dir / MANIFEST_NAME
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WarehouseError(f"cannot read the topic manifest {path}: {exc.strerror}; pass --schemas DIR") from None
    except yaml.YAMLError as exc:
        raise WarehouseError(f"topic manifest {path} is not valid YAML: {exc}") from None
    entries = document.get("topics") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise WarehouseError(f"topic manifest {path} has no `topics:` list")
    topics: list[Topic] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("name", "message")):
            raise WarehouseError(f"topic manifest {path}: entry {index + 1} needs string fields name and message")
        table = entry.get("table")
        if table is not None and not isinstance(table, str):
            raise WarehouseError(f"topic manifest {path}: {entry['name']}: table must be a name or null")
        if ":" not in entry["message"]:
            raise WarehouseError(f"topic manifest {path}: {entry['name']}: message must be FILE:MESSAGE")
        delivery = entry.get("delivery")
        if delivery not in (None, "at-least-once"):
            raise WarehouseError(f"topic manifest {path}: {entry['name']}: delivery must be at-least-once or absent, not {delivery!r}")
        topics.append(Topic(entry["name"], entry["message"], table, delivery == "at-least-once"))
    return topics


def stored_topics(schemas_dir: Path) -> dict[str, Topic]:
    """Table name -> the topic that fills it (topics with a non-null ``table``)."""
    by_table: dict[str, Topic] = {}
    for topic in load_topics(schemas_dir):
        if topic.table is None:
            continue
        if topic.table in by_table:
            raise WarehouseError(
                f"topic manifest: table {topic.table} is filled by both {by_table[topic.table].name} and {topic.name}; "
                "a table reads one topic"
            )
        by_table[topic.table] = topic
    return by_table
