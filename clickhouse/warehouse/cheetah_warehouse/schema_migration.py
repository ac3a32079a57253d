"""Declarations against migrations: ``schema check`` and ``schema new-migration``.

What the migrations produce is known by applying them: every migration runs in a scratch
database of an in-process engine, the declarations' DDL runs in another, and ClickHouse's
own introspection of the two is compared (schema_state.py). A new migration is planned from
that difference, written as the next ``NNNN_name.sql``, and verified the same way before it
is kept: all migrations, the new one included, must give exactly the declared schema.

How a difference becomes SQL (the Kafka engine has no ALTER, see clickhouse/README.md):

* a new table: its four CREATE statements;
* columns: ``ALTER TABLE ... ADD COLUMN ... AFTER``, ``MODIFY COLUMN`` (type or place), and
  ``DROP COLUMN`` only when asked (``--drop-columns``: stored data is lost);
* TTL and table settings: ``MODIFY TTL`` / ``MODIFY SETTING`` / ``RESET SETTING``;
* the queue or its views: the views and the queue are dropped and created again, after the
  table's ALTERs. The consumer group is unchanged, so the new queue continues from the
  committed offsets: records produced meanwhile are read then, none twice.

Engine, partition and sorting key changes rewrite a table's data: the generator refuses
them and says to write that migration by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import migrations
from .clients import EngineClient
from .declarations import TableDeclaration, create_queue, create_statements, create_table, create_undecodable_view, create_view, render_sql
from .embedded import EmbeddedEngine
from .errors import WarehouseError
from .schema_state import ObjectState, TableDiff, compare, read_state

# The same values on both sides: they end up in the Kafka tables' settings, which are compared.
SCRATCH_VARIABLES = {"kafka_brokers": "127.0.0.1:9", "kafka_group_prefix": "cheetah-schema"}
NAME = re.compile(r"^[a-z0-9_]+$")


class Scratch:
    """Throwaway databases in one open engine, dropped by ``close()``."""

    def __init__(self, engine: EmbeddedEngine, prefix: str = "cheetah_schema") -> None:
        self._engine = engine
        self._prefix = prefix
        self._created: list[str] = []

    def fresh(self, label: str) -> EngineClient:
        database = f"{self._prefix}_{label}"
        self._engine.query(f"DROP DATABASE IF EXISTS {database} SYNC")
        self._engine.query(f"CREATE DATABASE {database}")
        self._created.append(database)
        return EngineClient(self._engine, database)

    def close(self) -> None:
        for database in self._created:
            self._engine.query(f"DROP DATABASE IF EXISTS {database} SYNC")
        self._created.clear()


def _quiet(_: str) -> None:
    pass


def migrated_state(scratch: Scratch, migrations_dir: Path, label: str = "migrated") -> dict[str, ObjectState]:
    client = scratch.fresh(label)
    migrations.apply(client, migrations_dir, SCRATCH_VARIABLES, log=_quiet)
    return read_state(client)


def declared_state(scratch: Scratch, declarations: list[TableDeclaration]) -> dict[str, ObjectState]:
    client = scratch.fresh("declared")
    variables = migrations.resolve_variables(SCRATCH_VARIABLES)
    text = migrations.substitute(render_sql(create_statements(declarations)), variables, "the declarations")
    for statement in migrations.split_statements(text):
        try:
            client.query(statement)
        except WarehouseError as exc:
            raise WarehouseError(f"the declared DDL fails at `{statement.splitlines()[0]}`: {exc}") from None
    return read_state(client)


def differences(scratch: Scratch, declarations: list[TableDeclaration], migrations_dir: Path) -> list[str]:
    """Every way the migrations' schema differs from the declarations; empty when they agree."""
    have = migrated_state(scratch, migrations_dir)
    want = declared_state(scratch, declarations)
    diffs, strays = compare(declarations, have, want)
    return [m for diff in diffs for m in diff.messages] + strays


# ---------------------------------------------------------------- planning


def _column_statements(d: TableDeclaration, have: ObjectState, want: ObjectState, drop_columns: bool) -> list[str]:
    want_names = [n for n, _ in want.columns]
    have_types = dict(have.columns)
    want_types = dict(want.columns)
    current = [n for n, _ in have.columns]
    statements: list[str] = []
    dropped = [n for n in current if n not in want_types]
    if dropped and not drop_columns:
        raise WarehouseError(
            f"{d.table}: column(s) {', '.join(dropped)} are created by the migrations but no longer declared; "
            "dropping a column loses its data: pass --drop-columns to write DROP COLUMN, or declare them again"
        )
    for name in dropped:
        statements.append(f"ALTER TABLE {d.table} DROP COLUMN IF EXISTS {name}")
        current.remove(name)
    for i, name in enumerate(want_names):
        column = d.column(name)
        assert column is not None
        place = f"AFTER {want_names[i - 1]}" if i else "FIRST"
        if name not in current:
            statements.append(f"ALTER TABLE {d.table} ADD COLUMN IF NOT EXISTS {name} {column.type} {place}")
            current.insert(i, name)
            continue
        moved = current.index(name) != i
        if moved or have_types[name] != want_types[name]:
            statements.append(f"ALTER TABLE {d.table} MODIFY COLUMN {name} {column.type}" + (f" {place}" if moved else ""))
            if moved:
                current.remove(name)
                current.insert(i, name)
    return statements


def _table_statements(diff: TableDiff, have: ObjectState, want: ObjectState, drop_columns: bool) -> list[str]:
    d = diff.declaration
    if diff.engine_differs:
        details = "; ".join(m for m in diff.messages if " key is " in m or ": engine is " in m)
        raise WarehouseError(
            f"{details}. Changing the engine, partition or sorting key rewrites the table's data; the generator "
            "does not: write that migration by hand (a new table, INSERT ... SELECT, EXCHANGE TABLES)"
        )
    statements = _column_statements(d, have, want, drop_columns) if diff.columns_differ else []
    if diff.ttl_differs:
        statements.append(f"ALTER TABLE {d.table} MODIFY TTL {d.ttl}")
    if diff.settings_differ:
        changed = {k: v for k, v in want.settings.items() if have.settings.get(k) != v}
        removed = [k for k in have.settings if k not in want.settings]
        if changed:
            statements.append(f"ALTER TABLE {d.table} MODIFY SETTING " + ", ".join(f"{k} = {v}" for k, v in changed.items()))
        if removed:
            statements.append(f"ALTER TABLE {d.table} RESET SETTING " + ", ".join(removed))
    return statements


def plan(
    declarations: list[TableDeclaration], have: dict[str, ObjectState], want: dict[str, ObjectState], drop_columns: bool = False
) -> tuple[list[str], list[str]]:
    """(the differences, as comment lines; the statements that remove them)."""
    diffs, strays = compare(declarations, have, want)
    if strays:
        raise WarehouseError("; ".join(strays))
    notes: list[str] = []
    statements: list[str] = []
    new_tables = [diff for diff in diffs if diff.table_missing]
    # New tables first: every undecodable view writes into `rejected`, which must exist.
    statements += [create_table(diff.declaration) for diff in new_tables]
    for diff in diffs:
        if not diff.differs:
            continue
        d = diff.declaration
        notes += diff.messages
        altered = [] if diff.table_missing else _table_statements(diff, have[d.table], want[d.table], drop_columns)
        rebuild_queue = diff.queue_differs or diff.table_missing
        rebuild_views = rebuild_queue or diff.views_differ or diff.columns_differ
        if rebuild_queue and d.queue in have:
            extra = [v for v in have[d.queue].dependents if v not in (d.view, d.undecodable_view)]
            if extra:
                raise WarehouseError(
                    f"{d.queue} must be created again but also feeds {', '.join(extra)}, which no declaration describes; "
                    "drop or re-create those views in a hand-written migration"
                )
        if rebuild_views:
            statements += [f"DROP VIEW IF EXISTS {v}" for v in (d.view, d.undecodable_view) if v in have]
        if rebuild_queue and d.queue in have:
            statements.append(f"DROP TABLE IF EXISTS {d.queue} SYNC")
        statements += altered
        if rebuild_queue:
            statements.append(create_queue(d))
        if rebuild_views:
            statements += [create_view(d), create_undecodable_view(d)]
        if rebuild_queue and not diff.table_missing:
            notes.append(
                f"{d.queue} cannot be altered (Kafka engine): it and its views are created again; its consumer "
                "group is unchanged, so it continues from the committed offsets"
            )
    return notes, statements


def render_migration(command: str, notes: list[str], statements: list[str]) -> str:
    header = [
        f"Written by `{command}` from the table declarations",
        "(clickhouse/tables/*.yaml; topics and messages: schemas/topics.yaml). Once applied, this file",
        "is history: change a declaration and write another migration.",
        "",
        *notes,
    ]
    comments = "".join(f"-- {line}".rstrip() + "\n" for line in header)
    return comments + "\n" + render_sql(statements)


def write_migration(
    scratch: Scratch,
    declarations: list[TableDeclaration],
    migrations_dir: Path,
    name: str,
    command: str,
    drop_columns: bool = False,
) -> Path | None:
    """Write the next migration making the migrations match the declarations; None when they already do."""
    if not NAME.match(name):
        raise WarehouseError(f"migration name {name!r} must be lower-case letters, digits and '_' (e.g. flowsets_hops)")
    existing = migrations.discover(migrations_dir)
    have = migrated_state(scratch, migrations_dir)
    want = declared_state(scratch, declarations)
    notes, statements = plan(declarations, have, want, drop_columns)
    if not statements:
        return None
    version = (existing[-1].version if existing else 0) + 1
    path = migrations_dir / f"{version:04d}_{name}.sql"
    path.write_text(render_migration(command, notes, statements), encoding="utf-8")
    try:
        remaining = compare(declarations, migrated_state(scratch, migrations_dir, "verify"), want)
        left = [m for diff in remaining[0] for m in diff.messages] + remaining[1]
    except WarehouseError as exc:
        left = [str(exc)]
    if left:
        kept = path.with_name(path.name + ".rejected")  # not *.sql: never applied
        path.rename(kept)
        raise WarehouseError(
            f"the planned migration does not reach the declared schema (kept as {kept} for inspection): {'; '.join(left)}"
        )
    return path
