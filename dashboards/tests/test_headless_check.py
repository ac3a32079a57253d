"""The headless dashboard check on the demo dataset (issue 5), end to end with real services:
the embedded warehouse on a copy of the demo data, Superset 6.1 (gunicorn), Chromium 156.

One run (~2.5 min on 2 cores) checks the real bundles and a fixture bundle whose charts must
fail (no rows; an SQL error), so the test also proves the check can fail and names the chart.
"""

import os
from pathlib import Path

import pytest

from cheetah_dashboards.bundles import load_bundle, load_bundles
from cheetah_dashboards.headless_check import run_check

REPO = Path(__file__).resolve().parents[2]
DEMO = Path(os.environ.get("CHEETAH_DEMO_WAREHOUSE", REPO / ".cheetah" / "demo" / "warehouse"))
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "bundles" / "broken"
FIXTURE_QUERIES = FIXTURE.parents[1] / "queries"  # the fixture's deliberately broken SQL
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    if not (DEMO / "metadata").is_dir():
        pytest.fail(f"no demo warehouse at {DEMO}: run `./cheetah demo` first (or set CHEETAH_DEMO_WAREHOUSE)")
    work = tmp_path_factory.mktemp("check")
    bundles = [*load_bundles(), load_bundle(FIXTURE, FIXTURE_QUERIES)]
    return run_check(bundles, DEMO, work / "png", "check-password", work / "run", log=lambda _line: None)


def test_every_chart_of_the_real_dashboards_returns_rows(report) -> None:  # type: ignore[no-untyped-def]
    real = [c for c in report.charts if c.dashboard != "Check fixture"]
    expected = sum(len(b.of_kind("charts")) for b in load_bundles())
    assert len(real) == expected
    assert [c.describe() for c in real if not c.ok] == []


def test_the_incast_charts_draw_the_generated_episode_and_the_check_says_so(report) -> None:  # type: ignore[no-untyped-def]
    """The demo runs no incast guard: the check fills its copy's incast_guard with the generated
    episode (600 samples x 2 receivers), reports it, and the three incast charts have rows."""
    assert [(f.table, f.rows_before, f.rows_after, f.error) for f in report.fixtures] == [("incast_guard", 0, 1200, None)]
    assert "not a measurement" in report.fixtures[0].describe()
    incast = [c for c in report.charts if c.dashboard == "NOC" and c.chart.startswith("Incast guard: ")]
    assert len(incast) == 3 and all(c.ok for c in incast), [c.describe() for c in incast]


def test_saved_queries_return_rows(report) -> None:  # type: ignore[no-untyped-def]
    assert len(report.queries) == 3
    assert [q.describe() for q in report.queries if not q.ok] == []


def test_superset_holds_the_text_of_each_query_file_byte_for_byte(report) -> None:  # type: ignore[no-untyped-def]
    """What the dashboards show (Superset's copy after import) is what the warehouse's tests and the
    benchmark run: the files of clickhouse/queries/dashboards/."""
    named = {f"dataset {d['table_name']}" for b in load_bundles() for d in b.of_kind("datasets").values()}
    named |= {f"saved query {q['label']}" for b in load_bundles() for q in b.of_kind("queries").values()}
    assert len(named) == 21  # 18 virtual datasets (two shared by two bundles) and 3 saved queries
    assert named <= {s.what for s in report.shown_sql}
    assert [s.describe() for s in report.shown_sql if not s.ok] == []


def test_charts_without_rows_or_with_sql_errors_fail_by_name(report) -> None:  # type: ignore[no-untyped-def]
    failed = {c.chart: c for c in report.charts if c.dashboard == "Check fixture"}
    assert set(failed) == {"Fixture: chart without rows", "Fixture: chart with an SQL error"}
    assert failed["Fixture: chart without rows"].rows == 0 and not failed["Fixture: chart without rows"].ok
    assert "no_such_column" in (failed["Fixture: chart with an SQL error"].error or "")
    assert "FAIL  Check fixture / Fixture: chart without rows" in failed["Fixture: chart without rows"].describe()


def test_dashboards_render_without_error_boxes_and_are_saved_as_png(report) -> None:  # type: ignore[no-untyped-def]
    shots = {s.dashboard: s for s in report.screenshots}
    assert set(shots) == {"NOC", "Planners", "Redirects", "Check fixture"}
    for name in ("NOC", "Planners", "Redirects"):
        assert shots[name].errors == [], name
        data = shots[name].path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 50_000, name
    # The SQL error is drawn as an error box: the browser half catches it too.
    assert any("no_such_column" in e or "error" in e.lower() for e in shots["Check fixture"].errors)
    assert not report.ok
