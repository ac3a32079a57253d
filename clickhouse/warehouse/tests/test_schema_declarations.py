"""The table declarations (clickhouse/tables/*.yaml) against the topic manifest, the .proto
files and the migrations: one list per table, and nothing the manifest does not know."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.declarations import load_declarations
from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.errors import WarehouseError
from cheetah_warehouse.proto_fields import message_fields
from tests.warehouse_process import NO_BROKER

# Read here with yaml directly, not through cheetah_warehouse.topics: the manifest is the
# independent truth these tests hold the declarations and the migrations to.
MANIFEST = yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"]
STORED = {t["table"]: t for t in MANIFEST if t["table"] is not None}


def rows(client: EngineClient, statement: str) -> list[list[str]]:
    return [line.split("\t") for line in client.query(statement, "TSVRaw").decode().splitlines()]


def test_every_stored_topic_has_a_declaration_and_nothing_else_does() -> None:
    files = sorted(p.stem for p in DEFAULT_TABLES_DIR.glob("*.yaml"))
    assert files == sorted(STORED)
    declared = load_declarations(DEFAULT_TABLES_DIR, DEFAULT_SCHEMAS_DIR)
    assert [(d.table, d.topic.name, d.topic.message) for d in declared] == [
        (t["table"], t["name"], t["message"]) for t in MANIFEST if t["table"] is not None
    ]


def test_every_stored_topic_is_read_by_exactly_one_kafka_table_with_its_message(engine: EmbeddedEngine, database: str) -> None:
    client = EngineClient(engine, database)
    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": NO_BROKER}, log=lambda _: None)
    readers: dict[str, list[tuple[str, str]]] = {}
    for name, engine_full in rows(client, "SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND engine = 'Kafka'"):
        topic = re.search(r"kafka_topic_list = '([^']*)'", engine_full)
        schema = re.search(r"kafka_schema = '([^']*)'", engine_full)
        assert topic and schema, engine_full
        readers.setdefault(topic.group(1), []).append((name, schema.group(1)))
    expected = {t["name"]: [(f"{table}_queue", t["message"])] for table, t in STORED.items()}
    assert readers == expected


def test_no_migration_names_a_topic_the_manifest_does_not_list() -> None:
    known = {t["name"] for t in MANIFEST}
    for migration in migrations.discover(DEFAULT_MIGRATIONS_DIR):
        # Topic names are lower-case dotted names ending in a major version: flows.v1, probe.bins.v1.
        # In the SQL, not its comments (which also speak of the protobuf package cheetah.v1).
        code = re.sub(r"--[^\n]*|/\*.*?\*/", "", migration.text, flags=re.S)
        named = set(re.findall(r"\b([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*\.v[0-9]+)\b", code))
        assert named <= known, f"{migration.path.name} names {sorted(named - known)}, not in schemas/topics.yaml"
        if "kafka_topic_list" in migration.text:
            assert named, f"{migration.path.name} reads a topic, but the pattern finds none"


def test_the_topic_pattern_finds_every_manifest_name() -> None:
    # Guards the test above: a pattern that matched nothing would pass it vacuously.
    text = " ".join(f"'{t['name']}'" for t in MANIFEST)
    assert set(re.findall(r"\b([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*\.v[0-9]+)\b", text)) == {t["name"] for t in MANIFEST}


def _protoc_fields() -> dict[str, dict[str, tuple[str, bool]]]:
    """message -> field -> (type, repeated), from protoc's own descriptors (an independent parser)."""
    from google.protobuf import descriptor

    from tests.cheetah_messages import load_messages

    names = {v: k for k, v in vars(descriptor.FieldDescriptor).items() if k.startswith("TYPE_")}
    found: dict[str, dict[str, tuple[str, bool]]] = {}
    for name, cls in load_messages().items():
        fields = {}
        for f in cls.DESCRIPTOR.fields:
            kind = f.enum_type.name if f.enum_type is not None else names[f.type].removeprefix("TYPE_").lower()
            fields[f.name] = (kind, f.is_repeated if hasattr(f, "is_repeated") else f.label == f.LABEL_REPEATED)
        found[name] = fields
    return found


def test_the_proto_reader_agrees_with_protoc() -> None:
    expected = _protoc_fields()
    for t in MANIFEST:
        if not t["message"].startswith("cheetah/"):
            continue
        read = message_fields(DEFAULT_SCHEMAS_DIR, t["message"])
        message = t["message"].split(":")[1]
        assert {n: (f.proto_type, f.repeated) for n, f in read.items()} == expected[message], t["message"]
    assert message_fields(DEFAULT_SCHEMAS_DIR, "cheetah/v1/cheetahs.proto:CheetahEvent")["type"].is_enum


def test_every_queue_column_is_a_field_of_its_message_read_as_its_proto_type() -> None:
    # By hand, README "How protobuf fields become columns": widths as in the .proto, bytes as
    # String or IPv6, enums as names, repeated as Array.
    readable = {"string": {"String"}, "bytes": {"String", "IPv6"}, "bool": {"Bool"}, "double": {"Float64"},
                "uint64": {"UInt64"}, "uint32": {"UInt32"}, "int32": {"Int32"}, "int64": {"Int64"}}
    protoc = _protoc_fields()
    for d in load_declarations(DEFAULT_TABLES_DIR, DEFAULT_SCHEMAS_DIR):
        fields = protoc[d.topic.message_name]
        for f in d.fields():
            assert f.name in fields, f"{d.table}: {f.name} is not a field of {d.topic.message}"
            kind, repeated = fields[f.name]
            types = readable.get(kind, {"String"})  # anything else is an enum: read by name
            assert f.type in ({f"Array({t})" for t in types} if repeated else types), f"{d.table}.{f.name}: {f.type} for {kind}"


@pytest.fixture
def tables_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "tables"
    shutil.copytree(DEFAULT_TABLES_DIR, copy)
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    "file, old, new, message",
    [
        ("flowsets.yaml", "  n_flows: UInt32\n", "  n_flows: UInt32\n  hops: UInt32\n",
         r"field hops is not a field of cheetah/v1/flowsets.proto:Flowset \(topic flowsets.v1\)"),
        ("flowsets.yaml", "  n_flows: UInt32\n", "  n_flows: UInt64\n",
         r"field n_flows is uint32 in cheetah/v1/flowsets.proto:Flowset; the Kafka table reads it as UInt32, not UInt64"),
        ("flowsets.yaml", "  src_as: UInt32\n", "  src_as: UInt32\n  src_as: UInt32\n", r"'src_as' is given twice"),
        ("flowsets.yaml", "ttl: toDateTime(closed_at) + INTERVAL 400 DAY\n", "", r"flowsets.yaml: missing ttl"),
        ("flowsets.yaml", "    field: start_ms UInt64\n", "    field: start_ms\n", r"`field: start_ms` must be `NAME TYPE`"),
        ("flowsets.yaml", "  bytes: UInt64", "  size: {type: UInt64, field: bytes UInt64}\n  bytes: UInt64",
         r"field bytes is read twice"),
        ("flowsets.yaml", "  single: Bool", "  single: {type: Bool, expr: n_flows = 1, colour: red}", r"unknown key\(s\) colour"),
    ],
)
def test_a_bad_declaration_is_refused_with_its_file_and_reason(tables_copy: Path, file: str, old: str, new: str, message: str) -> None:
    _edit(tables_copy / file, old, new)
    with pytest.raises(WarehouseError, match=message):
        load_declarations(tables_copy, DEFAULT_SCHEMAS_DIR)


def test_a_declaration_without_topic_or_a_topic_without_declaration_is_refused(tables_copy: Path) -> None:
    shutil.copy(tables_copy / "alerts.yaml", tables_copy / "alarms.yaml")
    with pytest.raises(WarehouseError, match=r"declares table alarms, but no topic in schemas/topics.yaml has `table: alarms`"):
        load_declarations(tables_copy, DEFAULT_SCHEMAS_DIR)
    (tables_copy / "alarms.yaml").unlink()
    (tables_copy / "alerts.yaml").unlink()
    with pytest.raises(WarehouseError, match=r"stores topic\(s\) in alerts, which .* does not declare"):
        load_declarations(tables_copy, DEFAULT_SCHEMAS_DIR)


def test_yaml_key_order_is_the_column_order(tables_copy: Path) -> None:
    # The declarations rely on it (a mapping's keys in file order); PyYAML keeps it.
    document: dict[str, Any] = yaml.safe_load((tables_copy / "flowsets.yaml").read_text())
    names = [c.name for c in next(d for d in load_declarations(tables_copy, DEFAULT_SCHEMAS_DIR) if d.table == "flowsets").columns]
    assert names == list(document["columns"]) and names[:2] == ["flowset_id", "src_addr"] and names[-1] == "closed_at"


def test_the_readme_index_of_tables_matches_the_manifest() -> None:
    readme = (DEFAULT_TABLES_DIR.parent / "README.md").read_text()
    section = readme[readme.index("## Tables\n") : readme.index("### Rollups")]
    rows = re.findall(r"^\| `([a-z0-9_.]+)` \| `([a-z0-9_]+)` \|", section, re.M)
    assert sorted(rows) == sorted((t["name"], table) for table, t in STORED.items())
