"""The dashboards' SQL lives once, in clickhouse/queries/dashboards/; the bundles only name it, and
the builder injects each file's text, so what Superset shows is what the warehouse's tests and the
benchmark (clickhouse/bench/dashboard_queries.py) run."""

import io
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from cheetah_dashboards.bundles import BUNDLES_DIR, QUERIES_DIR, Bundle, load_bundle, load_bundles
from cheetah_dashboards.errors import DashboardsError

DASHBOARD_QUERIES = QUERIES_DIR / "dashboards"
SQL_KINDS = ("datasets", "queries")


def _bundle_yaml() -> list[tuple[Path, dict[str, Any]]]:
    """Every YAML file under dashboards/bundles, read directly (not through the builder)."""
    return [(path, yaml.safe_load(path.read_text())) for path in sorted(BUNDLES_DIR.rglob("*.yaml"))]


def _kind(path: Path) -> str:
    return path.relative_to(BUNDLES_DIR).parts[1]


def test_no_sql_text_stays_in_the_bundles() -> None:
    for path, doc in _bundle_yaml():
        rel = path.relative_to(BUNDLES_DIR)
        assert not isinstance(doc.get("sql"), str), f"{rel} carries SQL inline; move it to {DASHBOARD_QUERIES}"
        # SQL hidden under another key would also be a second copy.
        assert not re.search(r"\bSELECT\b", path.read_text()), f"{rel} holds a SELECT"
        if _kind(path) in SQL_KINDS:
            assert str(doc.get("sql_file", "")).startswith("dashboards/"), f"{rel}: no sql_file under dashboards/"


def test_every_reference_names_an_existing_file_and_every_file_is_shown() -> None:
    referenced = {doc["sql_file"] for path, doc in _bundle_yaml() if "sql_file" in doc}
    on_disk = {f"dashboards/{p.name}" for p in DASHBOARD_QUERIES.glob("*.sql")}
    assert referenced - on_disk == set(), "references to missing files"
    # A file no bundle names would be benchmarked and tested without being shown.
    assert on_disk - referenced == set(), "files in clickhouse/queries/dashboards that no bundle shows"


def test_each_file_is_named_after_the_dataset_or_saved_query_that_shows_it() -> None:
    for path, doc in _bundle_yaml():
        if "sql_file" in doc:
            assert Path(doc["sql_file"]).stem == path.stem, path.relative_to(BUNDLES_DIR)


def _zipped_docs(bundle: Bundle) -> dict[str, dict[str, Any]]:
    docs: dict[str, dict[str, Any]] = {}
    blobs = [bundle.zip_bytes(include_queries=False), bundle.queries_zip_bytes()]
    for blob in blobs:
        if blob is None:
            continue
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            for name in archive.namelist():
                rel = name.split("/", 1)[1]
                if rel.split("/", 1)[0] in SQL_KINDS:
                    docs[rel] = yaml.safe_load(archive.read(name))
    return docs


@pytest.mark.parametrize("bundle", load_bundles(), ids=lambda b: b.name)
def test_the_built_bundle_carries_each_file_text_byte_for_byte(bundle: Bundle) -> None:
    zipped = _zipped_docs(bundle)
    written = {rel: doc for kind in SQL_KINDS for rel, doc in bundle.of_kind(kind).items()}
    assert set(zipped) == set(written)
    for rel, doc in written.items():
        text = (QUERIES_DIR / doc["sql_file"]).read_bytes().decode()
        assert zipped[rel]["sql"] == text, f"{bundle.name}/{rel}: the zip's SQL differs from {doc['sql_file']}"
        assert "sql_file" not in zipped[rel]
        # Everything else is the bundle file's own content, unchanged.
        assert {k: v for k, v in zipped[rel].items() if k != "sql"} == {k: v for k, v in doc.items() if k != "sql_file"}


def _copy_bundle(tmp_path: Path, name: str = "planners") -> Path:
    copy = tmp_path / name
    shutil.copytree(BUNDLES_DIR / name, copy)
    return copy


def test_the_builder_refuses_inline_sql(tmp_path: Path) -> None:
    bundle = _copy_bundle(tmp_path)
    dataset = bundle / "datasets" / "cheetah_warehouse" / "planners_flowsets.yaml"
    dataset.write_text(dataset.read_text().replace("sql_file: dashboards/planners_flowsets.sql", "sql: SELECT 1"))
    with pytest.raises(DashboardsError, match=r"planners_flowsets\.yaml: carries its SQL inline"):
        load_bundle(bundle)


def test_the_builder_names_a_missing_sql_file(tmp_path: Path) -> None:
    bundle = _copy_bundle(tmp_path)
    query = bundle / "queries" / "Cheetah_warehouse" / "busiest_site_pairs.yaml"
    query.write_text(query.read_text().replace("busiest_site_pairs.sql", "no_such_query.sql"))
    with pytest.raises(DashboardsError, match=r"busiest_site_pairs\.yaml: sql_file dashboards/no_such_query\.sql is not a file"):
        load_bundle(bundle)


def test_the_builder_injects_the_file_as_it_is_now(tmp_path: Path) -> None:
    """Edit a query file: the next build carries the edit (nothing cached or copied at rest)."""
    queries = tmp_path / "queries"
    shutil.copytree(QUERIES_DIR, queries)
    edited = queries / "dashboards" / "slow_large_transfers.sql"
    edited.write_text(edited.read_text().replace("LIMIT 100", "LIMIT 7"))
    bundle = load_bundle(BUNDLES_DIR / "planners", queries)
    sql = _zipped_docs(bundle)["queries/Cheetah_warehouse/slow_large_transfers.yaml"]["sql"]
    assert sql == edited.read_text() and sql.rstrip().endswith("LIMIT 7")
