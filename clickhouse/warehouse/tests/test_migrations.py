"""Migration files, templates and the runner, on the embedded engine in-process."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.errors import WarehouseError
from tests.warehouse_process import NO_BROKER

VARIABLES = {"kafka_brokers": NO_BROKER, "kafka_group_prefix": "migrations-test"}


def quiet(_: str) -> None:
    pass


# The manifest, read directly (the independent truth): table -> topic, for every stored topic.
STORED = {t["table"]: t["name"] for t in yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"] if t["table"]}


@pytest.fixture
def client(engine: EmbeddedEngine, database: str) -> EngineClient:
    return EngineClient(engine, database)


def rows(client: EngineClient, statement: str) -> list[list[str]]:
    text = client.query(statement, "TSVRaw").decode()
    return [line.split("\t") for line in text.splitlines()]


def test_files_are_ordered_and_numbered_with_room_between() -> None:
    found = migrations.discover(DEFAULT_MIGRATIONS_DIR)
    assert [m.name for m in found][:4] == ["0001_flows", "0002_rejected", "0003_cheetahs", "0004_flowsets"]


def test_split_statements_ignores_semicolons_in_strings_and_comments() -> None:
    text = """
    -- a comment; with a semicolon
    CREATE TABLE a (s String DEFAULT 'x;y') ENGINE = Memory;
    /* block; comment */
    SELECT 'it\\'s; fine', "we;ird", `col;umn`;
    -- trailing comment only
    """
    statements = migrations.split_statements(text)
    assert len(statements) == 2
    assert statements[0].endswith("ENGINE = Memory")
    assert "'it\\'s; fine'" in statements[1]


def test_templates_are_substituted_and_checked() -> None:
    migration = migrations.discover(DEFAULT_MIGRATIONS_DIR)[0]
    rendered = migrations.render(migration, migrations.resolve_variables({"kafka_brokers": "k1:9092,k2:9092"}))
    assert "kafka_broker_list = 'k1:9092,k2:9092'" in rendered
    assert "kafka_group_name = 'cheetah-warehouse.flows'" in rendered  # default prefix
    assert not migrations.TEMPLATE_VARIABLE.search(rendered)
    with pytest.raises(WarehouseError, match=r"uses \{\{kafka_brokers\}\}, which has no value; pass --kafka-brokers"):
        migrations.render(migration, migrations.resolve_variables({}))
    with pytest.raises(WarehouseError, match="kafka_brokers = \"k1:9092'; DROP\" is not valid"):
        migrations.resolve_variables({"kafka_brokers": "k1:9092'; DROP"})
    with pytest.raises(WarehouseError, match="unknown template variable"):
        migrations.resolve_variables({"kafka_topic": "x"})


def test_apply_creates_tables_once_and_is_idempotent(client: EngineClient) -> None:
    first = migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet)
    assert [m.version for m in first] == [m.version for m in migrations.discover(DEFAULT_MIGRATIONS_DIR)]
    assert migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet) == []
    recorded = rows(client, "SELECT version, name FROM schema_migrations FINAL ORDER BY version")
    assert recorded[:4] == [["1", "0001_flows"], ["2", "0002_rejected"], ["3", "0003_cheetahs"], ["4", "0004_flowsets"]]
    assert rows(client, "SELECT count() FROM schema_migrations") == [[str(len(first))]]

    tables = dict(rows(client, "SELECT name, engine FROM system.tables WHERE database = currentDatabase()"))
    for table in STORED:
        assert tables[table] in ("MergeTree", "ReplacingMergeTree"), table
        assert tables[f"{table}_queue"] == "Kafka"
        assert tables[f"{table}_mv"] == "MaterializedView"


def test_every_data_table_has_a_ttl_and_every_queue_reads_committed_protobuf(client: EngineClient, engine: EmbeddedEngine) -> None:
    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet)
    definitions = dict(rows(client, "SELECT name, engine_full FROM system.tables WHERE database = currentDatabase()"))
    for table in STORED:
        assert "TTL toDateTime(" in definitions[table], definitions[table]
    for name, definition in definitions.items():
        if "MergeTree" in definition and name != "schema_migrations":
            assert " TTL " in definition, f"{name} has no TTL"
    for table, topic in STORED.items():
        queue = definitions[f"{table}_queue"]
        assert f"kafka_topic_list = '{topic}'" in queue
        assert "kafka_format = 'ProtobufSingle'" in queue
        assert f"kafka_group_name = 'migrations-test.{table}'" in queue
    config = (engine.config.data_dir / "cheetah-warehouse.xml").read_text()
    assert "<isolation_level>read_committed</isolation_level>" in config


def test_new_files_are_applied_after_old_ones(client: EngineClient, tmp_path: Path) -> None:
    directory = tmp_path / "migrations"
    directory.mkdir()
    for path in sorted(DEFAULT_MIGRATIONS_DIR.glob("000[12]_*.sql")):
        shutil.copy(path, directory)
    assert [m.version for m in migrations.apply(client, directory, VARIABLES, log=quiet)] == [1, 2]
    (directory / "0010_rollup.sql").write_text(
        "CREATE TABLE IF NOT EXISTS bytes_per_day (day Date, bytes UInt64) ENGINE = SummingMergeTree "
        "ORDER BY day TTL day + INTERVAL 400 DAY;\n"
    )
    assert [m.name for m in migrations.apply(client, directory, VARIABLES, log=quiet)] == ["0010_rollup"]
    assert rows(client, "EXISTS TABLE bytes_per_day") == [["1"]]


def test_an_applied_file_that_changed_is_reported_not_rerun(client: EngineClient, tmp_path: Path) -> None:
    directory = tmp_path / "migrations"
    directory.mkdir()
    (directory / "0001_one.sql").write_text("CREATE TABLE IF NOT EXISTS one (a UInt8) ENGINE = Memory;")
    migrations.apply(client, directory, VARIABLES, log=quiet)
    (directory / "0001_one.sql").write_text("CREATE TABLE IF NOT EXISTS two (a UInt8) ENGINE = Memory;")
    messages: list[str] = []
    assert migrations.apply(client, directory, VARIABLES, log=messages.append) == []
    assert any("0001_one.sql changed after it was applied" in m for m in messages)
    assert rows(client, "EXISTS TABLE two") == [["0"]]


def test_badly_named_or_failing_files_are_named_in_the_error(client: EngineClient, tmp_path: Path) -> None:
    directory = tmp_path / "migrations"
    directory.mkdir()
    (directory / "1_bad.sql").write_text("SELECT 1;")
    with pytest.raises(WarehouseError, match=r"1_bad.sql is not named NNNN_name.sql"):
        migrations.apply(client, directory, VARIABLES, log=quiet)
    (directory / "1_bad.sql").unlink()
    (directory / "0001_broken.sql").write_text("CREATE TABLE broken (a UInt8) ENGINE = NoSuchEngine;")
    with pytest.raises(WarehouseError, match=r"migration 0001_broken.sql failed at .*Code: 56"):
        migrations.apply(client, directory, VARIABLES, log=quiet)
    assert rows(client, "SELECT count() FROM schema_migrations") == [["0"]]


def test_embedded_drops_kafka_tables_and_keeps_their_views(client: EngineClient) -> None:
    from cheetah_warehouse.kafka_tables import drop_kafka_tables

    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, VARIABLES, log=quiet)
    messages: list[str] = []
    dropped = drop_kafka_tables(client, log=messages.append)
    assert dropped == sorted(f"{table}_queue" for table in STORED)
    assert rows(client, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND engine = 'Kafka'") == [["0"]]
    assert rows(client, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'flows_mv'") == [["1"]]
    assert drop_kafka_tables(client, log=messages.append) == []
    assert len(messages) == 1


def test_migrate_url_holds_every_kafka_table_until_the_last_migration(tmp_path: Path) -> None:
    """A server's Kafka table consumes as soon as it points at the brokers, and later migrations
    add views on the tables it feeds (0013's rollups on flows, probe_bins, link_stats, flowsets):
    a record consumed before such a view exists never reaches it. So over HTTP (the warehouse's
    front with no migration applied, standing in for a server), no Kafka table may point at the
    brokers before the last migration is applied; after it, every one does, with the group the
    migration declared, and each table still feeds every view the migration files create on it."""
    from cheetah_warehouse.clients import HttpClient
    from cheetah_warehouse.kafka_tables import apply_held
    from tests.kafka_broker import free_port
    from tests.warehouse_process import start_warehouse

    brokers = f"127.0.0.1:{free_port()}"  # nothing listens: this test needs no broker
    no_migrations = tmp_path / "none"
    no_migrations.mkdir()
    warehouse = start_warehouse(tmp_path / "data", extra_args=("--migrations", str(no_migrations), "--tables", str(DEFAULT_TABLES_DIR)))
    try:
        client = HttpClient(warehouse.url)

        def on_brokers() -> list[str]:
            return [name for name, ddl in rows(client, "SELECT name, engine_full FROM system.tables "
                                                       "WHERE database = currentDatabase() AND engine = 'Kafka'")
                    if f"kafka_broker_list = '{brokers}'" in ddl]

        early: list[str] = []

        def after_each_migration(line: str) -> None:
            if line.startswith("applied "):
                early.extend(f"{name} after {line.split()[1]}" for name in on_brokers())

        applied = apply_held(client, DEFAULT_MIGRATIONS_DIR, {**VARIABLES, "kafka_brokers": brokers}, log=after_each_migration)
        assert len(applied) == len(migrations.discover(DEFAULT_MIGRATIONS_DIR))
        assert early == [], "Kafka tables consumed while migrations were still being applied"
        assert sorted(on_brokers()) == sorted(f"{table}_queue" for table in STORED)
        for name, ddl in rows(client, "SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND engine = 'Kafka'"):
            table = name.removesuffix("_queue")
            assert f"kafka_topic_list = '{STORED[table]}'" in ddl and f"kafka_group_name = 'migrations-test.{table}'" in ddl, ddl

        expected: dict[str, set[str]] = {}
        for migration in migrations.discover(DEFAULT_MIGRATIONS_DIR):
            for view, source in MATERIALIZED_VIEW.findall(migration.text):
                expected.setdefault(source, set()).add(view)
        assert {"link_load_1m_mv", "link_load_1h_mv", "link_load_1d_mv"} <= expected["probe_bins"]
        assert "probe_bins_mv" in expected["probe_bins_queue"]
        fed = {name: set(views.strip("[]").replace("'", "").split(",")) - {""} for name, views in rows(
            client, "SELECT name, dependencies_table FROM system.tables WHERE database = currentDatabase()")}
        assert {source: fed.get(source, set()) for source in expected} == expected
        assert apply_held(client, DEFAULT_MIGRATIONS_DIR, {**VARIABLES, "kafka_brokers": brokers}, log=quiet) == []
        assert sorted(on_brokers()) == sorted(f"{table}_queue" for table in STORED)
    finally:
        assert warehouse.stop() == 0, warehouse.stderr()


# A materialized view in the migration files, and the table it reads (its first FROM).
MATERIALIZED_VIEW = re.compile(r"CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+) TO \w+ AS\s.*?\bFROM (\w+)", re.S)
