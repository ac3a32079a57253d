"""The bundles are consistent on their own: what charts and dashboards refer to exists."""

import io
import zipfile
from typing import Any

import pytest

from cheetah_dashboards.bundles import BUNDLES_DIR, Bundle, load_bundles
from cheetah_dashboards.query_context import BUILDERS

BUNDLES = load_bundles()


def _datasets(bundle: Bundle) -> dict[str, dict[str, Any]]:
    return {str(doc["uuid"]): doc for doc in bundle.of_kind("datasets").values()}


def _referenced_columns(params: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for key in ("groupby", "columns", "all_columns"):
        names.update(c for c in params.get(key) or [] if isinstance(c, str))
    for key in ("x_axis", "granularity_sqla"):
        if isinstance(params.get(key), str):
            names.add(params[key])
    names.update(f["subject"] for f in params.get("adhoc_filters") or [] if f.get("expressionType") == "SIMPLE")
    return names


def _referenced_metrics(params: dict[str, Any]) -> set[str]:
    metrics = [*(params.get("metrics") or []), params.get("metric"), params.get("timeseries_limit_metric")]
    return {m for m in metrics if isinstance(m, str)}


def test_the_three_dashboards_are_there() -> None:
    names = {b.name for b in BUNDLES}
    assert {"noc", "planners", "redirects"} <= names, f"bundles in {BUNDLES_DIR}: {names}"


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda b: b.name)
def test_charts_use_columns_and_metrics_their_dataset_defines(bundle: Bundle) -> None:
    datasets = _datasets(bundle)
    for rel, chart in bundle.of_kind("charts").items():
        dataset = datasets.get(str(chart["dataset_uuid"]))
        assert dataset is not None, f"{rel}: dataset {chart['dataset_uuid']} is not in bundle {bundle.name}"
        columns = {c["column_name"] for c in dataset["columns"]}
        metrics = {m["metric_name"] for m in dataset["metrics"]}
        params = chart["params"]
        assert params["viz_type"] == chart["viz_type"], rel
        assert chart["viz_type"] in BUILDERS, f"{rel}: no query builder for {chart['viz_type']}"
        assert _referenced_columns(params) <= columns, f"{rel}: unknown columns {_referenced_columns(params) - columns}"
        assert _referenced_metrics(params) <= metrics, f"{rel}: unknown metrics {_referenced_metrics(params) - metrics}"


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda b: b.name)
def test_dashboard_layouts_place_every_chart_of_the_bundle_once(bundle: Bundle) -> None:
    charts = {str(doc["uuid"]) for doc in bundle.of_kind("charts").values()}
    placed: list[str] = []
    for doc in bundle.of_kind("dashboards").values():
        position = doc["position"]
        for item_id, item in position.items():
            if not isinstance(item, dict):
                continue
            for child in item.get("children", []):
                assert child in position, f"{bundle.name}: {item_id} names a missing child {child}"
            if item.get("type") == "CHART":
                placed.append(str(item["meta"]["uuid"]))
        for native_filter in doc["metadata"]["native_filter_configuration"]:
            for target in native_filter["targets"]:
                if "datasetUuid" in target:
                    assert target["datasetUuid"] in _datasets(bundle), f"{native_filter['name']}: unknown dataset"
    assert sorted(placed) == sorted(charts)


def test_uuids_are_unique_and_shared_files_identical_across_bundles() -> None:
    owner: dict[str, tuple[str, str]] = {}
    for bundle in BUNDLES:
        for rel, doc in bundle.files.items():
            if "uuid" not in doc:
                continue
            key = str(doc["uuid"])
            text = (bundle.path / rel).read_text()
            if key in owner:
                other_bundle, other_rel = owner[key]
                other_text = (BUNDLES_DIR / other_bundle / other_rel).read_text()
                assert text == other_text, f"{bundle.name}/{rel} and {other_bundle}/{other_rel} share uuid {key}"
            owner[key] = (bundle.name, rel)


def test_the_database_carries_no_host_port_or_password() -> None:
    for bundle in BUNDLES:
        for rel, doc in bundle.of_kind("databases").items():
            assert doc["sqlalchemy_uri"] == "clickhousedb://warehouse.invalid/default", f"{bundle.name}/{rel}"
            assert "password" not in doc


def test_zip_has_one_root_folder_and_saved_queries_go_separately() -> None:
    planners = next(b for b in BUNDLES if b.name == "planners")
    names = zipfile.ZipFile(io.BytesIO(planners.zip_bytes(include_queries=False))).namelist()
    assert "cheetah_planners/metadata.yaml" in names
    assert all(n.startswith("cheetah_planners/") and "/queries/" not in n for n in names)
    queries = planners.queries_zip_bytes()
    assert queries is not None
    query_names = zipfile.ZipFile(io.BytesIO(queries)).namelist()
    assert sum(n.startswith("cheetah_planners_queries/queries/") for n in query_names) >= 3
