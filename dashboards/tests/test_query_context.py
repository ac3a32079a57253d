"""Query contexts built from chart params: what the data API will run for each chart type."""

import json
from typing import Any

import pytest

from cheetah_dashboards.bundles import load_bundles
from cheetah_dashboards.errors import DashboardsError
from cheetah_dashboards.query_context import query_context_for

CHARTS = {doc["slice_name"]: doc["params"] for b in load_bundles() for doc in b.of_kind("charts").values()}


def _query(name: str) -> dict[str, Any]:
    context = query_context_for(name, CHARTS[name], 42)
    assert context["datasource"] == {"id": 42, "type": "table"}
    json.dumps(context)  # what is saved must be JSON
    (query,) = context["queries"]
    return query


def test_timeseries_puts_the_time_axis_first_with_its_grain() -> None:
    query = _query("Active cheetahs per minute, by detection source")
    axis, series = query["columns"]
    assert axis == {"columnType": "BASE_AXIS", "sqlExpression": "minute", "label": "minute",
                    "expressionType": "SQL", "timeGrain": "PT1M"}
    assert series == "source"
    assert [p["operation"] for p in query["post_processing"]] == ["pivot", "flatten"]


def test_raw_table_keeps_column_order_and_sorts_by_bytes_descending() -> None:
    query = _query("Largest transfers")
    assert query["columns"][:3] == ["start_at", "site", "src"]
    assert query["metrics"] == []
    assert query["orderby"] == [("bytes", False)]
    assert query["row_limit"] == 10
    assert {"col": "direction", "op": "==", "val": "out"} in query["filters"]


def test_box_plot_distributes_across_flowsets() -> None:
    query = _query("Rate by number of flows (bit/s)")
    assert query["columns"] == ["flowset_id", "n_bucket"]
    assert query["post_processing"][0]["operation"] == "boxplot"


def test_big_number_asks_for_its_one_metric() -> None:
    assert _query("Cheetah volume")["metrics"] == ["cheetah_bytes"]


def test_unknown_chart_type_names_the_chart_and_the_fix() -> None:
    with pytest.raises(DashboardsError, match="chart 'x'.*deck_arc.*query_context.py"):
        query_context_for("x", {"viz_type": "deck_arc"}, 1)
