"""Dashboard bundles as code: bundles/<name>/ in Superset's export layout, zipped for import.

A bundle directory holds metadata.yaml, databases/, datasets/, charts/, dashboards/ and
optionally queries/ (saved SQL), exactly as Superset exports them, so a bundle exported from
a Superset UI can be dropped in and diffed.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cheetah_dashboards.errors import DashboardsError

BUNDLES_DIR = Path(__file__).resolve().parent.parent / "bundles"
KINDS = ("databases", "datasets", "charts", "dashboards", "queries")


@dataclass(frozen=True)
class Bundle:
    name: str
    path: Path
    files: dict[str, dict[str, Any]]  # path relative to the bundle -> parsed YAML

    def of_kind(self, kind: str) -> dict[str, dict[str, Any]]:
        return {rel: doc for rel, doc in self.files.items() if rel.startswith(f"{kind}/")}

    def zip_bytes(self, include_queries: bool = True) -> bytes:
        """The bundle as Superset's importer reads it: every file under one root folder."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for rel in sorted(self.files):
                if rel.startswith("queries/") and not include_queries:
                    continue
                archive.writestr(f"cheetah_{self.name}/{rel}", (self.path / rel).read_text())
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
                archive.writestr(f"cheetah_{self.name}_queries/{rel}", (self.path / rel).read_text())
        return buffer.getvalue()


def _parse(path: Path, rel: str) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise DashboardsError(f"{path}: not valid YAML ({error}); fix the file") from error
    if not isinstance(doc, dict):
        raise DashboardsError(f"{path}: expected a YAML mapping, found {type(doc).__name__}")
    return doc


def load_bundle(path: Path) -> Bundle:
    if not (path / "metadata.yaml").is_file():
        raise DashboardsError(f"{path} is not a dashboard bundle: metadata.yaml is missing")
    files: dict[str, dict[str, Any]] = {"metadata.yaml": _parse(path / "metadata.yaml", "metadata.yaml")}
    for kind in KINDS:
        for file in sorted((path / kind).rglob("*.yaml")):
            rel = file.relative_to(path).as_posix()
            files[rel] = _parse(file, rel)
    bundle = Bundle(name=path.name, path=path, files=files)
    if not bundle.of_kind("dashboards"):
        raise DashboardsError(f"{path}: no dashboards/*.yaml; a bundle carries at least one dashboard")
    return bundle


def load_bundles(root: Path = BUNDLES_DIR, names: list[str] | None = None) -> list[Bundle]:
    if not root.is_dir():
        raise DashboardsError(f"bundles directory {root} does not exist")
    available = sorted(p.name for p in root.iterdir() if (p / "metadata.yaml").is_file())
    wanted = names or available
    unknown = sorted(set(wanted) - set(available))
    if unknown:
        raise DashboardsError(f"unknown bundle(s) {', '.join(unknown)} in {root}; known: {', '.join(available)}")
    return [load_bundle(root / name) for name in wanted]
