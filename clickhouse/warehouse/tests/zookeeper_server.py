"""A real standalone Apache ZooKeeper 3.9.4 server as a child JVM, for tests.

Jars come from Maven Central through the repository's Maven wrapper and the fixture POM beside
this file (zookeeper/pom.xml), cached under clickhouse/warehouse/.test-cache/, as the Kafka
broker's (kafka_broker.py). The server listens on 127.0.0.1 only, on a free port, with its data
and log in a temporary directory, its admin HTTP server off, and is stopped by PID. ``ls`` reads
a node's children with ZooKeeper's own command-line client (chdb has no ``system.zookeeper``).
"""

from __future__ import annotations

import hashlib
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.kafka_broker import free_port

ZOOKEEPER_VERSION = "3.9.4"
TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parents[2]
POM = TESTS_DIR / "zookeeper" / "pom.xml"
# Keyed by the POM's content: a changed fixture resolves its jars again.
CACHE_DIR = TESTS_DIR.parent / ".test-cache" / f"zookeeper-{ZOOKEEPER_VERSION}-{hashlib.sha256(POM.read_bytes()).hexdigest()[:12]}"


def zookeeper_jars() -> Path:
    """Directory holding the server's runtime jars; resolves them once."""
    jars = CACHE_DIR / "jars"
    done = CACHE_DIR / "complete"
    if done.exists():
        return jars
    mvnw = REPO_ROOT / "mvnw"
    if not mvnw.exists():
        raise RuntimeError(f"the Maven wrapper {mvnw} is missing; it resolves the ZooKeeper jars for this test")
    result = subprocess.run(
        [str(mvnw), "-q", "-B", "-f", str(POM),
         "dependency:copy-dependencies", f"-DoutputDirectory={jars}", "-DincludeScope=runtime"],
        capture_output=True, text=True, timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"resolving ZooKeeper {ZOOKEEPER_VERSION} jars failed:\n{result.stdout}\n{result.stderr}")
    done.write_text("ok\n")
    return jars


def _java(jars: Path) -> list[str]:
    return ["java", "-Xms64m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", f"{jars}/*"]


@dataclass
class ZooKeeper:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    jars: Path

    @property
    def connect(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def ls(self, path: str) -> list[str]:
        """The children of ``path``, read by ZooKeeper's own client (``zkCli ls``)."""
        result = subprocess.run(
            [*_java(self.jars), "-Dzookeeper.jmx.log4j.disable=true", "org.apache.zookeeper.ZooKeeperMain",
             "-server", self.connect, "ls", path],
            capture_output=True, text=True, timeout=120,
        )
        if "Node does not exist" in result.stdout + result.stderr:
            raise KeyError(path)
        lines = [line for line in result.stdout.splitlines() if re.fullmatch(r"\[.*\]", line.strip())]
        if result.returncode != 0 or not lines:
            raise RuntimeError(f"zkCli ls {path} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        inner = lines[-1].strip()[1:-1]
        return sorted(name.strip() for name in inner.split(",") if name.strip())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_zookeeper(work_dir: Path, timeout: float = 90) -> ZooKeeper:
    jars = zookeeper_jars()
    port = free_port()
    work_dir.mkdir(parents=True, exist_ok=True)
    config = work_dir / "zoo.cfg"
    config.write_text(
        "\n".join(
            [
                "tickTime=500",
                f"dataDir={work_dir / 'data'}",
                f"clientPort={port}",
                "clientPortAddress=127.0.0.1",
                "admin.enableServer=false",
                "maxClientCnxns=0",
                "",
            ]
        )
    )
    log_path = work_dir / "zookeeper.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [*_java(jars), "org.apache.zookeeper.server.ZooKeeperServerMain", str(config)],
            stdout=log, stderr=subprocess.STDOUT,
        )
    server = ZooKeeper(port, process, log_path, jars)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"ZooKeeper did not start within {timeout} s:\n{server.log()[-4000:]}") from None
            time.sleep(0.1)
    return server
