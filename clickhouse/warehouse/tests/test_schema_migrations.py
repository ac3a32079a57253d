"""Migrations against the declarations, on the in-process engine (real chdb, no broker):

(a) all migrations give exactly the declared schema, as ClickHouse reports both;
(b) every historical schema state (after migrations 1..k) upgrades to today's, identical to a
    fresh database, with its rows kept;
(c) a second migrate changes nothing;
plus `schema check` and `schema new-migration` on copies where declarations and migrations
disagree on purpose.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.declarations import create_statements, load_declarations, render_sql
from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.errors import WarehouseError
from cheetah_warehouse.schema_migration import Scratch, differences, write_migration
from tests.warehouse_process import NO_BROKER, run_cli

VARIABLES = {"kafka_brokers": NO_BROKER, "kafka_group_prefix": "schema-test"}
ALL = migrations.discover(DEFAULT_MIGRATIONS_DIR)
DECLARED = load_declarations(DEFAULT_TABLES_DIR, DEFAULT_SCHEMAS_DIR)


def quiet(_: str) -> None:
    pass


def fresh(engine: EmbeddedEngine, name: str) -> EngineClient:
    engine.query(f"DROP DATABASE IF EXISTS {name} SYNC")
    engine.query(f"CREATE DATABASE {name}")
    return EngineClient(engine, name)


def json_rows(client: EngineClient, sql: str) -> list[list[Any]]:
    return [json.loads(line) for line in client.query(sql, "JSONCompactEachRow").decode().splitlines()]


def snapshot(client: EngineClient) -> dict[str, dict[str, Any]]:
    """Everything ClickHouse says about every object of the database, database name removed."""
    [[database]] = json_rows(client, "SELECT currentDatabase()")
    local = lambda text: str(text).replace(f"{database}.", "")  # noqa: E731
    objects: dict[str, dict[str, Any]] = {}
    for name, *fields in json_rows(
        client,
        "SELECT name, engine, engine_full, partition_key, sorting_key, primary_key, as_select, create_table_query, "
        "arraySort(dependencies_table) FROM system.tables WHERE database = currentDatabase()",
    ):
        keys = ("engine", "engine_full", "partition_key", "sorting_key", "primary_key", "as_select", "create_table_query", "dependents")
        objects[name] = {k: (local(v) if isinstance(v, str) else v) for k, v in zip(keys, fields)}
        objects[name]["columns"] = []
    for table, *column in json_rows(
        client,
        "SELECT table, name, type, default_kind, default_expression, compression_codec, is_in_sorting_key "
        "FROM system.columns WHERE database = currentDatabase() ORDER BY table, position",
    ):
        objects[table]["columns"].append(column)
    return objects


def declared_objects(snap: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    names = {n for d in DECLARED for n in (d.table, d.queue, d.view, d.undecodable_view)}
    result = {n: dict(o) for n, o in snap.items() if n in names}
    for o in result.values():
        o["dependents"] = [v for v in o["dependents"] if v in names]  # rollups on a table are hand-written
        if o["engine"] == "Kafka":
            # ProtobufSingle matches columns to fields by name: a queue's column order means nothing
            # (0014 lists redirect_decisions_queue's fields in message order, not the table's).
            o["columns"] = sorted(o["columns"])
            o["create_table_query"] = None
    return result


@pytest.fixture(scope="module")
def today(engine: EmbeddedEngine) -> Iterator[dict[str, dict[str, Any]]]:
    """A fresh database with every migration: today's schema."""
    client = fresh(engine, "schema_today")
    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet)
    yield snapshot(client)
    engine.query("DROP DATABASE IF EXISTS schema_today SYNC")


# ---------------------------------------------------------------- (a)


def test_all_migrations_give_exactly_the_declared_schema(engine: EmbeddedEngine, today: dict[str, dict[str, Any]]) -> None:
    client = fresh(engine, "schema_declared")
    text = migrations.substitute(render_sql(create_statements(DECLARED)), migrations.resolve_variables(VARIABLES), "declarations")
    for statement in migrations.split_statements(text):
        client.query(statement)
    declared = declared_objects(snapshot(client))
    migrated = declared_objects(today)
    assert sorted(declared) == sorted(migrated)
    assert len(declared) == 4 * len(DECLARED)
    for name in sorted(declared):
        for key in sorted(declared[name]):
            assert migrated[name][key] == declared[name][key], f"{name}: {key} of the migrations differs from the declaration"
    # The comparison sees what matters: spot values read back, not written here.
    assert migrated["flowsets"]["sorting_key"] == "flowset_id"
    assert "TTL toDateTime(closed_at) + toIntervalDay(400)" in migrated["flowsets"]["engine_full"]
    assert ["start_at", "DateTime64(3, 'UTC')", "", "", "", 0] in migrated["flowsets"]["columns"]
    assert "fromUnixTimestamp64Milli(toInt64(start_ms), 'UTC') AS start_at" in migrated["flowsets_mv"]["as_select"]
    engine.query("DROP DATABASE IF EXISTS schema_declared SYNC")


def test_schema_check_agrees_on_the_repository(engine: EmbeddedEngine) -> None:
    scratch = Scratch(engine, "schema_check_repo")
    try:
        assert differences(scratch, DECLARED, DEFAULT_MIGRATIONS_DIR) == []
    finally:
        scratch.close()


# ---------------------------------------------------------------- (b) and (c)

TIME_TYPES = re.compile(r"^(LowCardinality\()?(DateTime|Date)")


def fill(client: EngineClient) -> None:
    """Random rows in every declared table present, their time columns now (inside every TTL)."""
    present = {r[0] for r in json_rows(client, "SELECT name FROM system.tables WHERE database = currentDatabase()")}
    for d in DECLARED:
        if d.table not in present:
            continue
        columns = json_rows(client, f"SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '{d.table}' ORDER BY position")
        structure = ", ".join(f"{n} {t}" for n, t in columns).replace("'", "\\'")
        now = ", ".join(f"now64(3) AS {n}" for n, t in columns if TIME_TYPES.match(t))
        client.query(
            f"INSERT INTO {d.table} SELECT * REPLACE ({now}) FROM generateRandom('{structure}', 7, 8, 2) LIMIT 5"
        )


def counts(client: EngineClient) -> dict[str, int]:
    """Rows per declared table. fill() writes one part per table, replaced rows already merged
    within it (optimize_on_insert), so no later merge can change these counts."""
    result = {}
    present = {r[0] for r in json_rows(client, "SELECT name FROM system.tables WHERE database = currentDatabase()")}
    for d in DECLARED:
        if d.table in present:
            [[n]] = json_rows(client, f"SELECT count() FROM {d.table}")
            result[d.table] = int(n)
    return result


def test_every_historical_state_upgrades_to_todays_schema_and_keeps_its_rows(
    engine: EmbeddedEngine, today: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    assert len(ALL) >= 17
    for k in range(len(ALL) + 1):
        old = tmp_path / f"first_{k}"
        old.mkdir()
        for migration in ALL[:k]:
            shutil.copy(migration.path, old)
        client = fresh(engine, f"schema_history_{k}")
        assert [m.version for m in migrations.apply(client, old, VARIABLES, log=quiet)] == [m.version for m in ALL[:k]]
        fill(client)
        before = counts(client)
        upgraded = migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet)
        assert [m.version for m in upgraded] == [m.version for m in ALL[k:]], f"from state {k}"
        assert snapshot(client) == today, f"upgrading from the state after migration {k} differs from a fresh database"
        after = counts(client)
        assert {t: after[t] for t in before} == before, f"upgrading from state {k} lost or added rows"
        if k:
            assert sum(before.values()) > 0
    for k in range(len(ALL) + 1):
        engine.query(f"DROP DATABASE IF EXISTS schema_history_{k}")


def test_a_second_migrate_changes_nothing(engine: EmbeddedEngine, today: dict[str, dict[str, Any]]) -> None:
    client = fresh(engine, "schema_twice")
    assert len(migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet)) == len(ALL)
    fill(client)
    before, recorded = counts(client), json_rows(client, "SELECT version, checksum, applied_at FROM schema_migrations ORDER BY version")
    assert migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet) == []
    assert snapshot(client) == today
    assert counts(client) == before and len(before) == len(DECLARED) and min(before.values()) > 0
    assert json_rows(client, "SELECT version, checksum, applied_at FROM schema_migrations ORDER BY version") == recorded
    engine.query("DROP DATABASE IF EXISTS schema_twice SYNC")


# ---------------------------------------------------------------- check and new-migration on copies


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A private copy of what the generator reads and writes: tables, migrations, schemas."""
    shutil.copytree(DEFAULT_TABLES_DIR, tmp_path / "tables")
    shutil.copytree(DEFAULT_MIGRATIONS_DIR, tmp_path / "migrations")
    shutil.copytree(DEFAULT_SCHEMAS_DIR, tmp_path / "schemas")
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


@pytest.fixture
def scratch(engine: EmbeddedEngine) -> Iterator[Scratch]:
    made = Scratch(engine, "schema_copy")
    try:
        yield made
    finally:
        made.close()


def check(scratch: Scratch, repo: Path) -> list[str]:
    return differences(scratch, load_declarations(repo / "tables", repo / "schemas"), repo / "migrations")


def new_migration(scratch: Scratch, repo: Path, name: str, drop_columns: bool = False) -> Path | None:
    declarations = load_declarations(repo / "tables", repo / "schemas")
    return write_migration(scratch, declarations, repo / "migrations", name, f"schema new-migration {name}", drop_columns)


def test_schema_check_names_a_changed_declared_type(scratch: Scratch, repo: Path) -> None:
    edit(repo / "tables" / "flowsets.yaml", "  duration_s: Float64\n", "  duration_s: {type: Float32, field: duration_s Float64}\n")
    # The queue reads a double as Float64; the table may store it narrower (the view converts).
    found = check(scratch, repo)
    assert found == ["flowsets: column duration_s is Float64 in the migrations but declared Float32"]


def test_schema_check_names_a_column_a_migration_lost(scratch: Scratch, repo: Path) -> None:
    path = repo / "migrations" / "0004_flowsets.sql"
    text = path.read_text()
    path.write_text(text.replace("    dst_as          UInt32,\n", "").replace("    dst_as,\n", ""))
    found = check(scratch, repo)
    assert "flowsets: column dst_as UInt32 is declared (after src_as) but the migrations do not create it" in found
    assert "flowsets_queue: column dst_as UInt32 is declared but the migrations do not create it" in found
    assert "flowsets_mv: declared select items ['dst_as'] are not in the migrations' view" in found


def test_schema_check_names_a_changed_ttl_topic_and_view(scratch: Scratch, repo: Path) -> None:
    edit(repo / "migrations" / "0003_cheetahs.sql", "INTERVAL 400 DAY", "INTERVAL 300 DAY")
    edit(repo / "migrations" / "0003_cheetahs.sql", "kafka_topic_list = 'cheetahs.v1'", "kafka_topic_list = 'cheetahs.v2'")
    edit(repo / "migrations" / "0003_cheetahs.sql", "lower(replaceOne(type, 'CHEETAH_EVENT_TYPE_', '')) AS type", "type")
    found = check(scratch, repo)
    assert "cheetahs: TTL is `toDateTime(event_at) + toIntervalDay(300)` in the migrations but declared `toDateTime(event_at) + toIntervalDay(400)`" in found
    assert any(m.startswith("cheetahs_queue: settings are `Kafka SETTINGS") and "'cheetahs.v2'" in m for m in found), found
    assert any(m.startswith("cheetahs_mv: declared select items [\"lower(replaceOne(type, 'CHEETAH_EVENT_TYPE_', '')) AS type\"]") for m in found), found


def test_schema_check_names_an_undeclared_kafka_table(scratch: Scratch, repo: Path) -> None:
    (repo / "migrations" / "0090_extra.sql").write_text(
        "CREATE TABLE IF NOT EXISTS extra_queue (alert_id String) ENGINE = Kafka SETTINGS "
        "kafka_broker_list = '{{kafka_brokers}}', kafka_topic_list = 'alerts.v1', kafka_group_name = 'extra', "
        "kafka_format = 'ProtobufSingle', kafka_schema = 'cheetah/v1/throughput.proto:Alert';\n"
    )
    found = check(scratch, repo)
    assert any(m.startswith("extra_queue: Kafka table created by the migrations but no declaration owns it") for m in found), found


def test_new_migration_adds_a_computed_column_after_the_right_one(scratch: Scratch, repo: Path, engine: EmbeddedEngine) -> None:
    edit(repo / "tables" / "flowsets.yaml", "  duration_s: Float64\n",
         "  duration_s: Float64\n  duration_ms:\n    type: UInt64\n    expr: toUInt64(duration_s * 1000)\n")
    path = new_migration(scratch, repo, "flowsets_duration_ms")
    assert path is not None and path.name == f"{ALL[-1].version + 1:04d}_flowsets_duration_ms.sql"
    text = path.read_text()
    assert "ALTER TABLE flowsets ADD COLUMN IF NOT EXISTS duration_ms UInt64 AFTER duration_s;" in text
    assert "toUInt64(duration_s * 1000) AS duration_ms" in text
    assert "DROP VIEW IF EXISTS flowsets_mv;" in text
    assert "DROP TABLE IF EXISTS flowsets_queue" not in text  # the queue reads the same fields: kept
    assert check(scratch, repo) == []
    assert new_migration(scratch, repo, "again") is None  # nothing left to do: nothing written
    assert sorted(p.name for p in (repo / "migrations").glob("*.sql"))[-1] == path.name


def test_new_migration_changes_types_order_ttl_and_drops_only_when_asked(scratch: Scratch, repo: Path) -> None:
    flowsets = repo / "tables" / "flowsets.yaml"
    edit(flowsets, "ttl: toDateTime(closed_at) + INTERVAL 400 DAY", "ttl: toDateTime(closed_at) + INTERVAL 800 DAY")
    edit(flowsets, "  dst_as: UInt32\n", "")
    edit(flowsets, "  member_flow_ids: Array(String)\n", "")
    edit(flowsets, "  src_as: UInt32\n", "  member_flow_ids: Array(String)\n  src_as: {type: UInt64, field: src_as UInt32}\n")
    with pytest.raises(WarehouseError, match=r"flowsets: column\(s\) dst_as are created by the migrations but no longer declared"):
        new_migration(scratch, repo, "flowsets_reshape")
    assert len(migrations.discover(repo / "migrations")) == len(ALL)  # nothing written
    path = new_migration(scratch, repo, "flowsets_reshape", drop_columns=True)
    assert path is not None
    text = path.read_text()
    for statement in (
        "ALTER TABLE flowsets DROP COLUMN IF EXISTS dst_as;",
        "ALTER TABLE flowsets MODIFY COLUMN member_flow_ids Array(String) AFTER dst_addr;",
        "ALTER TABLE flowsets MODIFY COLUMN src_as UInt64;",
        "ALTER TABLE flowsets MODIFY TTL toDateTime(closed_at) + INTERVAL 800 DAY;",
    ):
        assert statement in text
    assert check(scratch, repo) == []


def test_new_migration_keeps_nothing_clickhouse_refuses(scratch: Scratch, repo: Path) -> None:
    # duration_s feeds the hand-written rollup flowsets_site_month_mv: ClickHouse refuses the DROP,
    # and the generator keeps the file aside instead of leaving a migration that cannot apply.
    edit(repo / "tables" / "flowsets.yaml", "  duration_s: Float64\n", "")
    rejected = rf"{ALL[-1].version + 1:04d}_flowsets_no_duration\.sql\.rejected"  # the next number
    with pytest.raises(WarehouseError, match=rf"does not reach the declared schema .*{rejected}.*referenced by materialized view"):
        new_migration(scratch, repo, "flowsets_no_duration", drop_columns=True)
    assert len(migrations.discover(repo / "migrations")) == len(ALL)


def test_new_migration_refuses_a_new_sorting_key(scratch: Scratch, repo: Path) -> None:
    edit(repo / "tables" / "flowsets.yaml", "order_by: flowset_id", "order_by: (src_addr, flowset_id)")
    with pytest.raises(WarehouseError, match=r"flowsets: sorting key is `flowset_id` in the migrations but declared `src_addr, flowset_id`.*write that migration by hand"):
        new_migration(scratch, repo, "flowsets_key")
    assert len(migrations.discover(repo / "migrations")) == len(ALL)


def test_new_migration_creates_a_table_the_migrations_lack(scratch: Scratch, repo: Path) -> None:
    (repo / "migrations" / "0011_throughput.sql").write_text("-- withdrawn in this copy\nSELECT 1;\n")
    path = new_migration(scratch, repo, "throughput_tables")
    assert path is not None
    text = path.read_text()
    assert "CREATE TABLE IF NOT EXISTS alerts\n" in text and "CREATE TABLE IF NOT EXISTS throughput_queue\n" in text
    assert "kafka_topic_list = 'alerts.v1'" in text and "kafka_schema = 'cheetah/v1/throughput.proto:Alert'" in text
    assert "DROP" not in text
    assert check(scratch, repo) == []


def test_cli_schema_check_exits_1_naming_the_difference(repo: Path) -> None:
    options = ["--tables", str(repo / "tables"), "--schemas", str(repo / "schemas"), "--migrations", str(repo / "migrations")]
    agreed = run_cli("schema", "check", *options)
    assert agreed.returncode == 0, agreed.stderr
    assert "the migrations give the declared schema of 19 tables" in agreed.stderr
    edit(repo / "tables" / "probe_bins.yaml", "  packets: UInt64\n", "  packets: UInt64\n  bin_count:\n    type: UInt32\n    expr: 1\n")
    differs = run_cli("schema", "check", *options)
    assert differs.returncode == 1, differs.stderr
    assert "probe_bins: column bin_count UInt32 is declared (after packets) but the migrations do not create it" in differs.stderr
    assert "schema new-migration NAME" in differs.stderr
    written = run_cli("schema", "new-migration", "probe_bins_count", *options)
    assert written.returncode == 0, written.stderr
    assert written.stdout.strip() == str(repo / "migrations" / f"{ALL[-1].version + 1:04d}_probe_bins_count.sql")
    assert run_cli("schema", "check", *options).returncode == 0
    rendered = run_cli("schema", "render", "probe_bins", "--tables", str(repo / "tables"), "--schemas", str(repo / "schemas"))
    assert rendered.returncode == 0 and rendered.stdout.count("CREATE ") == 4 and "1 AS bin_count" in rendered.stdout
