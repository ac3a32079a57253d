"""The planners' and NOC saved queries (clickhouse/queries/planners_*.sql, noc_*.sql) run
and answer on a small generated year (clickhouse/bench/year_of_flowsets.sql)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_QUERIES_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.migrations import split_statements
from cheetah_warehouse.rollups import load_site_prefixes
from cheetah_warehouse.sites import parse_sites
from tests.warehouse_process import NO_BROKER

YEAR_SQL = DEFAULT_QUERIES_DIR.parent / "bench" / "year_of_flowsets.sql"
SAVED = sorted(DEFAULT_QUERIES_DIR.glob("planners_*.sql")) + sorted(DEFAULT_QUERIES_DIR.glob("noc_*.sql"))


@pytest.fixture
def year(engine: EmbeddedEngine, database: str) -> EngineClient:
    client = EngineClient(engine, database)
    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": NO_BROKER}, log=lambda _: None)
    load_site_prefixes(client, parse_sites(json.dumps({f"site-{c}": [f"198.18.{i}.0/24"] for i, c in enumerate("abcdef", 1)})))
    start = (datetime.now(timezone.utc) - timedelta(days=365)).strftime("%Y-%m-%d %H:%M:%S.000")
    for statement in split_statements(YEAR_SQL.read_text()):
        engine.query(statement, params={"n": "3000", "year_start": start}, database=database)
    return client


def test_the_generated_year_has_the_intended_shape(year: EngineClient) -> None:
    n, singles, flows, cheetahs, sites = year.query(
        "SELECT count(), countIf(single), sum(n_flows), (SELECT count() FROM cheetahs), uniqExact(dictGet('sites', 'site', src_addr)) "
        "FROM flowsets FINAL"
    ).decode().split()
    assert int(n) == 3000
    # Half the sets are single by construction; the other half draw N = floor(u^-0.8), u uniform,
    # so P(N = 1) = 1 - 2^-1.25.
    assert abs(int(singles) / 3000 - (0.5 + 0.5 * (1 - 2**-1.25))) < 0.03
    assert int(cheetahs) == int(flows)  # one cheetah per member
    assert int(sites) == 6


@pytest.mark.parametrize("path", SAVED, ids=lambda p: p.stem)
def test_saved_query_answers(year: EngineClient, path: Path) -> None:
    if path.stem == "noc_top_talkers":  # the year ends now: put some cheetahs into the last day
        year.query("ALTER TABLE cheetahs UPDATE end_at = now64(3) WHERE cityHash64(flow_id) % 10 = 0 SETTINGS mutations_sync = 1")
    text = year.query(path.read_text(), "TSV").decode()
    assert text.strip(), f"{path.name} returned no rows"
