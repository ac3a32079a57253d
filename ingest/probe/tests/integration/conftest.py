"""Fixtures for the probe's Kafka tests: the probe and tracegen binaries, the
protobuf classes generated from /schemas, a real broker (`cheetah broker`),
and a consumer that reads a topic until a condition holds or a deadline."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from confluent_kafka import Consumer, TopicPartition

ROOT = Path(__file__).resolve().parents[4]

# Topic names by manifest id, read from schemas/topics.yaml (the one list), not from the probe's
# generated topics.h: the tests check that the probe uses the manifest's names.
TOPIC = {t["id"]: t["name"] for t in yaml.safe_load((ROOT / "schemas" / "topics.yaml").read_text())["topics"]}


def _required(var: str) -> Path:
    value = os.environ.get(var)
    if not value or not Path(value).exists():
        pytest.fail(f"{var} must name a built binary (run ingest/probe/test.sh, which sets it)")
    return Path(value)


@pytest.fixture(scope="session")
def probe_bin() -> Path:
    return _required("PROBE_BIN")


@pytest.fixture(scope="session")
def tracegen_bin() -> Path:
    return _required("TRACEGEN_BIN")


@pytest.fixture(scope="session")
def pb(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """cheetah.v1 message classes, generated now from the schemas (never committed)."""
    out = tmp_path_factory.mktemp("pb")
    schemas = ROOT / "schemas"
    protos = [str(p.relative_to(schemas)) for p in (schemas / "cheetah" / "v1").glob("*.proto")]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{schemas}", f"--python_out={out}", *protos],
                   check=True)
    sys.path.insert(0, str(out))
    mod = ModuleType("pb")
    for name in ("cheetahs_pb2", "probe_pb2", "thresholds_pb2"):
        m = importlib.import_module(f"cheetah.v1.{name}")
        for attr in dir(m):
            if not attr.startswith("_"):
                setattr(mod, attr, getattr(m, attr))
    return mod


@dataclass
class Broker:
    proc: subprocess.Popen
    bootstrap: str
    port: int
    data: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # the broker stops when its stdin closes
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_broker(data: Path, port: int | None = None, log: Path | None = None) -> Broker:
    cmd = [str(ROOT / "cheetah"), "broker", f"--data={data}"]
    if port:
        cmd.append(f"--port={port}")
    err = open(log or data.parent / "broker.log", "ab")
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # blocks until the broker says it is ready (or dies)
    if not line:
        proc.wait()
        pytest.fail(f"cheetah broker exited with {proc.returncode} before it was ready; see {err.name}")
    ready = json.loads(line)
    bootstrap = ready["bootstrap"]
    return Broker(proc, bootstrap, int(bootstrap.rsplit(":", 1)[1]), data)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = start_broker(tmp_path / "kafka")
    try:
        yield b
    finally:
        b.stop()


def read_topic(bootstrap: str, topic: str, until: Callable[[list[bytes]], bool], timeout_s: float = 30) -> list[bytes]:
    """Every record of topic from the start; stops once until(values) holds (and
    nothing more is waiting), or fails at the deadline."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"t-{topic}-{time.monotonic_ns()}",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    try:
        md = c.list_topics(topic, timeout=10)
        parts = [TopicPartition(topic, p, 0) for p in md.topics[topic].partitions]
        c.assign(parts)
        values: list[bytes] = []
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            msg = c.poll(0.5)
            if msg is not None and not msg.error():
                values.append(msg.value())
            if until(values):
                # Take what else is already there (for up to 1 s: a live topic never ends),
                # so that extra records such as duplicates show.
                drain_until = time.monotonic() + 1.0
                while time.monotonic() < drain_until and (msg := c.poll(0.3)) is not None:
                    if not msg.error():
                        values.append(msg.value())
                return values
        pytest.fail(f"{topic}: condition not met within {timeout_s} s ({len(values)} records read)")
    finally:
        c.close()


def make_trace(tracegen: Path, out: Path, **opts: object) -> tuple[Path, dict]:
    pcap, truth = out / "trace.pcap", out / "truth.json"
    args = [str(tracegen), "--out", str(pcap), "--truth", str(truth)]
    for k, v in opts.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    subprocess.run(args, check=True, capture_output=True)
    return pcap, json.loads(truth.read_text())


def five_tuple(pb: ModuleType, m) -> tuple:  # noqa: ANN001
    import ipaddress

    def text(raw: bytes) -> str:
        a = ipaddress.IPv6Address(raw)
        return str(a.ipv4_mapped) if a.ipv4_mapped else str(a)

    return (text(m.src_addr), text(m.dst_addr), m.src_port, m.dst_port, m.proto)
