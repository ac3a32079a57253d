"""Ordered SQL migrations (clickhouse/migrations/NNNN_name.sql).

Each file holds statements separated by ``;``. ``{{name}}`` template variables
are the only per-deployment values (clickhouse/README.md), plus ``{{database}}``, the
database being migrated. Applied files are
recorded in ``schema_migrations``; applying again is a no-op. Files are
append-only: a change to an applied file is reported, never re-applied.

In replicated mode (``replication``) every statement, the ledger's too, is sent as the one rule
of ``replication.py`` rewrites it: Replicated* engines, and ON CLUSTER when a cluster is named.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from .clients import SqlClient
from .errors import WarehouseError
from .replication import Replication, rewrite

FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
TEMPLATE_VARIABLE = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")

# Values are pasted into SQL string literals and settings: keep them to safe characters.
VARIABLES: dict[str, tuple[re.Pattern[str], str, str | None]] = {
    "kafka_brokers": (
        re.compile(r"^[A-Za-z0-9._\-\[\]:]+(,[A-Za-z0-9._\-\[\]:]+)*$"),
        "a comma-separated list of HOST:PORT",
        None,
    ),
    "kafka_group_prefix": (re.compile(r"^[A-Za-z0-9._\-]+$"), "letters, digits, '.', '_' or '-'", "cheetah-warehouse"),
    "kafka_flush_interval_ms": (re.compile(r"^[1-9][0-9]{0,6}$"), "a positive integer (milliseconds)", "1000"),
}

SCHEMA_MIGRATIONS_DDL = """
CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    UInt32,
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version
"""  # Bookkeeping: deliberately no TTL, it must outlive every data table.


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path
    text: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def discover(directory: Path) -> list[Migration]:
    """All migrations in ``directory``, ordered by version."""
    if not directory.is_dir():
        raise WarehouseError(f"migrations directory {directory} does not exist; pass --migrations DIR")
    found: dict[int, Migration] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix != ".sql":
            continue
        match = FILE_NAME.match(path.name)
        if not match:
            raise WarehouseError(
                f"migration file {path} is not named NNNN_name.sql (four digits, lower-case name); rename it"
            )
        version = int(match.group(1))
        if version in found:
            raise WarehouseError(f"migrations {found[version].path.name} and {path.name} share version {version:04d}")
        found[version] = Migration(version, path.stem, path, path.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def resolve_variables(given: Mapping[str, str | None]) -> dict[str, str]:
    """Defaults plus given values, each checked; unknown names are refused."""
    values: dict[str, str] = {}
    for name, (pattern, expected, default) in VARIABLES.items():
        value = given.get(name)
        if value is None:
            value = default
        if value is None:
            continue
        if not pattern.match(value):
            raise WarehouseError(f"{name} = {value!r} is not valid: expected {expected}")
        values[name] = value
    unknown = sorted(set(given) - set(VARIABLES))
    if unknown:
        raise WarehouseError(f"unknown template variable(s) {', '.join(unknown)}; known: {', '.join(VARIABLES)}")
    return values


def render(migration: Migration, variables: Mapping[str, str]) -> str:
    return substitute(migration.text, variables, f"migration {migration.path.name}")


def substitute(text: str, variables: Mapping[str, str], origin: str) -> str:
    """``text`` with its ``{{name}}`` variables replaced; ``origin`` names it in errors."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            option = "--" + name.replace("_", "-")
            raise WarehouseError(f"{origin} uses {{{{{name}}}}}, which has no value; pass {option}")
        return variables[name]

    return TEMPLATE_VARIABLE.sub(value, text)


def split_statements(sql: str) -> list[str]:
    """Split on ``;`` outside quotes and comments; drop empty statements."""
    statements: list[str] = []
    current: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            j = i + 1
            while j < n and sql[j] != ch:
                j += 2 if sql[j] == "\\" else 1
            current.append(sql[i : j + 1])
            i = j + 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            current.append(sql[i:j])
            i = j
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            current.append(sql[i:j])
            i = j
        elif ch == ";":
            statements.append("".join(current))
            current = []
            i += 1
        else:
            current.append(ch)
            i += 1
    statements.append("".join(current))
    return [s.strip() for s in statements if _has_code(s)]


def _has_code(statement: str) -> bool:
    without_comments = re.sub(r"--[^\n]*|/\*.*?\*/", "", statement, flags=re.S)
    return bool(without_comments.strip())


def applied_versions(client: SqlClient, replication: Replication | None = None) -> dict[int, str]:
    ddl = rewrite(SCHEMA_MIGRATIONS_DDL, replication)
    try:
        client.query(ddl)
    except WarehouseError as exc:
        raise WarehouseError(f"creating the ledger failed at `{ddl.strip().splitlines()[0]}`: {exc}") from None
    rows = client.query("SELECT version, checksum FROM schema_migrations FINAL ORDER BY version").decode()
    result: dict[int, str] = {}
    for line in rows.splitlines():
        version, checksum = line.split("\t")
        result[int(version)] = checksum
    return result


def apply(
    client: SqlClient,
    directory: Path,
    given: Mapping[str, str | None],
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    replication: Replication | None = None,
) -> list[Migration]:
    """Apply pending migrations in order; return the ones applied now. ``replication``: the
    replicated mode (``replication.py``), None for single-server tables."""
    migrations = discover(directory)
    variables = resolve_variables(given)
    # {{database}}: the database being migrated, for names that are not qualified at creation
    # (a dictionary named inside a view's query). Never given by the user.
    variables["database"] = client.query("SELECT currentDatabase()").decode().strip()
    done = applied_versions(client, replication)
    applied_now: list[Migration] = []
    for migration in migrations:
        if migration.version in done:
            if done[migration.version] != migration.checksum:
                log(
                    f"warning: {migration.path.name} changed after it was applied to {client.describe()}; "
                    "applied migrations are not re-run: put the change in a new NNNN_name.sql"
                )
            continue
        for statement in split_statements(render(migration, variables)):
            statement = rewrite(statement, replication)
            try:
                client.query(statement)
            except WarehouseError as exc:
                first_line = statement.splitlines()[0] if statement else ""
                raise WarehouseError(f"migration {migration.path.name} failed at `{first_line}`: {exc}") from None
        client.query(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
            "SELECT {version:UInt32}, {name:String}, {checksum:String}, now64(3)",
            params={"version": str(migration.version), "name": migration.name, "checksum": migration.checksum},
        )
        log(f"applied {migration.path.name} to {client.describe()}")
        applied_now.append(migration)
    return applied_now


def sql_literal_value(value: str) -> str:
    """Escape ``value`` for use between single quotes."""
    return value.replace("\\", "\\\\").replace("'", "\\'")
