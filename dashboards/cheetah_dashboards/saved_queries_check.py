"""Saved SQL queries (bundles/*/queries/, their SQL in clickhouse/queries/dashboards/) must run in SQL
Lab and return rows."""

from __future__ import annotations

from dataclasses import dataclass

from cheetah_dashboards.errors import DashboardsError
from cheetah_dashboards.superset_api import SupersetApi


@dataclass(frozen=True)
class QueryResult:
    label: str
    rows: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None and self.rows > 0

    def describe(self) -> str:
        if self.ok:
            return f"ok    saved query / {self.label}: {self.rows} rows"
        return f"FAIL  saved query / {self.label}: {self.error or 'no rows'}"


def check_saved_queries(api: SupersetApi) -> list[QueryResult]:
    results: list[QueryResult] = []
    for saved in sorted(api.saved_queries(), key=lambda q: str(q["label"])):
        try:
            body = api.run_sql(int(saved["database"]["id"]), str(saved["sql"]), saved.get("schema"))
        except DashboardsError as error:
            results.append(QueryResult(str(saved["label"]), 0, str(error)[:400]))
            continue
        results.append(QueryResult(str(saved["label"]), len(body.get("data") or []), None))
    return results
