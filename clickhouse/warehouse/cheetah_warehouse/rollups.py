"""Loading site prefixes, and rebuilding the rollups (clickhouse/migrations/0012, 0013).

Materialized views roll up rows as they arrive. After the site prefixes change, or when
rows were stored before a rollup existed, ``rebuild`` recomputes every rollup from its
source table with the view's own query (read back from ``system.tables``), so the SQL
stays in the migrations only.
"""

from __future__ import annotations

from typing import Callable

from .clients import SqlClient
from .errors import WarehouseError
from .sites import Sites


def load_site_prefixes(client: SqlClient, sites: Sites) -> int:
    """Replace ``site_prefixes`` with ``sites`` and reload the ``sites`` dictionary; return the prefix count."""
    params = sites.query_params()
    client.query("TRUNCATE TABLE site_prefixes")
    client.query(
        "INSERT INTO site_prefixes (prefix, site, loaded_at) SELECT p.1, p.2, now64(3) "
        "FROM (SELECT arrayJoin(arrayZip({site_prefixes:Array(String)}, {site_names:Array(String)})) AS p)",
        params=params,
    )
    client.query("SYSTEM RELOAD DICTIONARY sites")
    return sum(len(site.prefixes) for site in sites.sites)


def rollup_views(client: SqlClient) -> list[tuple[str, str, str]]:
    """(view, target table, SELECT) of every rollup view of the current database."""
    text = client.query(
        "SELECT v.name, v.as_select FROM system.tables AS v "
        "WHERE v.database = currentDatabase() AND v.engine = 'MaterializedView' "
        "AND match(v.name, '^(flows|link_load|link_stats)_1[mhd]_mv$|^flowsets_site_month_mv$') "
        "ORDER BY v.name",
        "TSVRaw",
    ).decode()
    views: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        name, select = line.split("\t")
        target = _target_of(client, name)
        views.append((name, target, select))
    return views


def rebuild(client: SqlClient, log: Callable[[str], None] = lambda _: None) -> list[str]:
    """Recompute every rollup from its source table; return the rebuilt tables."""
    rebuilt: list[str] = []
    for view, target, select in rollup_views(client):
        client.query(f"TRUNCATE TABLE {target}")
        # FINAL on the sources: a flowset stored twice before a merge counts once.
        client.query(f"INSERT INTO {target} {select} SETTINGS final = 1")
        log(f"rebuilt {target} from {view}")
        rebuilt.append(target)
    if not rebuilt:
        raise WarehouseError("no rollup views found: apply the migrations first (migrate)")
    return rebuilt


def _target_of(client: SqlClient, view: str) -> str:
    create = client.query(
        "SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = {v:String}",
        "TSVRaw",
        params={"v": view},
    ).decode()
    marker = " TO "
    start = create.index(marker) + len(marker)
    qualified = create[start:].split()[0]
    return qualified.split(".")[-1].strip("`")

