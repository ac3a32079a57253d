"""Table declarations (clickhouse/tables/<table>.yaml) and the DDL rendered from them.

A result table is declared once: its engine, keys, TTL and ONE list of columns, each with the
protobuf field it is read from (and the Kafka table's type for it) and the conversion, if any.
From that come the four objects that store a topic (clickhouse/README.md, "Tables"):

* ``<table>``: the MergeTree table;
* ``<table>_queue``: the Kafka engine table reading the topic (``ProtobufSingle``);
* ``<table>_mv``: the materialized view converting queue rows into table rows;
* ``<table>_undecodable_rejected_mv``: records that did not decode, kept in ``rejected``.

The topic and its message come from schemas/topics.yaml (the topic whose ``table`` is this
table); they are never repeated in a declaration. ``{{...}}`` placeholders are left for the
migration runner, as in the hand-written migrations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .errors import WarehouseError
from .proto_fields import message_fields
from .topics import Topic, stored_topics

IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
TABLE_KEYS = {"engine", "partition_by", "order_by", "ttl", "settings", "columns", "queue_fields"}
REQUIRED_TABLE_KEYS = ("engine", "order_by", "ttl", "columns")  # a TTL on every table (CONVENTIONS.md)
COLUMN_KEYS = {"type", "field", "expr"}
REJECTED_TABLE = "rejected"  # where every queue's undecodable records go


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader refusing duplicate keys: a column declared twice must not silently win once."""


def _mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"{key!r} is given twice", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


@dataclass(frozen=True)
class Field:
    """A protobuf field as the Kafka table reads it: a column of ``<table>_queue``."""

    name: str
    type: str

    def sql(self) -> str:
        return f"{self.name} {self.type}"


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    field: Field | None  # the field it is read from; None: computed from other fields only
    expr: str | None  # the conversion; None when the field is stored as read

    def select_item(self) -> str:
        if self.expr is not None:
            return f"{self.expr} AS {self.name}"
        assert self.field is not None
        return self.name if self.field.name == self.name else f"{self.field.name} AS {self.name}"


@dataclass(frozen=True)
class TableDeclaration:
    table: str
    topic: Topic
    engine: str
    partition_by: str | None
    order_by: str
    ttl: str
    settings: tuple[tuple[str, str], ...]
    columns: tuple[Column, ...]
    queue_fields: tuple[Field, ...]  # read only to compute columns, not stored as they are
    path: Path

    @property
    def queue(self) -> str:
        return f"{self.table}_queue"

    @property
    def view(self) -> str:
        return f"{self.table}_mv"

    @property
    def undecodable_view(self) -> str:
        return f"{self.table}_undecodable_rejected_mv"

    def fields(self) -> list[Field]:
        """The Kafka table's columns: every field read, in column order, then the queue-only ones."""
        return [c.field for c in self.columns if c.field is not None] + list(self.queue_fields)

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)


def split_top_level(text: str, stop: str = "") -> tuple[list[str], str]:
    """``a, f(b, c), d`` -> ``([a, f(b, c), d], "")``: split at commas outside parentheses and
    quotes; with ``stop`` (e.g. `` FROM ``), only up to its first occurrence outside them, and the
    rest from there (without its leading space) is returned too."""
    items: list[str] = []
    depth, quote, start, i = 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and ch == ",":
            items.append(text[start:i].strip())
            start = i + 1
        elif depth == 0 and stop and text.startswith(stop, i):
            items.append(text[start:i].strip())
            return items, text[i + 1 :]
        i += 1
    items.append(text[start:].strip())
    return items, ""


def _without_outer_parentheses(text: str) -> str:
    text = text.strip()
    if not text.startswith("("):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return text[1:i].strip() if i == len(text) - 1 else text
    return text


def replacing_key(d: "TableDeclaration") -> tuple[str, ...]:
    """The expressions of the key a ReplacingMergeTree table replaces rows by (its sorting key, as
    the declaration says); empty for any other engine. For a topic delivered at least once, the
    embedded warehouse stores a record of such a key once (consumer.py, "Repeats"): the key comes
    from here, never restated."""
    if re.fullmatch(r"ReplacingMergeTree\s*(?:\(.*\))?", d.engine.strip(), re.S) is None:
        return ()
    return tuple(p for p in split_top_level(_without_outer_parentheses(d.order_by))[0] if p)


# ---------------------------------------------------------------- loading


def default_queue_type(column_type: str) -> str:
    """The queue type of a field stored as read: the column's type without LowCardinality."""
    match = re.fullmatch(r"LowCardinality\((.*)\)", column_type)
    return match.group(1) if match else column_type


def _text(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise WarehouseError(f"{where} must be a non-empty text, not {value!r}")
    return str(value).strip()


def _field(text: str, where: str) -> Field:
    parts = text.split(None, 1)
    if len(parts) != 2 or not IDENTIFIER.match(parts[0]):
        raise WarehouseError(f"{where}: `field: {text}` must be `NAME TYPE`, e.g. `field: start_ms UInt64`")
    return Field(parts[0], parts[1].strip())


def _column(name: Any, spec: Any, where: str) -> Column:
    if not isinstance(name, str) or not IDENTIFIER.match(name):
        raise WarehouseError(f"{where}: column name {name!r} must be lower-case letters, digits and '_'")
    where = f"{where}: column {name}"
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - COLUMN_KEYS)
        if unknown:
            raise WarehouseError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}; a column has {', '.join(sorted(COLUMN_KEYS))}")
        if "type" not in spec:
            raise WarehouseError(f"{where}: no type")
        column_type = _text(spec["type"], f"{where}: type")
        expr = _text(spec["expr"], f"{where}: expr") if "expr" in spec else None
        if "field" in spec:
            field: Field | None = _field(_text(spec["field"], f"{where}: field"), where)
        elif expr is None:
            field = Field(name, default_queue_type(column_type))
        else:
            field = None  # computed from fields other columns read, or queue_fields
        return Column(name, column_type, field, expr)
    column_type = _text(spec, f"{where}: type")
    return Column(name, column_type, Field(name, default_queue_type(column_type)), None)


def load_declaration(path: Path, topics: dict[str, Topic], schemas_dir: Path) -> TableDeclaration:
    """One declaration file; the table is named by the file (``flowsets.yaml`` -> ``flowsets``)."""
    table = path.stem
    where = str(path)
    if not IDENTIFIER.match(table):
        raise WarehouseError(f"{where}: a declaration is named <table>.yaml with a lower-case table name")
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        raise WarehouseError(f"{where} is not valid YAML: {exc}") from None
    if not isinstance(document, dict):
        raise WarehouseError(f"{where}: expected a mapping with {', '.join(REQUIRED_TABLE_KEYS)}")
    unknown = sorted(set(document) - TABLE_KEYS)
    if unknown:
        raise WarehouseError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}; known: {', '.join(sorted(TABLE_KEYS))}")
    missing = [k for k in REQUIRED_TABLE_KEYS if k not in document]
    if missing:
        raise WarehouseError(f"{where}: missing {', '.join(missing)}")
    topic = topics.get(table)
    if topic is None:
        raise WarehouseError(
            f"{where} declares table {table}, but no topic in schemas/topics.yaml has `table: {table}`; "
            "add the topic to the manifest or rename the file"
        )
    raw_columns = document["columns"]
    if not isinstance(raw_columns, dict) or not raw_columns:
        raise WarehouseError(f"{where}: columns must map each column name to its type (or type, field, expr)")
    columns = tuple(_column(name, spec, where) for name, spec in raw_columns.items())
    raw_extra = document.get("queue_fields") or {}
    if not isinstance(raw_extra, dict):
        raise WarehouseError(f"{where}: queue_fields must map each field name to its queue type")
    queue_fields = []
    for name, spec in raw_extra.items():
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise WarehouseError(f"{where}: queue field name {name!r} must be lower-case letters, digits and '_'")
        queue_fields.append(Field(name, _text(spec, f"{where}: queue field {name}")))
    raw_settings = document.get("settings") or {}
    if not isinstance(raw_settings, dict):
        raise WarehouseError(f"{where}: settings must map setting names to values")
    settings = tuple((str(k), _text(v, f"{where}: setting {k}")) for k, v in raw_settings.items())
    declaration = TableDeclaration(
        table=table,
        topic=topic,
        engine=_text(document["engine"], f"{where}: engine"),
        partition_by=_text(document["partition_by"], f"{where}: partition_by") if document.get("partition_by") else None,
        order_by=_text(document["order_by"], f"{where}: order_by"),
        ttl=_text(document["ttl"], f"{where}: ttl"),
        settings=settings,
        columns=columns,
        queue_fields=tuple(queue_fields),
        path=path,
    )
    if topic.at_least_once and not replacing_key(declaration):
        raise WarehouseError(
            f"{where}: topic {topic.name} is delivered at least once (schemas/topics.yaml), so its table must replace "
            f"rows by key (engine ReplacingMergeTree), not {declaration.engine}: a record written twice would be stored twice"
        )
    _check_fields(declaration, schemas_dir)
    return declaration


def _check_fields(declaration: TableDeclaration, schemas_dir: Path) -> None:
    """Every queue column is a field of the topic's message, read with a type that decodes it."""
    where = f"{declaration.path}"
    message = declaration.topic.message
    available = message_fields(schemas_dir, message)
    seen: set[str] = set()
    for field in declaration.fields():
        if field.name in seen:
            raise WarehouseError(
                f"{where}: field {field.name} is read twice; a second column using it takes it in its expr only"
            )
        seen.add(field.name)
        proto = available.get(field.name)
        if proto is None:
            raise WarehouseError(
                f"{where}: field {field.name} is not a field of {message} (topic {declaration.topic.name}); "
                f"fields are: {', '.join(available)}. ClickHouse would store its default for every record: "
                "fix the name, or add the field to the .proto first"
            )
        if field.type not in proto.queue_types():
            raise WarehouseError(
                f"{where}: field {field.name} is {proto.describe()} in {message}; the Kafka table reads it as "
                f"{' or '.join(proto.queue_types()) or 'nothing known'}, not {field.type}"
            )


def load_declarations(tables_dir: Path, schemas_dir: Path) -> list[TableDeclaration]:
    """Every declaration, in the manifest's topic order (so ``rejected`` comes before the views into it)."""
    if not tables_dir.is_dir():
        raise WarehouseError(f"table declarations directory {tables_dir} does not exist; pass --tables DIR")
    topics = stored_topics(schemas_dir)
    declared = {p.stem: load_declaration(p, topics, schemas_dir) for p in sorted(tables_dir.glob("*.yaml"))}
    undeclared = [t for t in topics if t not in declared]
    if undeclared:
        raise WarehouseError(
            f"schemas/topics.yaml stores topic(s) in {', '.join(undeclared)}, which {tables_dir} does not declare; "
            "add <table>.yaml for each"
        )
    if REJECTED_TABLE not in declared:
        raise WarehouseError(f"{tables_dir} does not declare {REJECTED_TABLE}, where undecodable records go")
    return [declared[t] for t in topics]


# ---------------------------------------------------------------- rendering


def _column_lines(items: list[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in items)
    return ",\n".join(f"    {name.ljust(width)} {sql_type}" for name, sql_type in items)


def create_table(d: TableDeclaration) -> str:
    clauses = [f"ENGINE = {d.engine}"]
    if d.partition_by:
        clauses.append(f"PARTITION BY {d.partition_by}")
    clauses.append(f"ORDER BY {d.order_by}")
    clauses.append(f"TTL {d.ttl}")
    if d.settings:
        clauses.append("SETTINGS " + ", ".join(f"{k} = {v}" for k, v in d.settings))
    columns = _column_lines([(c.name, c.type) for c in d.columns])
    return f"CREATE TABLE IF NOT EXISTS {d.table}\n(\n{columns}\n)\n" + "\n".join(clauses)


def create_queue(d: TableDeclaration) -> str:
    columns = _column_lines([(f.name, f.type) for f in d.fields()])
    settings = [
        "kafka_broker_list = '{{kafka_brokers}}'",
        f"kafka_topic_list = '{d.topic.name}'",
        f"kafka_group_name = '{{{{kafka_group_prefix}}}}.{d.table}'",
        "kafka_format = 'ProtobufSingle'",
        f"kafka_schema = '{d.topic.message}'",
        "kafka_handle_error_mode = 'stream'",  # an undecodable record goes to rejected, never stalls
        "kafka_flush_interval_ms = {{kafka_flush_interval_ms}}",
        "kafka_num_consumers = 1",
    ]
    return (
        f"CREATE TABLE IF NOT EXISTS {d.queue}\n(\n{columns}\n)\nENGINE = Kafka\nSETTINGS\n    "
        + ",\n    ".join(settings)
    )


def create_view(d: TableDeclaration) -> str:
    items = ",\n    ".join(c.select_item() for c in d.columns)
    return (
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {d.view} TO {d.table} AS\nSELECT\n    {items}\n"
        f"FROM {d.queue}\nWHERE length(_error) = 0"
    )


# An undecodable record as a row of `rejected`: (column, expression) with the record's error,
# bytes, topic, partition and offset given by the source (Kafka virtual columns, or parameters).
def _undecodable_items(error: str, payload: str, topic: str, partition: str, offset: str) -> list[tuple[str, str]]:
    return [
        ("stage", "'warehouse'"),
        ("reason", "'undecodable_protobuf'"),
        ("detail", error),
        ("payload", payload),
        ("exporter", "toIPv6('::')"),
        ("received_at", "now64(3, 'UTC')"),
        ("source_topic", topic),
        ("source_partition", partition),
        ("source_offset", offset),
    ]


def create_undecodable_view(d: TableDeclaration) -> str:
    items = _undecodable_items("_error", "_raw_message", "_topic", "toInt32(_partition)", "toInt64(_offset)")
    select = ",\n    ".join(f"{expr} AS {name}" for name, expr in items)
    return (
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {d.undecodable_view} TO {REJECTED_TABLE} AS\nSELECT\n    {select}\n"
        f"FROM {d.queue}\nWHERE length(_error) > 0"
    )


# ---------------------------------------------------------------- the embedded warehouse's own consumer
#
# The embedded warehouse reads the topics itself (consumer.py) and inserts each batch of records with
# the statements below: the same select items as the view of the Kafka table, read from the records
# with the input format Protobuf (length-delimited; one record: ProtobufSingle) instead of from the
# Kafka table. The settings make a batch idempotent: a repeated token is skipped in the table and in
# every table fed from it by a view (clickhouse/README.md, "Delivery guarantees").


def _dedup_settings(token: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9._/:-]+", token):
        raise WarehouseError(f"insert token {token!r} has characters outside [A-Za-z0-9._/:-]")
    return (
        "async_insert = 0, deduplicate_insert = 'enable', insert_deduplicate = 1, "
        f"deduplicate_blocks_in_dependent_materialized_views = 1, insert_deduplication_token = '{token}'"
    )


def _records_select(d: TableDeclaration, input_format: str) -> str:
    """The table's rows of the records given hex-encoded in the parameter ``records``
    (``input_format``: Protobuf for length-delimited records, ProtobufSingle for one record)."""
    if input_format not in ("Protobuf", "ProtobufSingle"):
        raise WarehouseError(f"input format {input_format!r} is not Protobuf or ProtobufSingle")
    items = ", ".join(c.select_item() for c in d.columns)
    structure = ", ".join(f.sql() for f in d.fields()).replace("\\", "\\\\").replace("'", "\\'")
    return f"SELECT {items} FROM format({input_format}, '{structure}', unhex({{records:String}}))"


def ingest_statement(d: TableDeclaration, input_format: str, token: str) -> str:
    """INSERT of records given hex-encoded in the parameter ``records`` (``input_format``:
    Protobuf for length-delimited records, ProtobufSingle for one record)."""
    columns = ", ".join(c.name for c in d.columns)
    return (
        f"INSERT INTO {d.table} ({columns}) SETTINGS format_schema = '{d.topic.message}', {_dedup_settings(token)} "
        + _records_select(d, input_format)
    )


def stored_keys_statement(d: TableDeclaration, input_format: str) -> str:
    """For each record given as for ``ingest_statement``, in order, one row: its ``replacing_key``
    as text, and 1 when the table already holds a row of that key (else 0). Only for tables whose
    engine replaces by key."""
    key = replacing_key(d)
    if not key:
        raise WarehouseError(f"{d.path}: engine {d.engine} does not replace rows by key")
    k = ", ".join(key)
    records = _records_select(d, input_format)
    stored = f"SELECT tuple({k}) FROM {d.table} WHERE tuple({k}) IN (SELECT tuple({k}) FROM ({records}))"
    return (
        f"SELECT toString(tuple({k})), tuple({k}) IN ({stored}) FROM ({records}) "
        f"SETTINGS format_schema = '{d.topic.message}'"
    )


def undecodable_statement(token: str) -> str:
    """INSERT into ``rejected`` of one record that did not decode, given by the parameters
    ``error``, ``payload`` (hex), ``topic``, ``partition`` and ``offset``."""
    items = _undecodable_items(
        "{error:String}", "unhex({payload:String})", "{topic:String}", "{partition:Int32}", "{offset:Int64}"
    )
    columns = ", ".join(name for name, _ in items)
    select = ", ".join(f"{expr} AS {name}" for name, expr in items)
    return f"INSERT INTO {REJECTED_TABLE} ({columns}) SETTINGS {_dedup_settings(token)} SELECT {select}"


def create_statements(declarations: list[TableDeclaration]) -> list[str]:
    """Every CREATE, tables first (each undecodable view writes into ``rejected``)."""
    statements = [create_table(d) for d in declarations]
    for d in declarations:
        statements += [create_queue(d), create_view(d), create_undecodable_view(d)]
    return statements


def render_sql(statements: list[str]) -> str:
    return "".join(f"{s};\n\n" for s in statements).rstrip("\n") + "\n"
