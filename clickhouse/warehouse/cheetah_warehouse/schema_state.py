"""A database's schema as ClickHouse itself reports it, and how two such schemas differ.

Both sides of every comparison are read back from ``system.tables`` and ``system.columns``
after ClickHouse parsed and normalised the DDL, so formatting never counts, only meaning:
``INTERVAL 400 DAY`` and ``toIntervalDay(400)`` are the same TTL. Database names are
stripped, so two databases built the same way compare equal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .clients import SqlClient
from .declarations import TableDeclaration, split_top_level


@dataclass(frozen=True)
class ObjectState:
    """A table, Kafka table, view or dictionary as system.tables describes it."""

    name: str
    engine: str
    engine_full: str
    create_query: str
    as_select: str
    partition_key: str
    sorting_key: str
    primary_key: str
    columns: tuple[tuple[str, str], ...]  # (name, type) in position order
    dependents: tuple[str, ...]  # views reading from it, sorted

    @property
    def engine_head(self) -> str:
        """The engine with its arguments: ``ReplacingMergeTree(closed_at)``."""
        return re.split(r" (?:PARTITION BY|PRIMARY KEY|ORDER BY|SAMPLE BY|TTL|SETTINGS) ", self.engine_full, maxsplit=1)[0]

    @property
    def ttl(self) -> str:
        match = re.search(r" TTL (.*?)(?: SETTINGS |$)", self.engine_full)
        return match.group(1) if match else ""

    @property
    def settings(self) -> dict[str, str]:
        match = re.search(r" SETTINGS (.*)$", self.engine_full)
        if not match:
            return {}
        pairs = re.split(r", (?=[A-Za-z_][A-Za-z0-9_]* = )", match.group(1))
        return dict(pair.split(" = ", 1) for pair in pairs)


def _json_rows(client: SqlClient, sql: str) -> list[list[object]]:
    text = client.query(sql, "JSONCompactEachRow").decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_state(client: SqlClient) -> dict[str, ObjectState]:
    """Every object of the client's current database, by name."""
    [[database]] = _json_rows(client, "SELECT currentDatabase()")
    prefix = f"{database}."

    def local(text: object) -> str:
        return str(text).replace(prefix, "")

    columns: dict[str, list[tuple[str, str]]] = {}
    for table, name, sql_type in _json_rows(
        client, "SELECT table, name, type FROM system.columns WHERE database = currentDatabase() ORDER BY table, position"
    ):
        columns.setdefault(str(table), []).append((str(name), str(sql_type)))
    state: dict[str, ObjectState] = {}
    for row in _json_rows(
        client,
        "SELECT name, engine, engine_full, create_table_query, as_select, partition_key, sorting_key, primary_key, "
        "arraySort(dependencies_table) FROM system.tables WHERE database = currentDatabase() ORDER BY name",
    ):
        name, engine, engine_full, create_query, as_select, partition_key, sorting_key, primary_key, dependents = row
        state[str(name)] = ObjectState(
            name=str(name),
            engine=str(engine),
            engine_full=local(engine_full),
            create_query=local(create_query),
            as_select=local(as_select),
            partition_key=str(partition_key),
            sorting_key=str(sorting_key),
            primary_key=str(primary_key),
            columns=tuple(columns.get(str(name), [])),
            dependents=tuple(str(d) for d in dependents),  # type: ignore[union-attr]
        )
    return state


@dataclass
class TableDiff:
    """How the objects of one declared table differ between the migrations (have) and the declaration (want)."""

    declaration: TableDeclaration
    messages: list[str] = field(default_factory=list)
    table_missing: bool = False
    columns_differ: bool = False
    engine_differs: bool = False  # engine, partition or sorting key: not altered by the generator
    ttl_differs: bool = False
    settings_differ: bool = False
    queue_differs: bool = False
    views_differ: bool = False

    @property
    def differs(self) -> bool:
        return bool(self.messages)


def _column_messages(have: tuple[tuple[str, str], ...], want: tuple[tuple[str, str], ...], ordered: bool) -> list[str]:
    messages: list[str] = []
    have_types, want_types = dict(have), dict(want)
    want_names = [n for n, _ in want]
    for i, (name, sql_type) in enumerate(want):
        if name not in have_types:
            where = f" (after {want_names[i - 1]})" if ordered and i else (" (first)" if ordered else "")
            messages.append(f"column {name} {sql_type} is declared{where} but the migrations do not create it")
        elif have_types[name] != sql_type:
            messages.append(f"column {name} is {have_types[name]} in the migrations but declared {sql_type}")
    for name, sql_type in have:
        if name not in want_types:
            messages.append(f"column {name} {sql_type} is created by the migrations but not declared")
    if ordered and not messages:
        have_order = [n for n, _ in have]
        if have_order != want_names:
            messages.append(f"columns are in another order: migrations ({', '.join(have_order)}), declared ({', '.join(want_names)})")
    return messages


def compare_table(
    declaration: TableDeclaration, have: dict[str, ObjectState], want: dict[str, ObjectState]
) -> TableDiff:
    d = declaration
    diff = TableDiff(d)
    say = diff.messages.append
    table, wanted = have.get(d.table), want[d.table]
    if table is None:
        diff.table_missing = True
        say(f"{d.table}: the migrations do not create this table")
    else:
        column_messages = _column_messages(table.columns, wanted.columns, ordered=True)
        if column_messages:
            diff.columns_differ = True
            diff.messages += [f"{d.table}: {m}" for m in column_messages]
        for what, have_value, want_value in (
            ("engine", table.engine_head, wanted.engine_head),
            ("partition key", table.partition_key, wanted.partition_key),
            ("sorting key", table.sorting_key, wanted.sorting_key),
            ("primary key", table.primary_key, wanted.primary_key),
        ):
            if have_value != want_value:
                diff.engine_differs = True
                say(f"{d.table}: {what} is `{have_value}` in the migrations but declared `{want_value}`")
        if table.ttl != wanted.ttl:
            diff.ttl_differs = True
            say(f"{d.table}: TTL is `{table.ttl}` in the migrations but declared `{wanted.ttl}`")
        if table.settings != wanted.settings:
            diff.settings_differ = True
            say(f"{d.table}: settings are {table.settings} in the migrations but declared {wanted.settings}")
        if not diff.messages and table.create_query != wanted.create_query:
            diff.columns_differ = True  # e.g. a codec or default: re-declare the column
            say(f"{d.table}: definition differs: migrations `{table.create_query}`, declared `{wanted.create_query}`")

    queue, wanted_queue = have.get(d.queue), want[d.queue]
    if queue is None:
        diff.queue_differs = True
        say(f"{d.queue}: the migrations do not create this Kafka table")
    else:
        # ProtobufSingle matches columns to fields by name: the queue's column order means nothing.
        queue_messages = _column_messages(tuple(sorted(queue.columns)), tuple(sorted(wanted_queue.columns)), ordered=False)
        if queue.engine_full != wanted_queue.engine_full:
            queue_messages.append(f"settings are `{queue.engine_full}` in the migrations but declared `{wanted_queue.engine_full}`")
        if queue_messages:
            diff.queue_differs = True
            diff.messages += [f"{d.queue}: {m}" for m in queue_messages]
        expected_dependents = tuple(sorted((d.view, d.undecodable_view)))
        if queue.dependents != expected_dependents:
            diff.views_differ = True
            say(f"{d.queue}: feeds the views {list(queue.dependents)}; expected exactly {list(expected_dependents)}")

    for view in (d.view, d.undecodable_view):
        existing, wanted_view = have.get(view), want[view]
        if existing is None:
            diff.views_differ = True
            say(f"{view}: the migrations do not create this view")
        elif existing.create_query != wanted_view.create_query:
            diff.views_differ = True
            say(f"{view}: {_query_difference(existing, wanted_view)}")
    return diff


def split_select(as_select: str) -> tuple[list[str], str]:
    """``SELECT a, f(b, c) AS d FROM x WHERE y`` -> (["a", "f(b, c) AS d"], "FROM x WHERE y")."""
    return split_top_level(as_select.removeprefix("SELECT "), " FROM ")


def _query_difference(have: ObjectState, want: ObjectState) -> str:
    """What differs between two views, in a line: the select items first, then the rest."""
    have_items, have_rest = split_select(have.as_select)
    want_items, want_rest = split_select(want.as_select)
    parts = []
    added = [i for i in want_items if i not in have_items]
    removed = [i for i in have_items if i not in want_items]
    if added:
        parts.append(f"declared select items {added} are not in the migrations' view")
    if removed:
        parts.append(f"the migrations' view selects {removed}, which are not declared")
    if not added and not removed and have_items != want_items:
        parts.append(f"select items in another order: migrations {have_items}, declared {want_items}")
    if have_rest != want_rest:
        parts.append(f"the migrations' view reads `{have_rest}`, the declared one `{want_rest}`")
    if not parts:
        parts.append(f"definition differs: migrations `{have.create_query}`, declared `{want.create_query}`")
    return "; ".join(parts)


def compare(
    declarations: list[TableDeclaration], have: dict[str, ObjectState], want: dict[str, ObjectState]
) -> tuple[list[TableDiff], list[str]]:
    """Per-table differences, and Kafka tables of the migrations that no declaration owns."""
    diffs = [compare_table(d, have, want) for d in declarations]
    owned = {d.queue for d in declarations}
    strays = [
        f"{name}: Kafka table created by the migrations but no declaration owns it "
        f"(add clickhouse/tables/{name.removesuffix('_queue')}.yaml, or drop it in a hand-written migration)"
        for name, state in sorted(have.items())
        if state.engine == "Kafka" and name not in owned
    ]
    return diffs, strays
