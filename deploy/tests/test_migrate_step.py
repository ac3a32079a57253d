"""The clickhouse-migrate step (deploy/docker/tools/migrate.sh) against a real ClickHouse engine:
the embedded warehouse's HTTP front (ClickHouse 26.9 in-process) started with no migration
applied and a users.d file giving the compose admin user `cheetah` the SHA-256 of a password
full of URL metacharacters, then the script run as the compose service runs it, its password
read from a secret file. Every migration of clickhouse/migrations must be recorded afterwards, a
second run must apply nothing, every Kafka table must then read from the step's brokers (held
on a closed address while migrations ran: clickhouse/README.md "Migrations"), and a wrong password
must fail the step."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from compose_files import ROOT

sys.path.insert(0, str(ROOT / "clickhouse" / "warehouse" / "tests"))
pytest.importorskip("chdb", reason="chdb-core (shared venv) runs the engine")
from warehouse_process import sql, start_warehouse  # noqa: E402

SCRIPT = ROOT / "deploy" / "docker" / "tools" / "migrate.sh"
PASSWORD = "p@ss word&x=1/#?%"
BROKERS = "127.0.0.1:1"  # closed, and not the address the runner holds Kafka tables on (kafka_tables.py)


@pytest.fixture
def empty_warehouse(tmp_path):
    no_migrations = tmp_path / "none"
    no_migrations.mkdir()
    users = tmp_path / "users.d"
    users.mkdir()
    digest = hashlib.sha256(PASSWORD.encode()).hexdigest()
    (users / "admin.xml").write_text(
        "<clickhouse><profiles><cheetah_admin><max_execution_time>600</max_execution_time></cheetah_admin>"
        f"</profiles><users><cheetah><password_sha256_hex>{digest}</password_sha256_hex>"
        "<profile>cheetah_admin</profile><networks><ip>127.0.0.1</ip></networks></cheetah></users></clickhouse>")
    w = start_warehouse(tmp_path / "data", extra_args=("--migrations", str(no_migrations), "--users", str(users),
                                                        "--tables", str(ROOT / "clickhouse" / "tables")))
    yield w
    w.stop()


def run_step(url: str, secret, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ,
           "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT / "clickhouse" / "warehouse"),
           "CHEETAH_CLICKHOUSE_URL": url.rstrip("/") + "/",
           "CHEETAH_CLICKHOUSE_DATABASE": "default",
           "CHEETAH_CLICKHOUSE_PASSWORD_FILE": str(secret),
           "CHEETAH_KAFKA_BROKERS": BROKERS, **extra_env}
    return subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=240)


def test_the_step_applies_every_migration_once(empty_warehouse, tmp_path):
    secret = tmp_path / "clickhouse_admin_password"
    secret.write_text(PASSWORD + "\n")
    files = sorted(p.stem for p in (ROOT / "clickhouse" / "migrations").glob("*.sql"))
    first = run_step(empty_warehouse.url, secret)
    assert first.returncode == 0, first.stderr + first.stdout
    recorded = sql(empty_warehouse.url, "SELECT name FROM schema_migrations FINAL ORDER BY version").split()
    assert len(recorded) == len(files), (recorded, files)
    # Held while the migrations ran, then every Kafka table points at the step's brokers.
    kafka = sql(empty_warehouse.url, "SELECT name, engine_full FROM system.tables WHERE engine = 'Kafka' FORMAT TSVRaw")
    lines = kafka.splitlines()
    assert lines and all(f"kafka_broker_list = '{BROKERS}'" in line for line in lines), kafka
    second = run_step(empty_warehouse.url, secret)
    assert second.returncode == 0, second.stderr
    assert sql(empty_warehouse.url, "SELECT count() FROM schema_migrations").strip() == str(len(files))


def test_a_wrong_password_fails_the_step(empty_warehouse, tmp_path):
    secret = tmp_path / "wrong"
    secret.write_text(PASSWORD + "x\n")
    out = run_step(empty_warehouse.url, secret)
    assert out.returncode != 0 and "AUTHENTICATION_FAILED" in out.stderr, out.stderr


def test_a_missing_secret_is_a_clear_error(empty_warehouse, tmp_path):
    out = run_step(empty_warehouse.url, tmp_path / "absent")
    assert out.returncode == 1
    assert "the secret clickhouse_admin_password is missing or empty" in out.stderr


def test_the_replicated_mode_reaches_the_runner(empty_warehouse, tmp_path):
    """CHEETAH_CLICKHOUSE_ON_CLUSTER (the Helm chart's clickhouse.replicated) makes the step run
    `migrate --replicated --on-cluster`: its first statement, the ledger's, is sent ON CLUSTER with
    a Replicated* engine, which this one-server engine, with no {cluster} macro, refuses. (The
    replicated migrations on a real ZooKeeper: clickhouse/warehouse/tests/test_replicated_migrations.py.)"""
    secret = tmp_path / "clickhouse_admin_password"
    secret.write_text(PASSWORD + "\n")
    out = run_step(empty_warehouse.url, secret, CHEETAH_CLICKHOUSE_ON_CLUSTER="{cluster}")
    assert out.returncode != 0 and "No macro 'cluster'" in out.stderr, out.stderr
    assert "CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER '{cluster}'" in out.stderr, out.stderr
