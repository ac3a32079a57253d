"""After import, Superset must hold for every virtual dataset and saved query the text of the
clickhouse/queries file its bundle names, byte for byte: the SQL the dashboards show is the SQL the
warehouse's tests and the benchmark run (docs/DASHBOARDS.md)."""

from __future__ import annotations

from dataclasses import dataclass

from cheetah_dashboards.bundles import Bundle
from cheetah_dashboards.superset_api import SupersetApi

# Bundle kind -> (how Superset names one, the key naming it in the bundle and in the API).
_KINDS = {"datasets": ("dataset", "table_name"), "queries": ("saved query", "label")}


@dataclass(frozen=True)
class ShownSql:
    what: str  # "dataset noc_link_load", "saved query <label>"
    sql_file: str  # as the bundle names it, relative to clickhouse/queries
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None

    def describe(self) -> str:
        if self.ok:
            return f"ok    {self.what}: Superset holds {self.sql_file} byte for byte"
        return f"FAIL  {self.what}: {self.error}"


def check_shown_sql(api: SupersetApi, bundles: list[Bundle]) -> list[ShownSql]:
    held = {("dataset", str(d["table_name"])): d.get("sql") for d in api.datasets()}
    held |= {("saved query", str(q["label"])): q.get("sql") for q in api.saved_queries()}
    results: dict[tuple[str, str], ShownSql] = {}
    for bundle in bundles:
        for kind, (noun, key) in _KINDS.items():
            for doc in bundle.of_kind(kind).values():
                if "sql_file" not in doc:
                    continue
                name = (noun, str(doc[key]))
                text = (bundle.queries_dir / doc["sql_file"]).read_text()
                if name not in held:
                    error: str | None = "not in Superset after import"
                elif held[name] != text:
                    error = f"Superset holds SQL that differs from {doc['sql_file']} (a stale or edited copy)"
                else:
                    error = None
                results[name] = ShownSql(f"{noun} {name[1]}", str(doc["sql_file"]), error)
    return [results[k] for k in sorted(results)]
