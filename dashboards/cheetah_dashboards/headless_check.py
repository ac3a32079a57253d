"""`check`, end to end: warehouse on a copy of the data, generated rows for the tables the copy has
none of (check_fixtures.py), a fresh Superset, import, compare the SQL Superset holds with the files
the bundles name, ask every chart and saved query for data, screenshot every dashboard; everything
started is stopped by PID."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cheetah_dashboards.bundles import Bundle
from cheetah_dashboards.chart_data_check import ChartResult, check_dashboards
from cheetah_dashboards.check_fixtures import Fixture, fill_empty_tables
from cheetah_dashboards.importer import import_bundles
from cheetah_dashboards.saved_queries_check import QueryResult, check_saved_queries
from cheetah_dashboards.screenshots import Screenshot, screenshot_dashboards
from cheetah_dashboards.shown_sql_check import ShownSql, check_shown_sql
from cheetah_dashboards.superset_api import SupersetApi
from cheetah_dashboards.superset_home import ADMIN_USER, SupersetHome
from cheetah_dashboards.superset_server import running_superset
from cheetah_dashboards.warehouse import running_warehouse_copy


@dataclass
class CheckReport:
    fixtures: list[Fixture] = field(default_factory=list)
    charts: list[ChartResult] = field(default_factory=list)
    queries: list[QueryResult] = field(default_factory=list)
    shown_sql: list[ShownSql] = field(default_factory=list)
    screenshots: list[Screenshot] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (bool(self.charts) and all(c.ok for c in self.charts) and all(q.ok for q in self.queries)
                and all(f.ok for f in self.fixtures) and all(s.ok for s in self.shown_sql)
                and all(s.ok for s in self.screenshots))

    def lines(self) -> list[str]:
        out = [f.describe() for f in self.fixtures]
        out += [s.describe() for s in self.shown_sql]
        out += [c.describe() for c in self.charts] + [q.describe() for q in self.queries]
        for shot in self.screenshots:
            if shot.ok:
                out.append(f"ok    screenshot {shot.dashboard}: {shot.charts} charts rendered -> {shot.path}")
            else:
                out.append(f"FAIL  screenshot {shot.dashboard} ({shot.path}): error boxes shown: {shot.errors}")
        out.append("timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings.items()))
        return out


def _dashboard_slugs(bundles: list[Bundle]) -> list[tuple[str, str, int]]:
    """(title, slug, number of charts) of every dashboard in the bundles, from their layouts."""
    found = []
    for bundle in bundles:
        for doc in bundle.of_kind("dashboards").values():
            charts = sum(1 for item in doc["position"].values()
                         if isinstance(item, dict) and item.get("type") == "CHART")
            found.append((str(doc["dashboard_title"]), str(doc["slug"]), charts))
    return found


def run_check(bundles: list[Bundle], warehouse_data: Path, screenshots_dir: Path | None, admin_password: str,
              work_dir: Path | None = None, log: Callable[[str], None] = print,
              prepare_copy: Callable[[str], None] | None = None) -> CheckReport:
    """The check (module docstring). `prepare_copy(url)`, if given, runs against the warehouse COPY
    before the generated rows go in (a test empties tables there so that what it checks is the
    generated episode it worked out by hand; the data directory itself is never written)."""
    report = CheckReport()
    own_work_dir = work_dir is None
    work = work_dir or Path(tempfile.mkdtemp(prefix="cheetah-dashboards-check-"))
    started = time.monotonic()

    def lap(name: str) -> None:
        nonlocal started
        report.timings[name] = time.monotonic() - started
        started = time.monotonic()

    try:
        with running_warehouse_copy(warehouse_data, work) as warehouse:
            log(f"warehouse (pid {warehouse.child.pid}) on a copy of {warehouse_data}: {warehouse.url}")
            lap("warehouse")
            if prepare_copy is not None:
                prepare_copy(warehouse.url)
            report.fixtures = fill_empty_tables(warehouse.url)
            lap("fixtures")
            home = SupersetHome(work / "superset", admin_password)
            home.initialise()
            lap("superset init")
            with running_superset(home) as superset:
                log(f"superset (pid {superset.child.pid}): {superset.url}")
                lap("superset start")
                import_bundles(home, bundles, warehouse.url)
                lap("import")
                api = SupersetApi.login(superset.url, ADMIN_USER, admin_password)
                report.shown_sql = check_shown_sql(api, bundles)
                report.charts = check_dashboards(api)
                seen = {c.dashboard for c in report.charts}
                for title, _slug, charts in _dashboard_slugs(bundles):
                    if title not in seen and charts:
                        report.charts.append(ChartResult(title, "(whole dashboard)", 0, 0,
                                                         "not in Superset after import, or without charts"))
                report.queries = check_saved_queries(api)
                lap("chart data")
                if screenshots_dir is not None:
                    report.screenshots = screenshot_dashboards(
                        superset.url, ADMIN_USER, admin_password, _dashboard_slugs(bundles), screenshots_dir)
                    lap("screenshots")
    finally:
        if own_work_dir:
            shutil.rmtree(work, ignore_errors=True)
    return report
