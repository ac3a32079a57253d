"""The dashboards' SQL (clickhouse/queries/dashboards/*.sql: every virtual dataset and saved query
the Superset bundles show, injected by their builder) runs and answers on a small generated year
(clickhouse/bench/year_of_flowsets.sql): rendered and wrapped exactly as the benchmark runs it
(cheetah_warehouse.dashboard_sql), as the read-only `dashboards` user Superset connects as (its
profile's settings change how ClickHouse resolves aliases: a query can pass as `default` and fail
in the dashboards, or the other way round)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_QUERIES_DIR, DEFAULT_USERS_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.dashboard_sql import DASHBOARD_QUERIES_DIR, dashboard_query_files, unfiltered, whole_result
from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.errors import WarehouseError
from cheetah_warehouse.migrations import split_statements
from cheetah_warehouse.rollups import load_site_prefixes
from cheetah_warehouse.sites import parse_sites
from cheetah_warehouse.users import load_users
from tests.warehouse_process import NO_BROKER

YEAR_SQL = DEFAULT_QUERIES_DIR.parent / "bench" / "year_of_flowsets.sql"
FLOWSETS = 3000
QUERIES = dashboard_query_files()
YEAR_DB = "t_saved_queries_year"
AS_DASHBOARDS = "test_saved_queries_dashboards"  # a session with the dashboards user's profile

# Rows each query answers on the generated year, worked out from what the generator writes (flowsets,
# one cheetah per member, six sites holding every address, nothing else): an int is exact, "cheetahs"
# one row per cheetah flow, ">=cheetahs" and ">0" are bounds, "runs" a table filled asynchronously.
EMPTY = 0  # the year writes no flow records, probe data, thresholds, redirects, incast-guard samples, throughput
EXPECTED: dict[str, int | str] = {
    "planners_flowsets": 2 * FLOWSETS,  # every flowset at its source and at its destination site
    "planners_site_month": ">0",
    "busiest_site_pairs": ">0",
    "flowsets_by_n_per_site": 2 * 6,  # in and out, per site
    "slow_large_transfers": ">0",
    "noc_cheetahs": "cheetahs",  # the latest event of each
    "noc_cheetah_minutes": ">=cheetahs",  # each cheetah in every minute it was active, at least one
    "noc_flows": EMPTY,
    "noc_flow_traffic": EMPTY,
    "noc_rejected": EMPTY,
    "noc_link_load": EMPTY,
    "noc_link_stats": EMPTY,
    "noc_thresholds": EMPTY,
    "noc_probe_counters": EMPTY,
    "noc_incast_guard": EMPTY,
    "redirect_ack_status": 4,  # zero-filled: applied, rejected, failed, duplicate
    "redirect_refusals_by_guardrail": 3,  # zero-filled: protected prefix, K rules per device, rate limit
    "redirect_commands_log": EMPTY,
    "redirect_decisions_log": EMPTY,
    "redirect_rules_state": EMPTY,
    "prefix_filter_daily": "runs",  # a refreshable view: its first refresh races the insert
    "throughput_observations": EMPTY,  # the year writes no throughput or alerts either
    "throughput_diurnal": EMPTY,
    "throughput_alerts": EMPTY,
    "fabric_links": EMPTY,  # nor fabric rounds
    "fabric_reroutes": EMPTY,
}


@pytest.fixture(scope="module")
def year(engine: EmbeddedEngine) -> Iterator[EngineClient]:
    """One generated year for the whole module (generation takes seconds; the queries only read)."""
    name = YEAR_DB
    engine.query(f"DROP DATABASE IF EXISTS {name} SYNC")
    engine.query(f"CREATE DATABASE {name}")
    client = EngineClient(engine, name)
    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": NO_BROKER}, log=lambda _: None)
    load_site_prefixes(client, parse_sites(json.dumps({f"site-{c}": [f"198.18.{i}.0/24"] for i, c in enumerate("abcdef", 1)})))
    start = (datetime.now(timezone.utc) - timedelta(days=365)).strftime("%Y-%m-%d %H:%M:%S.000")
    for statement in split_statements(YEAR_SQL.read_text()):
        engine.query(statement, params={"n": str(FLOWSETS), "year_start": start}, database=name)
    yield client
    engine.query(f"DROP DATABASE IF EXISTS {name} SYNC")


def as_dashboards(engine: EmbeddedEngine, sql: str) -> str:
    dashboards = load_users(sorted(DEFAULT_USERS_DIR.glob("*.xml")))["dashboards"]
    assert dashboards.settings.get("readonly") == "1"
    engine.add_session(AS_DASHBOARDS, dashboards.settings)
    return engine.query(sql, session=AS_DASHBOARDS, database=YEAR_DB).data.decode()


def test_the_generated_year_has_the_intended_shape(year: EngineClient) -> None:
    n, singles, flows, cheetahs, sites = year.query(
        "SELECT count(), countIf(single), sum(n_flows), (SELECT count() FROM cheetahs), uniqExact(dictGet('sites', 'site', src_addr)) "
        "FROM flowsets FINAL"
    ).decode().split()
    assert int(n) == FLOWSETS
    # Half the sets are single by construction; the other half draw N = floor(u^-0.8), u uniform,
    # so P(N = 1) = 1 - 2^-1.25.
    assert abs(int(singles) / FLOWSETS - (0.5 + 0.5 * (1 - 2**-1.25))) < 0.03
    assert int(cheetahs) == int(flows)  # one cheetah per member
    assert int(sites) == 6


def test_every_dashboard_query_has_an_expectation() -> None:
    assert QUERIES, f"no queries in {DASHBOARD_QUERIES_DIR}"
    assert {p.stem for p in QUERIES} == set(EXPECTED)


@pytest.mark.parametrize("path", QUERIES, ids=lambda p: p.stem)
def test_dashboard_query_answers(engine: EmbeddedEngine, year: EngineClient, path: Path) -> None:
    rows, _digest = as_dashboards(engine, whole_result(unfiltered(path))).split()
    expected = EXPECTED[path.stem]
    cheetahs = int(year.query("SELECT sum(n_flows) FROM flowsets FINAL").decode())  # one cheetah per member
    if isinstance(expected, int):
        assert int(rows) == expected, f"{path.name}: {rows} rows"
    elif expected == ">0":
        assert int(rows) > 0, f"{path.name} returned no rows"
    elif expected == "cheetahs":
        assert int(rows) == cheetahs > 0, f"{path.name}: {rows} rows for {cheetahs} cheetah flows"
    elif expected == ">=cheetahs":
        assert int(rows) >= cheetahs > 0, f"{path.name}: {rows} rows for {cheetahs} cheetah flows"
    else:
        assert expected == "runs", f"unknown expectation {expected!r}"


def test_unfiltered_renders_what_superset_renders_with_no_time_range_and_no_filter(tmp_path: Path) -> None:
    # The Jinja of redirect_ack_status as written, and by hand what it becomes with nothing set.
    sql = tmp_path / "q.sql"
    sql.write_text(
        "SELECT 1 FROM t\nWHERE 1\n"
        "    {% if from_dttm %}AND at >= '{{ from_dttm }}'{% endif %}\n"
        "    {% if filter_values('device_id', remove_filter=True) %}AND device_id IN "
        "{{ filter_values('device_id', remove_filter=True) | where_in }}{% endif %}\n"
    )
    assert unfiltered(sql) == "SELECT 1 FROM t\nWHERE 1\n    \n    \n"
    dashboard = DASHBOARD_QUERIES_DIR / "redirect_ack_status.sql"
    assert "{%" in dashboard.read_text() and not re.search(r"\{[{%]", unfiltered(dashboard))


@pytest.mark.parametrize("template", [
    "SELECT {{ from_dttm }}",
    "SELECT 1 {% if from_dttm %}WHERE a{% else %}WHERE b{% endif %}",
    "SELECT 1 {% if a %}{% if b %}x{% endif %}{% endif %}",
])
def test_unfiltered_refuses_jinja_it_cannot_render(tmp_path: Path, template: str) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text(template)
    with pytest.raises(WarehouseError, match=r"q\.sql: "):
        unfiltered(sql)
