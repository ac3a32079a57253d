"""Replicated mode of the migrations: the ONE rule that turns a statement of clickhouse/migrations
into what a replicated ClickHouse cluster runs (clickhouse/README.md, "Migrations"; docs/DEPLOY.md,
"Replicated tables").

The migration files stay literal (``ENGINE = ReplacingMergeTree(seq)``) and their checksums do not
depend on the mode: the runner rewrites each statement as it sends it (``migrations.apply``), and
so do the Kafka table release (``kafka_tables``) and the ledger (``schema_migrations``).

* **Engines.** Every ``MergeTree``-family engine becomes its ``Replicated*`` counterpart, with the
  ZooKeeper path and replica name first and the engine's own arguments after them::

      ReplacingMergeTree(seq)  ->  ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', seq)
      SummingMergeTree         ->  ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')

  ``{shard}`` and ``{replica}`` are server macros (Altinity's operator defines them on every
  host); ``{database}`` and ``{table}`` are expanded by ClickHouse when the table is created.
  Engines of other families (``Kafka``, views, dictionaries) are left alone; an engine of the
  family this rule does not know is refused, never created unreplicated.
* **ON CLUSTER.** With a cluster name (``--on-cluster '{cluster}'``), every ``CREATE``, ``DROP``
  and ``ALTER`` also gets ``ON CLUSTER 'NAME'`` after its object's name, so that the one server the
  migrations Job reaches runs it on every host of the cluster (distributed DDL through Keeper).
  ``INSERT`` and ``SELECT`` are sent as they are (a replicated table replicates an insert); any
  other statement is refused in that mode, rather than run on one host only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import WarehouseError

ZOOKEEPER_PATH = "/clickhouse/tables/{shard}/{database}/{table}"
REPLICA_NAME = "{replica}"
# The MergeTree family: each has a Replicated* engine taking (path, replica, its own arguments...).
MERGE_TREE_FAMILY = (
    "MergeTree",
    "ReplacingMergeTree",
    "SummingMergeTree",
    "AggregatingMergeTree",
    "CollapsingMergeTree",
    "VersionedCollapsingMergeTree",
    "GraphiteMergeTree",
)
# A cluster name: a macro ('{cluster}') or a plain name.
_CLUSTER = re.compile(r"^(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_\-.]*)$")
_ENGINE = re.compile(r"\bENGINE\s*=\s*([A-Za-z]*MergeTree)\b", re.I)
# Leading whitespace and comments of a statement (split_statements keeps them).
_LEAD = r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*"
_NAME = r"(?:`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)(?:\.(?:`[^`]+`|[A-Za-z_][A-Za-z0-9_]*))?"
# CREATE/DROP/ALTER [...] OBJECT [IF [NOT] EXISTS] name: ON CLUSTER goes right after the name.
_DDL = re.compile(
    r"^(?P<head>" + _LEAD + r"(?:CREATE(?:\s+OR\s+REPLACE)?|ATTACH|DROP|DETACH|ALTER|TRUNCATE)\s+"
    r"(?:TEMPORARY\s+)?(?:MATERIALIZED\s+)?(?:TABLE|VIEW|DICTIONARY|DATABASE)\s+"
    r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?" + _NAME + r")(?P<tail>.*)$",
    re.I | re.S,
)
_PASS_THROUGH = re.compile(r"^" + _LEAD + r"(?:INSERT|SELECT|WITH)\b", re.I | re.S)


@dataclass(frozen=True)
class Replication:
    """How a statement is sent to a replicated cluster.

    ``cluster``: the ``ON CLUSTER`` name of every DDL statement (``'{cluster}'`` under Altinity's
    operator), or None to run each statement on the server it is sent to only (the test on
    chdb, which runs no distributed DDL; a host migrated on its own)."""

    cluster: str | None = None

    def __post_init__(self) -> None:
        if self.cluster is not None and not _CLUSTER.match(self.cluster):
            raise WarehouseError(
                f"cluster name {self.cluster!r} is not valid: expected a macro such as '{{cluster}}' or a name"
            )


def parse(replicated: bool, on_cluster: str | None) -> Replication | None:
    """The mode the runner options ask for (``--replicated``, ``--on-cluster NAME``)."""
    if on_cluster is not None and not replicated:
        raise WarehouseError(
            "--on-cluster needs --replicated: a cluster of non-replicated tables would keep each row on one host only"
        )
    return Replication(on_cluster) if replicated else None


def rewrite(statement: str, replication: Replication | None) -> str:
    """``statement`` as a replicated cluster runs it (the module's rule); unchanged when None."""
    if replication is None:
        return statement
    result = replicated_engines(statement)
    if replication.cluster is not None:
        result = on_cluster(result, replication.cluster)
    return result


def replicated_engines(statement: str) -> str:
    """Every MergeTree-family ``ENGINE = X[(args)]`` of ``statement`` as ``ReplicatedX(path, replica[, args])``."""
    out: list[str] = []
    pos = 0
    for match in _ENGINE.finditer(statement):
        kind = match.group(1)
        if kind.startswith(("Replicated", "Shared")):
            continue  # already replicated (a definition read back from a server)
        family = {name.lower(): name for name in MERGE_TREE_FAMILY}
        if kind.lower() not in family:
            raise WarehouseError(
                f"engine {kind} has no replicated form in the migration runner's rule "
                f"(cheetah_warehouse/replication.py knows {', '.join(MERGE_TREE_FAMILY)}); add it there"
            )
        kind = family[kind.lower()]
        end = match.end()
        args = ""
        rest = statement[end:]
        stripped = rest.lstrip()
        if stripped.startswith("("):
            start = end + (len(rest) - len(stripped))
            close = _closing_parenthesis(statement, start)
            args = statement[start + 1 : close].strip()
            end = close + 1
        params = [f"'{ZOOKEEPER_PATH}'", f"'{REPLICA_NAME}'"] + ([args] if args else [])
        out.append(statement[pos : match.start()])
        out.append(f"ENGINE = Replicated{kind}({', '.join(params)})")
        pos = end
    out.append(statement[pos:])
    return "".join(out)


def on_cluster(statement: str, cluster: str) -> str:
    """``statement`` with ``ON CLUSTER 'cluster'`` after its object's name (DDL), or unchanged
    (INSERT, SELECT); anything else is refused."""
    if re.search(r"\bON\s+CLUSTER\b", statement, re.I):
        return statement
    match = _DDL.match(statement)
    if match:
        return f"{match.group('head')} ON CLUSTER '{cluster}'{match.group('tail')}"
    if _PASS_THROUGH.match(statement):
        return statement
    first = statement.strip().splitlines()[0] if statement.strip() else ""
    raise WarehouseError(
        f"`{first}` has no ON CLUSTER form in the migration runner's rule (cheetah_warehouse/replication.py): "
        "it would run on one host only"
    )


def _closing_parenthesis(text: str, start: int) -> int:
    """Index of the parenthesis closing the one at ``start`` (quotes respected)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch in "'\"`":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise WarehouseError(f"unbalanced parentheses in `{text[start:start + 60]}`")
