"""Generated rows for the tables a warehouse copy has none of, so that every chart the check asks
has data: each file clickhouse/queries/dashboards_check/<table>.sql inserts a labelled, generated
episode into <table> (its header says what it is and why the demo cannot fill that table).

The check runs a file against ITS COPY of the data only, and only while <table> there is empty,
so rows a real run wrote are never mixed with generated ones; every file is reported, inserted or
not, so a chart drawn from generated rows is never passed off as a measurement (docs/DASHBOARDS.md).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from cheetah_dashboards.warehouse import REPO

FIXTURES_DIR = REPO / "clickhouse" / "queries" / "dashboards_check"
TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Fixture:
    table: str
    path: Path
    rows_before: int
    rows_after: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def inserted(self) -> int:
        return self.rows_after - self.rows_before

    def describe(self) -> str:
        where = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path
        if self.error is not None:
            return f"FAIL  fixture {self.table} ({where}): {self.error}"
        if self.inserted:
            return (f"ok    fixture {self.table}: no rows in the data; inserted {self.inserted:,} generated rows "
                    f"({where}; not a measurement)")
        return f"ok    fixture {self.table}: {self.rows_before:,} rows in the data, nothing generated"


def warehouse_query(url: str, sql: str) -> str:
    request = urllib.request.Request(url, data=sql.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return response.read().decode()
    except urllib.error.HTTPError as error:
        raise RuntimeError(error.read().decode(errors="replace").strip()[:400]) from error


def _count(url: str, table: str) -> int:
    return int(warehouse_query(url, f"SELECT count() FROM {table}").strip())


def fill_empty_tables(url: str, fixtures_dir: Path = FIXTURES_DIR) -> list[Fixture]:
    """Runs each fixture file whose table is empty at the warehouse `url` (a copy: never the data
    directory a run owns); one Fixture per file, in name order."""
    done = []
    for path in sorted(fixtures_dir.glob("*.sql")):
        table = path.stem
        before = after = 0
        try:
            before = after = _count(url, table)
            if before == 0:
                warehouse_query(url, path.read_text())
                after = _count(url, table)
                if after == 0:
                    raise RuntimeError("the file ran but inserted no rows")
        except (RuntimeError, OSError, ValueError) as error:
            done.append(Fixture(table, path, before, after, str(error)))
            continue
        done.append(Fixture(table, path, before, after))
    return done
