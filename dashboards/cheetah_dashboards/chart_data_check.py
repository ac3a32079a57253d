"""The data half of the headless check: every chart of every dashboard must return rows.

Each imported chart gets the query context its params imply (query_context.py), saved with it
so that GET /api/v1/chart/<id>/data/ (the API other tools and reports use) works; then that API
is asked for the data. A chart fails when the API errors or returns no rows (a mixed chart: when
neither of its two queries returns rows).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cheetah_dashboards.query_context import query_context_for
from cheetah_dashboards.superset_api import SupersetApi


@dataclass(frozen=True)
class ChartResult:
    dashboard: str
    chart: str
    chart_id: int
    rows: int
    error: str | None
    # The rows of each query the chart ran (one list per query: two for a mixed chart), as the
    # data API returned them after Superset's post-processing; the tests compare chart values.
    data: tuple[list[dict[str, Any]], ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None and self.rows > 0

    def describe(self) -> str:
        if self.ok:
            return f"ok    {self.dashboard} / {self.chart}: {self.rows} rows"
        reason = self.error or "no rows"
        return f"FAIL  {self.dashboard} / {self.chart} (chart id {self.chart_id}): {reason}"


def check_chart(api: SupersetApi, dashboard: str, chart_id: int) -> ChartResult:
    chart = api.chart(chart_id)
    name = str(chart["slice_name"])
    params = json.loads(chart["params"] or "{}")
    context = query_context_for(name, params, int(chart["datasource_id"] if "datasource_id" in chart
                                                  else params["datasource"].split("__")[0]))
    api.save_query_context(chart_id, json.dumps(context))
    body = api.chart_data(chart_id)
    if body["_status"] != 200:
        message = body.get("message") or body.get("errors") or body
        return ChartResult(dashboard, name, chart_id, 0, f"HTTP {body['_status']}: {str(message)[:400]}")
    results = body.get("result") or []
    errors = [r.get("error") for r in results if r.get("error")]
    if errors:
        return ChartResult(dashboard, name, chart_id, 0, str(errors[0])[:400])
    # Every query must return rows, except that a mixed chart draws as soon as one of its two does
    # (the diurnal fit: observations of a series not fitted yet are points without a curve).
    pick = max if params.get("viz_type") == "mixed_timeseries" else min
    rows = pick((len(r.get("data") or []) for r in results), default=0)
    return ChartResult(dashboard, name, chart_id, rows, None, tuple(list(r.get("data") or []) for r in results))


def check_dashboards(api: SupersetApi) -> list[ChartResult]:
    results: list[ChartResult] = []
    for dashboard in sorted(api.dashboards(), key=lambda d: str(d["dashboard_title"])):
        for chart in sorted(api.dashboard_charts(dashboard["id"]), key=lambda c: str(c["slice_name"])):
            results.append(check_chart(api, str(dashboard["dashboard_title"]), int(chart["id"])))
    return results
