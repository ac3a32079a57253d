"""`import`: the bundles into a prepared Superset home, the database pointed at the warehouse."""

from __future__ import annotations

import sys
from pathlib import Path

from cheetah_dashboards.bundles import Bundle
from cheetah_dashboards.processes import run
from cheetah_dashboards.superset_home import ADMIN_USER, SupersetHome
from cheetah_dashboards.warehouse_uri import DATABASE_NAME, sqlalchemy_uri


def import_bundles(home: SupersetHome, bundles: list[Bundle], warehouse_url: str) -> list[Path]:
    """Zips each bundle into STATE/bundles/ and imports it; returns the zips written."""
    uri = sqlalchemy_uri(warehouse_url)
    out_dir = home.state_dir / "bundles"
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for bundle in bundles:
        dashboards_zip = out_dir / f"cheetah_{bundle.name}.zip"
        dashboards_zip.write_bytes(bundle.zip_bytes(include_queries=False))
        written.append(dashboards_zip)
        queries = bundle.queries_zip_bytes()
        queries_arg = "-"
        if queries is not None:
            queries_zip = out_dir / f"cheetah_{bundle.name}_queries.zip"
            queries_zip.write_bytes(queries)
            written.append(queries_zip)
            queries_arg = str(queries_zip)
        run(
            f"import of bundle {bundle.name}",
            [sys.executable, "-m", "cheetah_dashboards.import_in_app", str(dashboards_zip), queries_arg,
             DATABASE_NAME, ADMIN_USER],
            env={**home.env(), "CHEETAH_WAREHOUSE_SQLALCHEMY_URI": uri,
                 "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        )
    return written
