"""The migrations in replicated mode on real parts: a real Apache ZooKeeper (tests/zookeeper_server.py)
and two chdb replicas (tests/replica_process.py, a process each, with <zookeeper> and <macros>),
each migrated by the warehouse's runner as ``migrate --url --replicated`` does (Kafka tables held,
then released). Expectations come from the declarations' YAML and the migration files read here,
and from a second database of the same engine migrated without replication.

What chdb cannot do here, and this test therefore does not show: a replica that accepts writes
(chdb runs no interserver server, so every Replicated* table is read-only: its writes are refused
with TABLE_IS_READ_ONLY and listed) and ON CLUSTER (chdb runs no distributed DDL: "Replicated DDL
queries are disabled"). docs/DEPLOY.md, "Replicated tables".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.warehouse_process import child_env
from tests.zookeeper_server import ZooKeeper, start_zookeeper

WAREHOUSE_DIR = Path(__file__).resolve().parents[1]
CLICKHOUSE_DIR = WAREHOUSE_DIR.parent
MIGRATIONS = sorted((CLICKHOUSE_DIR / "migrations").glob("[0-9][0-9][0-9][0-9]_*.sql"))
ZK_PATH = "/clickhouse/tables/0/repl/{table}"  # the rule's path with the test's macro shard=0
# A table a migration created under another name and renamed (an engine change, 0019) keeps the
# path of the name it was created under: ClickHouse expands {table} when it creates the table.
CREATED_AS = {
    m.group(2): m.group(1)
    for f in MIGRATIONS
    for m in re.finditer(r"^RENAME TABLE (\w+) TO (\w+);", f.read_text(), re.M)
}


def run_replica(tmp: Path, zk: ZooKeeper, replica: str, *targets: str) -> dict:
    out = tmp / f"{replica}.json"
    result = subprocess.run(
        [sys.executable, "-m", "tests.replica_process", str(tmp / replica), str(zk.port), replica, str(out), *targets],
        cwd=WAREHOUSE_DIR, env=child_env(), capture_output=True, text=True, timeout=400,
    )
    assert result.returncode == 0 and out.exists(), f"replica {replica} failed:\n{result.stdout}\n{result.stderr[-6000:]}"
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("replicated")
    zk = start_zookeeper(tmp / "zookeeper")
    try:
        first = run_replica(tmp, zk, "r1", "plain:plain", "repl:replicated")
        second = run_replica(tmp, zk, "r2", "repl:replicated")
        yield zk, first, second
    finally:
        zk.stop()


def declared_engines() -> dict[str, str]:
    """table -> engine, straight from clickhouse/tables/*.yaml."""
    return {
        path.stem: yaml.safe_load(path.read_text())["engine"].strip()
        for path in sorted((CLICKHOUSE_DIR / "tables").glob("*.yaml"))
    }


def by_name(rows: list[dict]) -> dict[str, dict]:
    return {row["name"]: row for row in rows}


def test_every_declared_table_is_its_replicated_engine_with_the_path_and_replica(cluster):
    _, first, _ = cluster
    tables = by_name(first["tables"]["repl"])
    replicas = {row["table"]: row for row in first["replicas"]["repl"]}
    declared = declared_engines()
    assert len(declared) == 19
    for table, engine in declared.items():
        kind, args = re.fullmatch(r"(\w+)\s*(?:\((.*)\))?", engine, re.S).groups()
        expected_args = "'/clickhouse/tables/{shard}/repl/" + CREATED_AS.get(table, table) + "', '{replica}'" + (f", {args}" if args else "")
        assert tables[table]["engine"] == f"Replicated{kind}", table
        assert tables[table]["engine_full"].startswith(f"Replicated{kind}({expected_args})"), tables[table]["engine_full"]
        path = ZK_PATH.format(table=CREATED_AS.get(table, table))
        assert replicas[table]["zookeeper_path"] == path
        assert replicas[table]["replica_name"] == "r1"
        assert replicas[table]["replica_path"] == f"{path}/replicas/r1"


def test_every_merge_tree_table_of_the_migrations_is_replicated_and_nothing_else_changes(cluster):
    _, first, _ = cluster
    plain, repl = by_name(first["tables"]["plain"]), by_name(first["tables"]["repl"])
    # All but the view 0016 re-creates, which needs the columns of its refused ALTERs (below).
    assert set(plain) - set(repl) == {"snmp_counters_mv"} and set(repl) <= set(plain)
    merge_trees = {name for name, row in plain.items() if row["engine"].endswith("MergeTree")}
    # Hand-counted from clickhouse/migrations: 19 declared tables, site_prefixes, redirect_state,
    # prefix_filter_effectiveness, 10 rollups, and the ledger schema_migrations.
    assert len(merge_trees) == 33, sorted(merge_trees)
    for name, row in plain.items():
        if name in merge_trees:
            assert not row["engine"].startswith("Replicated")
            assert repl[name]["engine"] == "Replicated" + row["engine"], name
        elif name in repl:  # Kafka tables, views, materialized views, the dictionary
            assert repl[name]["engine"] == row["engine"], name
    assert {r["table"] for r in first["replicas"]["repl"]} == merge_trees
    assert first["replicas"]["plain"] == []


def test_the_kafka_tables_are_released_with_one_consumer_group_per_table_on_every_replica(cluster):
    _, first, second = cluster
    groups = {}
    for report, replica in ((first, "r1"), (second, "r2")):
        for row in report["tables"]["repl"]:
            if row["engine"] != "Kafka":
                continue
            ddl = row["create_table_query"]
            assert "kafka_broker_list = '127.0.0.1:1'" in ddl, ddl  # released, no longer held
            group = re.search(r"kafka_group_name = '([^']+)'", ddl).group(1)
            groups.setdefault(row["name"], set()).add(group)
    assert groups and all(g == {f"cheetah-warehouse.{name.removesuffix('_queue')}"} for name, g in groups.items()), groups


def test_the_second_replica_joins_the_same_zookeeper_paths(cluster):
    zk, first, second = cluster
    tables = {r["table"] for r in first["replicas"]["repl"]}
    assert {r["table"] for r in second["replicas"]["repl"]} == tables
    for row in second["replicas"]["repl"]:
        path = ZK_PATH.format(table=CREATED_AS.get(row["table"], row["table"]))
        assert (row["zookeeper_path"], row["replica_name"], row["total_replicas"]) == (path, "r2", 2)
    # ZooKeeper's own view, through its own client, for a declared table and the ledger.
    for table in ("cheetahs", "flows", "schema_migrations"):
        assert zk.ls(ZK_PATH.format(table=table) + "/replicas") == ["r1", "r2"]
    assert zk.ls("/clickhouse/tables/0/repl") == sorted(CREATED_AS.get(t, t) for t in tables)


def test_only_writes_are_refused_by_chdb_and_exactly_these(cluster):
    _, first, second = cluster
    for report in (first, second):
        refused = report["refused"]["repl"]
        ledger = [s for s in refused if s.startswith("INSERT INTO schema_migrations")]
        assert len(ledger) == len(MIGRATIONS) == 20  # one ledger row per migration
        assert [s for s in refused if s not in ledger] == [
            "ALTER TABLE snmp_counters ADD COLUMN IF NOT EXISTS counters_reset Bool AFTER if_high_speed_mbps",
        ]  # 0019's INSERT ... SELECT moves no rows here (the table is new and empty): not a write
        # Failed only because that ALTER did not add counters_reset: the next ALTER (AFTER it) and
        # the view selecting it.
        assert [s[:60] for s in report["cascaded"]["repl"]] == [
            "ALTER TABLE snmp_counters ADD COLUMN IF NOT EXISTS sys_uptim",
            "CREATE MATERIALIZED VIEW IF NOT EXISTS snmp_counters_mv TO s",
        ]
    assert first["refused"]["plain"] == [] and first["cascaded"]["plain"] == []
