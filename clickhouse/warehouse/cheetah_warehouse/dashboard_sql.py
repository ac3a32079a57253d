"""The dashboards' SQL outside Superset: the same files, run by the warehouse's tests and the benchmark.

Every virtual dataset and saved query of the Superset bundles (dashboards/bundles) names a file of
clickhouse/queries/dashboards/ and the bundle builder injects its text, so these files are exactly
the SQL the dashboards show (docs/DASHBOARDS.md). Superset renders a dataset's SQL as a Jinja
template and runs it as a subquery of each chart's query; this module does the two steps the
same way for the case the dashboards open with: no time range and no filter.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import DEFAULT_QUERIES_DIR
from .errors import WarehouseError

DASHBOARD_QUERIES_DIR = DEFAULT_QUERIES_DIR / "dashboards"

# A `{% if ... %} ... {% endif %}` block (Jinja's whitespace-control dashes allowed).
_IF_BLOCK = re.compile(r"\{%-?\s*if\b.*?%\}(?P<body>.*?)\{%-?\s*endif\s*-?%\}", re.S)


def dashboard_query_files(directory: Path = DASHBOARD_QUERIES_DIR) -> list[Path]:
    return sorted(directory.glob("*.sql"))


def unfiltered(path: Path) -> str:
    """The file as Superset renders it with no time range and no filter value.

    The datasets use Jinja only to apply the time range (`from_dttm`, `to_dttm`) and the native
    filters (`filter_values(...)`) inside their SQL, each as an `{% if %}` block that is false
    when unset, so rendering removes every such block. Any other Jinja is refused rather than
    guessed at: render it here the way Superset would before relying on this.
    """
    text = path.read_text(encoding="utf-8")
    for block in _IF_BLOCK.finditer(text):
        if re.search(r"\{%-?\s*(else|elif)\b", block.group("body")):
            raise WarehouseError(f"{path}: an {{% if %}} block with an else branch; unfiltered() only removes "
                                 "blocks that render empty when no filter is set")
    rendered = _IF_BLOCK.sub("", text)
    if "{{" in rendered or "{%" in rendered:
        raise WarehouseError(f"{path}: Jinja outside `{{% if %}} ... {{% endif %}}` blocks; teach "
                             "cheetah_warehouse.dashboard_sql.unfiltered() to render it as Superset does")
    return rendered


def whole_result(sql: str) -> str:
    """The query's every row and column computed once, answered in one row (rows, digest).

    Superset runs a virtual dataset as `FROM (<its SQL>) AS virtual_table` under each chart's
    aggregation; computing the whole relation is what a chart over the whole time range reads at
    most. For a saved query it is its full answer, without the transfer of the rows.
    """
    return f"SELECT count() AS rows, sum(cityHash64(*)) AS digest FROM (\n{sql}\n) AS virtual_table"
