"""Topic names for tests, read from schemas/topics.yaml (the one list), never typed again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MANIFEST = Path(__file__).resolve().parents[2] / "schemas" / "topics.yaml"


def manifest_topics() -> list[dict[str, Any]]:
    return list(yaml.safe_load(MANIFEST.read_text())["topics"])


def manifest_topic(topic_id: str) -> str:
    """The name of the topic whose manifest id is topic_id (e.g. "cheetahs" -> "cheetahs.v1")."""
    for t in manifest_topics():
        if t["id"] == topic_id:
            return str(t["name"])
    raise KeyError(f"no topic with id {topic_id!r} in {MANIFEST}")
