#!/usr/bin/env python3
"""Creates every topic of schemas/topics.yaml on a Kafka cluster, laid out as the manifest says.

  kafka_topics.py --bootstrap HOST:PORT [--manifest FILE] [layout options]   create what is missing
  kafka_topics.py --plan [--manifest FILE] [layout options]                  print the plan, no Kafka

The manifest is read at run time (docker-compose's kafka-topics service runs this in the tools
image), so a topic added there is created on the next `docker-compose up`. The layout is the one
TopicLayout (flink-jobs/runtime) gives the embedded broker: high-volume topics get
--high-volume-partitions, others --partitions; compacted topics (cleanup: compact) are never
aged out; the others keep --retention-hours / --retention-bytes per partition, raised to the
topic's min_retention_days (and then unbounded in bytes) where the manifest sets one. Existing
topics are not changed; a topic with fewer partitions or another cleanup policy than planned is
reported and the exit status is 1. Exit 2: bad options or manifest.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
import gen_topics  # noqa: E402 - the manifest's one reader, beside this file in the repo and the image
DEFAULT_MANIFEST = HERE.parent / "schemas" / "topics.yaml"


@dataclass(frozen=True)
class Layout:
    partitions: int
    high_volume_partitions: int
    retention_ms: int
    retention_bytes: int  # per partition; -1: unbounded
    replication_factor: int
    min_insync_replicas: int | None

    def __post_init__(self) -> None:
        if self.partitions < 1 or self.high_volume_partitions < 1:
            raise ValueError("partitions must be >= 1")
        if self.retention_ms <= 0:
            raise ValueError("retention must be > 0")
        if self.retention_bytes == 0 or self.retention_bytes < -1:
            raise ValueError("retention bytes must be -1 or > 0")
        if self.replication_factor < 1:
            raise ValueError("replication factor must be >= 1")


@dataclass(frozen=True)
class TopicPlan:
    name: str
    partitions: int
    config: dict[str, str]


def load_manifest(path: Path) -> list[dict]:
    """The manifest's topics, validated by the manifest's own reader (scripts/gen_topics.py)."""
    topics = gen_topics.load(path)
    for t in topics:
        floor = t.get("min_retention_days")
        if floor is not None and (not isinstance(floor, int) or floor < 1):
            raise ValueError(f"{path}: topic {t['name']}: min_retention_days must be a whole number >= 1")
    return topics


def plan(topics: list[dict], layout: Layout) -> list[TopicPlan]:
    plans = []
    for t in topics:
        partitions = layout.high_volume_partitions if t["volume"] == "high" else layout.partitions
        config: dict[str, str] = {}
        if t["cleanup"] == "compact":
            config["cleanup.policy"] = "compact"
        else:
            floor_ms = int(t.get("min_retention_days") or 0) * 86_400_000
            longer = floor_ms > layout.retention_ms
            config["cleanup.policy"] = "delete"
            config["retention.ms"] = str(floor_ms if longer else layout.retention_ms)
            config["retention.bytes"] = "-1" if longer else str(layout.retention_bytes)
        if layout.min_insync_replicas is not None:
            config["min.insync.replicas"] = str(layout.min_insync_replicas)
        plans.append(TopicPlan(t["name"], partitions, config))
    return plans


def apply(plans: list[TopicPlan], bootstrap: str, replication_factor: int, timeout_s: float) -> int:
    """Creates the missing topics; returns 0, or 1 if an existing topic differs from its plan."""
    from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic  # only needed here

    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.monotonic() + timeout_s
    while True:  # the broker may still be starting: wait for metadata, with a deadline
        try:
            existing = admin.list_topics(timeout=10).topics
            break
        except Exception as e:  # noqa: BLE001 - KafkaException or a timeout: retry until the deadline
            if time.monotonic() > deadline:
                print(f"kafka_topics: cannot reach Kafka at {bootstrap} within {timeout_s:.0f} s: {e}", file=sys.stderr)
                return 1
            time.sleep(2)
    missing = [p for p in plans if p.name not in existing]
    if missing:
        futures = admin.create_topics(
            [NewTopic(p.name, num_partitions=p.partitions, replication_factor=replication_factor, config=p.config)
             for p in missing],
            request_timeout=timeout_s,
        )
        for name, future in futures.items():
            try:
                future.result()
                print(f"created {name}")
            except Exception as e:  # noqa: BLE001 - created meanwhile by someone else is fine
                if "TOPIC_ALREADY_EXISTS" not in str(e):
                    print(f"kafka_topics: creating {name} failed: {e}", file=sys.stderr)
                    return 1
    status = 0
    # A created topic reaches the metadata a moment later: wait for every planned one, with a deadline.
    while True:
        existing = admin.list_topics(timeout=10).topics
        absent = [p.name for p in plans if p.name not in existing]
        if not absent:
            break
        if time.monotonic() > deadline + timeout_s:
            print(f"kafka_topics: created but not in the metadata after {timeout_s:.0f} s: {absent}", file=sys.stderr)
            return 1
        time.sleep(0.2)
    resources = [ConfigResource(ConfigResource.Type.TOPIC, p.name) for p in plans]
    configs = {r.name: f.result() for r, f in admin.describe_configs(resources).items()}
    for p in plans:
        have = len(existing[p.name].partitions)
        policy = configs[p.name]["cleanup.policy"].value
        if have < p.partitions or policy != p.config["cleanup.policy"]:
            print(f"kafka_topics: {p.name} exists with {have} partitions and cleanup.policy={policy}; "
                  f"planned {p.partitions} and {p.config['cleanup.policy']}: change it by hand "
                  "(kafka-topics.sh --alter / kafka-configs.sh)", file=sys.stderr)
            status = 1
    print(f"topics: {len(plans)} in the manifest, {len(missing)} created, {len(plans) - len(missing)} already there")
    return status


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST, help="schemas/topics.yaml")
    p.add_argument("--bootstrap", help="Kafka bootstrap servers, HOST:PORT[,HOST:PORT]")
    p.add_argument("--plan", action="store_true", help="print the topics as JSON lines, touch no Kafka")
    p.add_argument("--partitions", type=int, default=1, help="partitions of low-volume topics (default 1)")
    p.add_argument("--high-volume-partitions", type=int, default=2, help="partitions of high-volume topics (default 2)")
    p.add_argument("--retention-hours", type=float, default=48, help="retention of non-compacted topics (default 48)")
    p.add_argument("--retention-bytes", type=int, default=1 << 30, help="per partition, -1 for none (default 1 GiB)")
    p.add_argument("--replication-factor", type=int, default=1)
    p.add_argument("--min-insync-replicas", type=int, help="min.insync.replicas of every topic (default: the broker's)")
    p.add_argument("--timeout-s", type=float, default=120, help="how long to wait for Kafka (default 120)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        layout = Layout(args.partitions, args.high_volume_partitions, int(args.retention_hours * 3_600_000),
                        args.retention_bytes, args.replication_factor, args.min_insync_replicas)
        plans = plan(load_manifest(args.manifest), layout)
    except (ValueError, KeyError, TypeError, OSError, yaml.YAMLError) as e:
        print(f"kafka_topics: {e}", file=sys.stderr)
        return 2
    if args.plan:
        for p in plans:
            print(json.dumps({"name": p.name, "partitions": p.partitions, "config": p.config}))
        return 0
    if not args.bootstrap:
        print("kafka_topics: --bootstrap is required (or --plan)", file=sys.stderr)
        return 2
    return apply(plans, args.bootstrap, args.replication_factor, args.timeout_s)


if __name__ == "__main__":
    sys.exit(main())
