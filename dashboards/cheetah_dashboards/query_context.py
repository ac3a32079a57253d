"""A chart's query context (what GET /api/v1/chart/<id>/data runs), built from its params.

Superset's frontend builds a query context from a chart's params (form data) each time it
renders, and saves one only when a chart is saved in Explore; imported charts have none, so
the REST data API refuses them. This module builds it with Superset's own Python port of the
frontend's buildQuery (superset.migrations.shared.migrate_viz.query_functions, used by
Superset's viz migrations), plus the few per-chart-type steps of the frontend's buildQuery
for the chart types the bundles use. It must run inside Superset's venv.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

from superset.migrations.shared.migrate_viz.query_functions import (
    build_query_context,
    ensure_is_array,
    flatten_operator,
    get_x_axis_column,
    normalize_order_by,
    pivot_operator,
    remove_form_data_suffix,
    retain_form_data_suffix,
)

from cheetah_dashboards.errors import DashboardsError

QueryObject = dict[str, Any]
Builder = Callable[[dict[str, Any]], Callable[[QueryObject], list[QueryObject]]]


def _timeseries(form_data: dict[str, Any]) -> Callable[[QueryObject], list[QueryObject]]:
    """echarts_timeseries_* and echarts_area: x axis + series, pivoted by the x axis."""

    def build(base: QueryObject) -> list[QueryObject]:
        groupby = ensure_is_array(form_data.get("groupby"))
        query = {
            **base,
            "columns": ensure_is_array(get_x_axis_column(form_data)) + groupby,
            "series_columns": groupby,
            "orderby": normalize_order_by(base).get("orderby"),
        }
        query["post_processing"] = [pivot_operator(form_data, query), flatten_operator(form_data, query)]
        return [query]

    return build


def _table(form_data: dict[str, Any]) -> Callable[[QueryObject], list[QueryObject]]:
    """table: raw rows (all_columns, order_by_cols) or aggregates (groupby, metrics)."""

    def build(base: QueryObject) -> list[QueryObject]:
        if form_data.get("query_mode") == "raw":
            orderby = [
                tuple(item) if isinstance(item, list) else _parse_order(item)
                for item in ensure_is_array(form_data.get("order_by_cols"))
            ]
            return [{**base, "columns": ensure_is_array(form_data.get("all_columns")), "metrics": [],
                     "orderby": orderby, "post_processing": []}]
        metrics = ensure_is_array(base.get("metrics"))
        sort = form_data.get("timeseries_limit_metric") or (metrics[0] if metrics else None)
        orderby = [[sort, not form_data.get("order_desc", True)]] if sort else []
        return [{**base, "columns": ensure_is_array(form_data.get("groupby")), "orderby": orderby,
                 "post_processing": []}]

    return build


def _parse_order(item: str) -> tuple[str, bool]:
    # The frontend stores order_by_cols as JSON strings: '["bytes", false]' (column, ascending).
    column, ascending = json.loads(item)
    return column, bool(ascending)


def _big_number_total(form_data: dict[str, Any]) -> Callable[[QueryObject], list[QueryObject]]:
    def build(base: QueryObject) -> list[QueryObject]:
        return [{**base, "columns": [], "metrics": ensure_is_array(form_data.get("metric")), "orderby": [],
                 "post_processing": []}]

    return build


def _box_plot(form_data: dict[str, Any]) -> Callable[[QueryObject], list[QueryObject]]:
    """box_plot: one value per (distribute-across column, series), then Superset's boxplot step."""

    def build(base: QueryObject) -> list[QueryObject]:
        distribute = ensure_is_array(form_data.get("columns"))
        groupby = ensure_is_array(form_data.get("groupby"))
        metrics = ensure_is_array(base.get("metrics"))
        return [{
            **base,
            "columns": distribute + groupby,
            "series_columns": groupby,
            "orderby": [],
            "post_processing": [{
                "operation": "boxplot",
                "options": {
                    "whisker_type": "min/max" if form_data.get("whiskerOptions") == "Min/max (no outliers)" else "tukey",
                    "groupby": groupby,
                    "metrics": [m if isinstance(m, str) else m.get("label") for m in metrics],
                },
            }],
        }]

    return build


def _pie(form_data: dict[str, Any]) -> Callable[[QueryObject], list[QueryObject]]:
    def build(base: QueryObject) -> list[QueryObject]:
        metric = form_data.get("metric")
        return [{**base, "columns": ensure_is_array(form_data.get("groupby")), "metrics": [metric],
                 "orderby": [[metric, False]], "post_processing": []}]

    return build


BUILDERS: dict[str, Builder] = {
    "echarts_timeseries_line": _timeseries,
    "echarts_timeseries_bar": _timeseries,
    "echarts_timeseries_step": _timeseries,
    "echarts_area": _timeseries,
    "table": _table,
    "big_number_total": _big_number_total,
    "box_plot": _box_plot,
    "pie": _pie,
    # Each of its two queries (A, B) is a timeseries query; query_context_for builds both.
    "mixed_timeseries": _timeseries,
}


def _mixed_timeseries(form_data: dict[str, Any]) -> dict[str, Any]:
    """mixed_timeseries: two timeseries queries, A from the unsuffixed params and B from the `_b`
    ones (the frontend's buildQuery does the same with removeFormDataSuffix/retainFormDataSuffix)."""
    contexts = [build_query_context(half, _timeseries(half))
                for half in (remove_form_data_suffix(form_data, "_b"), retain_form_data_suffix(form_data, "_b"))]
    return {**contexts[0], "queries": contexts[0]["queries"] + contexts[1]["queries"], "form_data": form_data}


def query_context_for(chart_name: str, params: dict[str, Any], datasource_id: int) -> dict[str, Any]:
    """The query context of one chart, for the dataset with id datasource_id in this Superset."""
    viz_type = params.get("viz_type", "")
    if viz_type == "mixed_timeseries":
        form_data = copy.deepcopy(params)
        form_data["datasource"] = f"{datasource_id}__table"
        return _mixed_timeseries(form_data)
    builder = BUILDERS.get(viz_type)
    if builder is None:
        raise DashboardsError(
            f"chart {chart_name!r}: viz_type {viz_type!r} has no query builder in "
            f"cheetah_dashboards/query_context.py (known: {', '.join(sorted(BUILDERS))}); add one there"
        )
    form_data = copy.deepcopy(params)
    form_data["datasource"] = f"{datasource_id}__table"
    return build_query_context(form_data, builder(form_data))
