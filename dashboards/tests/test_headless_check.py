"""The headless dashboard check on the demo dataset (issue 5), end to end with real services:
the embedded warehouse on a copy of the demo data, Superset 6.1 (gunicorn), Chromium 156.

One run (~3.5 min on 2 cores) checks the real bundles (the Throughput charts' values against
hand-computed ones from the generated episode of clickhouse/queries/dashboards_check/) and a fixture bundle whose charts must
fail (no rows; an SQL error), so the test also proves the check can fail and names the chart.
"""

import os
from pathlib import Path

import pytest

from cheetah_dashboards.bundles import load_bundle, load_bundles
from cheetah_dashboards.check_fixtures import warehouse_query
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
    return run_check(bundles, DEMO, work / "png", "check-password", work / "run", log=lambda _line: None,
                     prepare_copy=_only_the_generated_throughput)


def _only_the_generated_throughput(url: str) -> None:
    """Empties throughput and alerts in the check's COPY, so that the Throughput charts draw the
    generated episode whose values are worked out by hand below, whatever the demo's data holds
    (once the demo runs the throughput job, its copy is no longer empty)."""
    for table in ("throughput", "alerts", "fabric_links"):
        warehouse_query(url, f"TRUNCATE TABLE {table}")


def test_every_chart_of_the_real_dashboards_returns_rows(report) -> None:  # type: ignore[no-untyped-def]
    real = [c for c in report.charts if c.dashboard != "Check fixture"]
    expected = sum(len(b.of_kind("charts")) for b in load_bundles())
    assert len(real) == expected
    assert [c.describe() for c in real if not c.ok] == []


def test_the_incast_charts_draw_the_generated_episode_and_the_check_says_so(report) -> None:  # type: ignore[no-untyped-def]
    """The demo runs no incast guard: the check fills its copy's incast_guard with the generated
    episode (600 samples x 2 receivers), reports it, and the three incast charts have rows."""
    fixtures = {f.table: f for f in report.fixtures}
    incast_guard = fixtures["incast_guard"]
    assert (incast_guard.rows_before, incast_guard.rows_after, incast_guard.error) == (0, 1200, None)
    assert "not a measurement" in incast_guard.describe()
    incast = [c for c in report.charts if c.dashboard == "NOC" and c.chart.startswith("Incast guard: ")]
    assert len(incast) == 3 and all(c.ok for c in incast), [c.describe() for c in incast]


def test_the_throughput_fixtures_are_inserted_and_said_to_be_generated(report) -> None:  # type: ignore[no-untyped-def]
    """The demo runs no throughput job: the check fills its copy's throughput (13 rows) and alerts
    (3 rows) from clickhouse/queries/dashboards_check/, and every file there is reported."""
    assert [(f.table, f.rows_before, f.rows_after, f.error) for f in report.fixtures] == [
        ("alerts", 0, 3, None), ("fabric_links", 0, 240, None), ("incast_guard", 0, 1200, None), ("throughput", 0, 13, None)]
    assert all("not a measurement" in f.describe() for f in report.fixtures)


def _throughput_chart(report, prefix: str):  # type: ignore[no-untyped-def]
    (chart,) = [c for c in report.charts if c.dashboard == "Throughput" and c.chart.startswith(prefix)]
    assert chart.ok, chart.describe()
    return chart


DTN1 = "dtn1.site-a.check-fixture → dtn1.site-b.check-fixture"
DTN2 = "dtn2.site-a.check-fixture → dtn2.site-b.check-fixture"
HOUR_MS = 3_600_000


def test_active_vs_passive_draws_the_hand_computed_forecast_band(report) -> None:  # type: ignore[no-untyped-def]
    """dtn1's passive series is 100..600 M at D + 0, 4, ..., 20 h (throughput.sql). Only the 6th has 5
    observations before it: mean 300 M, sample sd of (100, 200, 300, 400, 500) M = sqrt(100 000 / 4) M
    = 158.113883 M, so the band is 141.886117 M .. 458.113883 M; before it, no forecast and no band."""
    (rows,) = _throughput_chart(report, "Active vs passive").data
    by_time = sorted(rows, key=lambda r: r["start_at"])
    assert len(by_time) == 13  # 13 distinct start times
    day = by_time[0]["start_at"]  # D: dtn1's first observation, at midnight UTC
    assert day % (24 * HOUR_MS) == 0
    last = next(r for r in by_time if r["start_at"] == day + 20 * HOUR_MS)
    assert last[f"passive, {DTN1}"] == 600e6
    assert last[f"forecast, {DTN1}"] == 300e6
    assert last[f"band_low, {DTN1}"] == pytest.approx(141_886_117.0, abs=1.0)
    assert last[f"band_high, {DTN1}"] == pytest.approx(458_113_883.0, abs=1.0)
    assert last[f"forecast_ewma, {DTN1}"] == 406.25e6
    fifth = next(r for r in by_time if r["start_at"] == day + 16 * HOUR_MS)
    assert fifth[f"passive, {DTN1}"] == 500e6 and fifth[f"band_low, {DTN1}"] is None and fifth[f"forecast, {DTN1}"] is None
    actives = {r["start_at"] - day: r[f"active, {DTN1}"] for r in by_time if r[f"active, {DTN1}"] is not None}
    assert actives == {250 * 60_000: 190e6, 490 * 60_000: 280e6, 730 * 60_000: 410e6}


def test_the_diurnal_curve_is_the_newest_fit_with_abs_a(report) -> None:  # type: ignore[no-untyped-def]
    """The newest dtn1 passive fit is a = -100 M, b = pi/2, c = 350 M: f = 100 M * cos(x) + 350 M, so
    450 M at 00:00, 350 M at 06:00, 250 M at 12:00, 350 M at 18:00 and 450 M at 24:00 (97 points,
    every 15 min). Without |a| it would be 250 M at 00:00; the older fits (a flat 300 M) are unused."""
    fit, observed = _throughput_chart(report, "Diurnal fit").data
    curve = {r["time_of_day"]: r[f"fit, {DTN1}, passive"] for r in fit}
    assert len(curve) == 97
    for hour, expected in ((0, 450e6), (6, 350e6), (12, 250e6), (18, 350e6), (24, 450e6)):
        assert curve[hour * HOUR_MS] == pytest.approx(expected, abs=1e-3), hour
    points = {r["time_of_day"]: r[f"observed, {DTN1}, passive"] for r in observed if r[f"observed, {DTN1}, passive"]}
    assert points == {h * HOUR_MS: (h / 4 + 1) * 100e6 for h in (0, 4, 8, 12, 16, 20)}


def test_peers_side_by_side_by_site_pair_with_hand_computed_medians(report) -> None:  # type: ignore[no-untyped-def]
    (rows,) = _throughput_chart(report, "Peers side by side").data
    got = {(r["site_pair"], r["host_pair"], r["source"]): (r["observations"], r["median_bps"], r["max_bps"]) for r in rows}
    sites = "site-a.check-fixture → site-b.check-fixture"
    assert got == {
        (sites, DTN1, "passive"): (6, 350e6, 600e6),  # median of 100..600 M: (300 + 400) / 2
        (sites, DTN1, "active"): (3, 280e6, 410e6),
        (sites, DTN2, "passive"): (2, 60e6, 70e6),  # (50 + 70) / 2
        (sites, DTN2, "active"): (1, 55e6, 55e6),
        ("198.51.100.0/24 → 203.0.113.0/24", "198.51.100.7 → 203.0.113.9", "passive"): (1, 900e6, 900e6),
    }


def test_the_prca_list_is_every_alert_newest_first(report) -> None:  # type: ignore[no-untyped-def]
    (rows,) = _throughput_chart(report, "PRCA reports").data
    assert [(r["kind"], r["severity"], r["host_pair"], r["value"], r["expected"]) for r in rows] == [
        ("prca", "info", DTN2, 70e6, 350e6),  # D + 21:40
        ("outside_band", "warning", DTN1, 600e6, 300e6),  # D + 20:10
        ("prca", "warning", DTN2, 60e6, 350e6),  # D + 05:10
    ]
    assert "receiver disk saturated" in rows[2]["message"]


def _fabric_chart(report, prefix: str):  # type: ignore[no-untyped-def]
    (chart,) = [c for c in report.charts if c.dashboard == "Fabric" and c.chart.startswith(prefix)]
    assert chart.ok, chart.describe()
    return chart


UP1, DOWN1, UP2, DOWN2 = "leaf1:2>spine1:1", "spine1:2>leaf2:2", "leaf1:3>spine2:1", "spine2:2>leaf2:3"


def _series(rows, link: str):  # type: ignore[no-untyped-def]
    """A link's values by the round's offset in seconds (the series' name holds the link id)."""
    start = min(r["round_at"] for r in rows)
    return {(r["round_at"] - start) // 1000: v for r in rows for k, v in r.items() if k != "round_at" and link in k}


def test_the_fabric_utilisation_and_elephants_are_the_episode_worked_by_hand(report) -> None:  # type: ignore[no-untyped-def]
    """clickhouse/queries/dashboards_check/fabric_links.sql: 10 Mb/s links; spine1's carry B (3.5 Mb/s,
    35 %) and, in round 10 only, A too (8 Mb/s, 80 %, two elephants); spine2's 0.5 Mb/s (5 %) up to
    round 10, then A (5 Mb/s, 50 %, one elephant)."""
    (rows,) = _fabric_chart(report, "Link utilisation").data
    assert len(rows) == 60
    for link in (UP1, DOWN1):
        assert _series(rows, link) == {r: 80.0 if r == 10 else 35.0 for r in range(60)}
    for link in (UP2, DOWN2):
        assert _series(rows, link) == {r: 5.0 if r <= 10 else 50.0 for r in range(60)}
    (rows,) = _fabric_chart(report, "Elephants per link").data
    assert _series(rows, UP1) == {r: 2 if r == 10 else 1 for r in range(60)}
    assert _series(rows, UP2) == {r: 0 if r <= 10 else 1 for r in range(60)}
    (rows,) = _fabric_chart(report, "Links: rounds over").data
    got = {r["link_id"]: (r["rounds"], r["rounds_over"], r["utilisation_max"], r["elephants_max"]) for r in rows}
    assert got == {UP1: (60, 1, 80.0, 2), DOWN1: (60, 1, 80.0, 2), UP2: (60, 0, 50.0, 1), DOWN2: (60, 0, 50.0, 1)}


def test_the_reroute_is_listed_with_its_effect_on_the_link(report) -> None:  # type: ignore[no-untyped-def]
    """The one reroute (round 10, spine1's up-link): 80 % in its round, 35 % in each of the next 5."""
    (rows,) = _fabric_chart(report, "Reroutes and their effect").data
    assert [(r["link_id"], r["command_id"]) for r in rows] == [(UP1, "check-fixture-reroute-1")]
    assert (rows[0]["before_pct"], rows[0]["after_pct"], rows[0]["change_pct"]) == pytest.approx((80.0, 35.0, -45.0), abs=1e-9)
    # The check's copy holds no decision of that id (the demo runs no fabric job).
    assert rows[0]["outcome"] == "not stored"


def test_saved_queries_return_rows(report) -> None:  # type: ignore[no-untyped-def]
    assert len(report.queries) == 3
    assert [q.describe() for q in report.queries if not q.ok] == []


def test_superset_holds_the_text_of_each_query_file_byte_for_byte(report) -> None:  # type: ignore[no-untyped-def]
    """What the dashboards show (Superset's copy after import) is what the warehouse's tests and the
    benchmark run: the files of clickhouse/queries/dashboards/."""
    named = {f"dataset {d['table_name']}" for b in load_bundles() for d in b.of_kind("datasets").values()}
    named |= {f"saved query {q['label']}" for b in load_bundles() for q in b.of_kind("queries").values()}
    assert len(named) == 26  # 23 virtual datasets (two shared by two bundles) and 3 saved queries
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
    assert set(shots) == {"NOC", "Planners", "Redirects", "Throughput", "Fabric", "Check fixture"}
    for name in ("NOC", "Planners", "Redirects", "Throughput", "Fabric"):
        assert shots[name].errors == [], name
        data = shots[name].path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 50_000, name
    # The SQL error is drawn as an error box: the browser half catches it too.
    assert any("no_such_column" in e or "error" in e.lower() for e in shots["Check fixture"].errors)
    assert not report.ok
