"""serve's start/stop contract, persistence across restarts, data directory ownership, CLI errors."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, migrations
from tests.warehouse_process import Warehouse, child_env, run_cli, sql, start_warehouse

MIGRATIONS = len(migrations.discover(DEFAULT_MIGRATIONS_DIR))
# Distinct Kafka tables a server gets (migrate --url): a migration may drop and re-create one
# (0016 re-creates snmp_counters_queue).
KAFKA_TABLES = len({q for m in migrations.discover(DEFAULT_MIGRATIONS_DIR)
                    for q in __import__("re").findall(r"CREATE TABLE IF NOT EXISTS (\w+_queue)", m.text)})


def test_restart_keeps_data_and_does_not_reapply_migrations(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = start_warehouse(data_dir)
    try:
        sql(first.url, "INSERT INTO flows (src_addr, dst_addr, bytes, start_at) VALUES ('::ffff:198.18.1.1', '::ffff:198.18.2.2', 1234, now64(3))")
        migrations_before = sql(first.url, "SELECT count() FROM schema_migrations")
    finally:
        assert first.stop() == 0, first.stderr()
    assert "stopping: closing the HTTP front and the engine" in first.stderr()

    second = start_warehouse(data_dir)
    try:
        assert sql(second.url, "SELECT count(), sum(bytes), any(toString(src_addr)) FROM flows") == "1\t1234\t::ffff:198.18.1.1\n"
        assert sql(second.url, "SELECT count() FROM schema_migrations") == migrations_before
        # The warehouse consumes the topics itself: its data directory holds no Kafka engine table.
        assert sql(second.url, "SELECT count() FROM system.tables WHERE database = 'default' AND engine = 'Kafka'") == "0\n"
    finally:
        assert second.stop() == 0
    restart_log = second.stderr().split("stopping:")[1]  # the stderr file holds both runs
    assert "applied 0001" not in restart_log


def test_ready_is_the_only_stdout_line_and_sigint_stops_cleanly(tmp_path: Path) -> None:
    warehouse = start_warehouse(tmp_path / "data")  # consumed exactly the READY line
    warehouse.process.send_signal(signal.SIGINT)
    assert warehouse.process.wait(timeout=30) == 0
    assert warehouse.process.stdout is not None
    assert warehouse.process.stdout.read() == b""
    warehouse.stop()


def test_sigterm_stops_promptly_while_the_parent_still_holds_stdin(tmp_path: Path) -> None:
    # As `up` runs it: --exit-on-stdin-eof, the parent's pipe still open. The stdin watcher's
    # blocked read once held the interpreter's shutdown (a fatal error, then a hang until SIGKILL).
    warehouse = start_warehouse(tmp_path / "data", extra_args=("--exit-on-stdin-eof",), stdin=subprocess.PIPE)
    try:
        warehouse.process.send_signal(signal.SIGTERM)
        assert warehouse.process.wait(timeout=20) == 0, warehouse.stderr()
        assert "Fatal Python error" not in warehouse.stderr()
    finally:
        warehouse.stop()
        assert warehouse.process.stdin is not None
        warehouse.process.stdin.close()


def test_stdin_closed_by_the_parent_stops_it_cleanly(tmp_path: Path) -> None:
    warehouse = start_warehouse(tmp_path / "data", extra_args=("--exit-on-stdin-eof",), stdin=subprocess.PIPE)
    try:
        assert warehouse.process.stdin is not None
        warehouse.process.stdin.close()  # what the parent's death does to the pipe
        assert warehouse.process.wait(timeout=30) == 0
    finally:
        warehouse.stop()


def test_query_with_data_dir_while_served_points_at_the_url(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    warehouse = start_warehouse(data_dir)
    try:
        result = run_cli("query", "--data", str(data_dir), "SELECT 1")
        assert result.returncode == 2
        assert f"data directory {data_dir} is owned by a running warehouse; use --url {warehouse.url}" in result.stderr
        via_url = run_cli("query", "--url", warehouse.url, "--format", "CSV", "SELECT count() FROM schema_migrations")
        assert (via_url.returncode, via_url.stdout) == (0, f"{MIGRATIONS}\n")
    finally:
        assert warehouse.stop() == 0
    direct = run_cli("query", "--data", str(data_dir), "SELECT count() FROM schema_migrations")
    assert (direct.returncode, direct.stdout) == (0, f"{MIGRATIONS}\n"), direct.stderr


def test_migrate_on_a_data_dir_is_idempotent(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = run_cli("migrate", "--data", str(data_dir), "--kafka-brokers", "127.0.0.1:9")
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("applied ") == MIGRATIONS
    second = run_cli("migrate", "--data", str(data_dir), "--kafka-brokers", "127.0.0.1:9")
    assert (second.returncode, second.stderr.count("applied ")) == (0, 0), second.stderr


def test_migrate_over_http_applies_once(served: Warehouse) -> None:
    sql(served.url, "CREATE DATABASE IF NOT EXISTS over_http")
    url = served.url + "/?database=over_http"
    first = run_cli("migrate", "--url", url, "--kafka-brokers", "127.0.0.1:9", "--kafka-group-prefix", "over-http")
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("applied 00") == MIGRATIONS and f"to {url}" in first.stderr
    assert sql(served.url, "SELECT count() FROM over_http.schema_migrations FINAL") == f"{MIGRATIONS}\n"
    assert sql(served.url, "SELECT count() FROM system.tables WHERE database = 'over_http' AND engine = 'Kafka'") == f"{KAFKA_TABLES}\n"
    again = run_cli("migrate", "--url", url, "--kafka-brokers", "127.0.0.1:9", "--kafka-group-prefix", "over-http")
    assert (again.returncode, again.stderr) == (0, "")


@pytest.mark.parametrize("command", [[], ["serve"], ["query"], ["migrate"], ["wait"], ["report"]])
def test_help_everywhere(command: list[str]) -> None:
    result = run_cli(*command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: python -m cheetah_warehouse")


def test_wait_reports_progress_and_succeeds(served: Warehouse) -> None:
    result = run_cli("wait", "--url", served.url, "--query", "SELECT 3", "--expect-at-least", "2", "--timeout", "5")
    assert result.returncode == 0
    assert "wait: 3/2 after" in result.stderr


def test_wait_times_out_with_a_clear_error(served: Warehouse) -> None:
    result = run_cli(
        "wait", "--url", served.url, "--query", "SELECT count() FROM flowsets", "--expect-at-least", "1",
        "--timeout", "0.3", "--interval", "0.1",
    )
    assert result.returncode == 1
    assert "timed out after 0.3 s: `SELECT count() FROM flowsets`" in result.stderr
    assert "expected at least 1" in result.stderr


def test_unreachable_url_says_what_to_do() -> None:
    result = run_cli("query", "--url", "http://127.0.0.1:9", "SELECT 1")
    assert result.returncode == 2
    assert "cannot reach the warehouse at http://127.0.0.1:9" in result.stderr
    assert "is `python -m cheetah_warehouse serve`" in result.stderr


def test_query_errors_show_clickhouse_text(served: Warehouse) -> None:
    result = run_cli("query", "--url", served.url, "SELECT * FROM nowhere")
    assert result.returncode == 2
    assert result.stderr.startswith("error: Code: 60. DB::Exception:")


def test_serve_refuses_a_busy_port(served: Warehouse, tmp_path: Path) -> None:
    port = served.url.rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "cheetah_warehouse", "serve", "--data", str(tmp_path / "d"), "--http-port", port,
         "--kafka-brokers", "127.0.0.1:9"],
        capture_output=True, text=True, env=child_env(), timeout=60,
    )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert result.stdout == ""


def test_serve_requires_brokers() -> None:
    result = run_cli("serve", "--data", "/nonexistent", "--http-port", "0")
    assert result.returncode == 2
    assert "--kafka-brokers" in result.stderr
