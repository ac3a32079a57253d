"""Dashboard bundles as code: bundles/<name>/ in Superset's export layout, zipped for import.

A bundle directory holds metadata.yaml, databases/, datasets/, charts/, dashboards/ and
optionally queries/ (saved SQL), as Superset exports them, with one difference: a virtual
dataset or saved query names its SQL with `sql_file: dashboards/NAME.sql` (relative to
clickhouse/queries/) instead of carrying it, and the builder injects the file's text as `sql`
when it zips the bundle. The SQL then lives once, where the warehouse's tests and the benchmark
(clickhouse/bench/dashboard_queries.py) read it: the queries measured are the queries shown.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cheetah_dashboards.errors import DashboardsError

_REPO = Path(__file__).resolve().parents[2]
BUNDLES_DIR = _REPO / "dashboards" / "bundles"
QUERIES_DIR = _REPO / "clickhouse" / "queries"  # where `sql_file:` references point
KINDS = ("databases", "datasets", "charts", "dashboards", "queries")


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings (the injected SQL) as `|` blocks, so a built file reads like an export."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_BlockDumper.add_representer(str, _str)


@dataclass(frozen=True)
class Bundle:
    name: str
    path: Path
    files: dict[str, dict[str, Any]]  # path relative to the bundle -> parsed YAML, as written
    built: dict[str, str]  # path relative to the bundle -> YAML text as Superset imports it (SQL injected)
    queries_dir: Path  # where its `sql_file:` references point

    def of_kind(self, kind: str) -> dict[str, dict[str, Any]]:
        return {rel: doc for rel, doc in self.files.items() if rel.startswith(f"{kind}/")}

    def zip_bytes(self, include_queries: bool = True) -> bytes:
        """The bundle as Superset's importer reads it: every file under one root folder."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for rel in sorted(self.files):
                if rel.startswith("queries/") and not include_queries:
                    continue
                archive.writestr(f"cheetah_{self.name}/{rel}", self.built[rel])
        return buffer.getvalue()

    def queries_zip_bytes(self) -> bytes | None:
        """Saved SQL queries as their own bundle (Superset imports them separately), or None."""
        queries = self.of_kind("queries")
        if not queries:
            return None
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            meta = {"version": "1.0.0", "type": "SavedQuery", "timestamp": "2026-11-22T00:00:00+00:00"}
            archive.writestr(f"cheetah_{self.name}_queries/metadata.yaml", yaml.safe_dump(meta))
            for rel in sorted(queries) + sorted(self.of_kind("databases")):
                archive.writestr(f"cheetah_{self.name}_queries/{rel}", self.built[rel])
        return buffer.getvalue()


def _parse(path: Path, rel: str) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise DashboardsError(f"{path}: not valid YAML ({error}); fix the file") from error
    if not isinstance(doc, dict):
        raise DashboardsError(f"{path}: expected a YAML mapping, found {type(doc).__name__}")
    return doc


def _built(path: Path, doc: dict[str, Any], queries_dir: Path) -> str:
    """The file as Superset imports it: its `sql_file`'s text injected as `sql`, or unchanged."""
    if isinstance(doc.get("sql"), str):
        raise DashboardsError(
            f"{path}: carries its SQL inline (`sql:`); SQL lives only in {queries_dir}: move it to a .sql "
            f"file there and write `sql_file: <that file, relative to {queries_dir}>` instead")
    if "sql_file" not in doc:
        return path.read_text()
    ref = doc["sql_file"]
    if "sql" in doc:
        raise DashboardsError(f"{path}: has both `sql` and `sql_file`; keep only `sql_file`")
    if not isinstance(ref, str) or not ref.endswith(".sql"):
        raise DashboardsError(f"{path}: sql_file must name a .sql file relative to {queries_dir}, found {ref!r}")
    file = (queries_dir / ref).resolve()
    if not file.is_relative_to(queries_dir.resolve()) or not file.is_file():
        raise DashboardsError(
            f"{path}: sql_file {ref} is not a file in {queries_dir}; fix the reference or add the file")
    built = {("sql" if key == "sql_file" else key): (file.read_text() if key == "sql_file" else value)
             for key, value in doc.items()}
    return yaml.dump(built, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=1 << 16)


def load_bundle(path: Path, queries_dir: Path = QUERIES_DIR) -> Bundle:
    if not (path / "metadata.yaml").is_file():
        raise DashboardsError(f"{path} is not a dashboard bundle: metadata.yaml is missing")
    files: dict[str, dict[str, Any]] = {"metadata.yaml": _parse(path / "metadata.yaml", "metadata.yaml")}
    for kind in KINDS:
        for file in sorted((path / kind).rglob("*.yaml")):
            rel = file.relative_to(path).as_posix()
            files[rel] = _parse(file, rel)
    built = {rel: _built(path / rel, doc, queries_dir) for rel, doc in files.items()}
    bundle = Bundle(name=path.name, path=path, files=files, built=built, queries_dir=queries_dir)
    if not bundle.of_kind("dashboards"):
        raise DashboardsError(f"{path}: no dashboards/*.yaml; a bundle carries at least one dashboard")
    return bundle


def load_bundles(root: Path = BUNDLES_DIR, names: list[str] | None = None,
                 queries_dir: Path = QUERIES_DIR) -> list[Bundle]:
    if not root.is_dir():
        raise DashboardsError(f"bundles directory {root} does not exist")
    available = sorted(p.name for p in root.iterdir() if (p / "metadata.yaml").is_file())
    wanted = names or available
    unknown = sorted(set(wanted) - set(available))
    if unknown:
        raise DashboardsError(f"unknown bundle(s) {', '.join(unknown)} in {root}; known: {', '.join(available)}")
    return [load_bundle(root / name, queries_dir) for name in wanted]
