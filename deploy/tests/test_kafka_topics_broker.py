"""deploy/kafka_topics.py against a real Kafka 4.2.1 broker (the compose image's version), run
exactly as docker-compose's kafka-topics service runs it (its command line, read from
docker-compose.yml): every manifest topic exists afterwards with the partitions, cleanup policy
and retention the manifest asks for, a second run changes nothing, and a topic that exists with
the wrong layout is reported, not silently accepted.

The broker is the warehouse tests' (a child JVM from Maven Central jars, 127.0.0.1, free ports,
stopped by PID even on failure)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from compose_files import ROOT, command_args, load_compose

sys.path.insert(0, str(ROOT / "clickhouse" / "warehouse" / "tests"))
from kafka_broker import start_broker  # noqa: E402

confluent_admin = pytest.importorskip("confluent_kafka.admin", reason="confluent-kafka (shared venv) is needed")

DAY_MS = 86_400_000


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = start_broker(tmp_path_factory.mktemp("kafka"))
    yield b
    b.stop()


def compose_command(bootstrap: str) -> list[str]:
    """The kafka-topics service's command, with the repository's paths and this broker."""
    service = next(s for s in load_compose()["services"].values()
                   if any(a.endswith("kafka_topics.py") for a in command_args(s)))
    args = command_args(service)
    assert args[0] == "python" and args[1] == "/opt/cheetah/deploy/kafka_topics.py"
    out = [sys.executable, str(ROOT / "deploy" / "kafka_topics.py")]
    it = iter(args[2:])
    for a in it:
        v = next(it)
        out += [a, {"--bootstrap": bootstrap, "--manifest": str(ROOT / "schemas" / "topics.yaml")}.get(a, v)]
    return out + ["--timeout-s", "60"]


def describe(bootstrap: str):
    admin = confluent_admin.AdminClient({"bootstrap.servers": bootstrap})
    topics = {n: t for n, t in admin.list_topics(timeout=30).topics.items() if not n.startswith("__")}
    res = [confluent_admin.ConfigResource(confluent_admin.ConfigResource.Type.TOPIC, n) for n in topics]
    configs = {r.name: {k: v.value for k, v in f.result().items()} for r, f in admin.describe_configs(res).items()}
    return {n: (len(t.partitions), configs[n]) for n, t in topics.items()}


def test_compose_creates_every_manifest_topic_then_changes_nothing(broker):
    cmd = compose_command(broker.bootstrap)
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert first.returncode == 0, first.stderr
    manifest = yaml.safe_load((ROOT / "schemas" / "topics.yaml").read_text())["topics"]
    got = describe(broker.bootstrap)
    assert sorted(got) == sorted(t["name"] for t in manifest)
    # The compose defaults (docker-compose.yml): 1 partition, 2 for high-volume topics, 48 h or
    # 1 GiB per partition; expected values by hand from each topic's manifest fields.
    for t in manifest:
        partitions, config = got[t["name"]]
        assert partitions == (2 if t["volume"] == "high" else 1), t["name"]
        assert config["cleanup.policy"] == t["cleanup"], t["name"]
        if t["cleanup"] == "delete":
            floor = t.get("min_retention_days")
            want = (str(floor * DAY_MS), "-1") if floor and floor * DAY_MS > 48 * 3_600_000 else \
                (str(48 * 3_600_000), str(1 << 30))
            assert (config["retention.ms"], config["retention.bytes"]) == want, t["name"]
    assert got["thresholds.v1"][1]["cleanup.policy"] == "compact"
    assert got["redirects.commands.v1"][1]["retention.ms"] == str(31 * DAY_MS)
    assert f"topics: {len(manifest)} in the manifest, {len(manifest)} created" in first.stdout

    second = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert second.returncode == 0, second.stderr
    assert f"0 created, {len(manifest)} already there" in second.stdout
    assert describe(broker.bootstrap) == got


def test_a_topic_with_the_wrong_layout_is_reported(broker, tmp_path):
    manifest = tmp_path / "topics.yaml"
    entry = {"name": "deploy.test.v1", "id": "deploy_test", "message": "m", "key": "k", "volume": "low",
             "cleanup": "compact", "producers": [], "consumers": []}
    manifest.write_text(yaml.safe_dump({"topics": [entry]}))
    base = [sys.executable, str(ROOT / "deploy" / "kafka_topics.py"), "--bootstrap", broker.bootstrap,
            "--manifest", str(manifest), "--timeout-s", "60"]
    entry["cleanup"] = "delete"  # someone created it by hand as an ordinary topic first
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(yaml.safe_dump({"topics": [entry]}))
    made = subprocess.run([*base[:-4], "--manifest", str(wrong), "--timeout-s", "60"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    checked = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 1
    assert "deploy.test.v1 exists with 1 partitions and cleanup.policy=delete; planned 1 and compact" in checked.stderr
