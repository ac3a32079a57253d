"""``report``: the demo's terminal report, read from the warehouse.

The SQL lives in clickhouse/queries/report_*.sql; this module only runs it and
lays the results out as aligned tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .clients import SqlClient
from .errors import WarehouseError
from .sites import Sites
from .textable import count, human, render_table, seconds

N_BUCKETS = (("n_1", "N=1"), ("n_2_4", "2-4"), ("n_5_8", "5-8"), ("n_9_16", "9-16"), ("n_over_16", ">16"))
SHAPE_STATS = ("median", "mean", "p95", "p99", "max")


@dataclass(frozen=True)
class ReportData:
    flows: int
    rejected: int
    rejected_by_reason: list[dict[str, Any]]
    cheetahs: list[dict[str, Any]]
    flowsets_by_n: list[dict[str, Any]]
    flowset_shape: list[dict[str, Any]]


class QueryFiles:
    """Loads named SQL files from the queries directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, name: str) -> str:
        path = self.directory / f"{name}.sql"
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise WarehouseError(f"cannot read query file {path}: {exc.strerror}; pass --queries DIR") from None


def _rows(client: SqlClient, sql: str, params: dict[str, str] | None = None) -> list[dict[str, Any]]:
    data = client.query(sql, "JSONEachRow", params=params).decode("utf-8")
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def number(value: Any) -> float | None:
    """JSON numbers from ClickHouse: 64-bit integers arrive quoted, nan/inf as null or strings."""
    if value is None:
        return None
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return None if result != result else result  # NaN (empty group) -> None


def collect(client: SqlClient, queries: QueryFiles, sites: Sites) -> ReportData:
    site_params = sites.query_params()
    totals = _rows(client, queries.load("report_records"))[0]
    return ReportData(
        flows=int(totals["flows"]),
        rejected=int(totals["rejected"]),
        rejected_by_reason=_rows(client, queries.load("report_rejected_by_reason")),
        cheetahs=_rows(client, queries.load("report_cheetahs")),
        flowsets_by_n=_rows(client, queries.load("report_flowsets_by_n"), site_params),
        flowset_shape=_rows(client, queries.load("report_flowset_shape"), site_params),
    )


def _shape_cell(metric: str, value: float | None) -> str:
    if metric == "size":
        return human(value, "B")
    if metric == "rate":
        return human(value, "b/s")
    return seconds(value)


def render(data: ReportData, source: str) -> str:
    out: list[str] = [f"Cheetah warehouse report ({source})", ""]

    out.append("Records")
    out.append(
        render_table(
            ["", "records"],
            [["flow records stored", count(data.flows)], ["rejected", count(data.rejected)]],
            [False, True],
        )
    )
    if data.rejected_by_reason:
        out += ["", "Rejected by stage and reason"]
        out.append(
            render_table(
                ["stage", "reason", "records"],
                [[r["stage"], r["reason"], count(int(r["records"]))] for r in data.rejected_by_reason],
                [False, False, True],
            )
        )

    out += ["", "Cheetahs (latest event per flow)"]
    cheetah_rows = [
        [r["source"] or "total", count(int(r["flows"])), human(number(r["bytes"]), "B")] for r in data.cheetahs
    ]
    if not cheetah_rows:
        cheetah_rows = [["total", "0", "0 B"]]
    out.append(render_table(["source", "flows", "bytes"], cheetah_rows, [False, True, True]))

    out += ["", "Flowsets by N (member flows per parallel flowset)"]
    by_n = [
        [r["site"], r["direction"], *[count(int(r[key])) for key, _ in N_BUCKETS], count(int(r["sets"]))]
        for r in data.flowsets_by_n
    ] or [["all", "all", *["0"] * len(N_BUCKETS), "0"]]
    out.append(
        render_table(
            ["site", "direction", *[label for _, label in N_BUCKETS], "sets"],
            by_n,
            [False, False, *[True] * len(N_BUCKETS), True],
        )
    )

    out += ["", "Flowset shape: size, duration, rate (median, mean, 95th, 99th percentile, max)"]
    if data.flowset_shape:
        shape = [
            [r["site"], r["direction"], r["metric"], count(int(r["sets"]))]
            + [_shape_cell(r["metric"], number(r[stat])) for stat in SHAPE_STATS]
            for r in data.flowset_shape
        ]
        out.append(
            render_table(
                ["site", "direction", "metric", "sets", *SHAPE_STATS],
                shape,
                [False, False, False, True, *[True] * len(SHAPE_STATS)],
            )
        )
    else:
        out.append("  no flowsets stored yet")
    return "\n".join(out) + "\n"
