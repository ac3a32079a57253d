"""A real single-node Kafka 4.2.1 KRaft broker as a child JVM, for tests.

Jars come from Maven Central through the repository's Maven wrapper and the
fixture POM beside this file (kafka_broker/pom.xml), cached under
clickhouse/warehouse/.test-cache/. The broker listens on 127.0.0.1 only, on
free ports, with its logs in a temporary directory, and is stopped by PID.
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

KAFKA_VERSION = "4.2.1"
TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parents[2]
CACHE_DIR = TESTS_DIR.parent / ".test-cache" / f"kafka-{KAFKA_VERSION}"


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(n: int) -> list[int]:
    """n distinct free loopback TCP ports: every probe stays bound until all are chosen, since the
    OS may offer a port it has just offered again."""
    held = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(n)]
    try:
        for probe in held:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in held]
    finally:
        for probe in held:
            probe.close()


def broker_jars() -> Path:
    """Directory holding the broker's runtime jars; resolves them once."""
    jars = CACHE_DIR / "jars"
    done = CACHE_DIR / "complete"
    if done.exists():
        return jars
    mvnw = REPO_ROOT / "mvnw"
    if not mvnw.exists():
        raise RuntimeError(f"the Maven wrapper {mvnw} is missing; it resolves the Kafka broker jars for this test")
    result = subprocess.run(
        [str(mvnw), "-q", "-B", "-f", str(TESTS_DIR / "kafka_broker" / "pom.xml"),
         "dependency:copy-dependencies", f"-DoutputDirectory={jars}", "-DincludeScope=runtime"],
        capture_output=True, text=True, timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"resolving Kafka {KAFKA_VERSION} jars failed:\n{result.stdout}\n{result.stderr}")
    done.write_text("ok\n")
    return jars


@dataclass
class KafkaBroker:
    bootstrap: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_broker(work_dir: Path, timeout: float = 90) -> KafkaBroker:
    jars = broker_jars()
    port, controller_port = free_ports(2)
    data_dir = work_dir / "kraft"
    properties = work_dir / "server.properties"
    properties.write_text(
        "\n".join(
            [
                "process.roles=broker,controller",
                "node.id=1",
                f"controller.quorum.voters=1@127.0.0.1:{controller_port}",
                f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
                f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                f"log.dirs={data_dir}",
                "num.partitions=1",
                "num.network.threads=2",
                "num.io.threads=2",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "",
            ]
        )
    )
    java = ["java", "-Xms128m", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", f"{jars}/*"]
    cluster_id = "-"
    while cluster_id.startswith("-"):  # a leading '-' is read as an option by kafka-storage (1 start in 64)
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    formatted = subprocess.run(
        [*java, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(properties)],
        capture_output=True, text=True, timeout=120,
    )
    if formatted.returncode != 0:
        raise RuntimeError(f"kafka storage format failed:\n{formatted.stdout}\n{formatted.stderr}")
    log_path = work_dir / "broker.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([*java, "kafka.Kafka", str(properties)], stdout=log, stderr=subprocess.STDOUT)
    broker = KafkaBroker(f"127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + timeout
    while "Kafka Server started" not in broker.log():
        if process.poll() is not None or time.monotonic() > deadline:
            broker.stop()
            raise RuntimeError(f"Kafka broker did not start within {timeout} s:\n{broker.log()[-4000:]}")
        time.sleep(0.1)
    return broker


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@contextmanager
def broker_with_topics(work_dir: Path, partitions: Mapping[str, int]) -> Iterator[KafkaBroker]:
    """A broker with these topics (name -> partitions, replication 1), stopped on exit."""
    from confluent_kafka.admin import AdminClient, NewTopic

    started = start_broker(work_dir)
    try:
        admin = AdminClient({"bootstrap.servers": started.bootstrap})
        topics = [NewTopic(name, num_partitions=n, replication_factor=1) for name, n in partitions.items()]
        for future in admin.create_topics(topics).values():
            future.result(timeout=30)
        del admin  # its librdkafka threads must not outlive the broker
        yield started
    finally:
        started.stop()
