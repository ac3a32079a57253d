"""The check's generated rows (check_fixtures.py) on a real embedded warehouse: inserted only into
an empty table, exactly the episode its file describes (values worked out by hand from the file's
header), never a second time, and a file that fails is reported by name and fails the check."""

from pathlib import Path

import pytest

from cheetah_dashboards.check_fixtures import FIXTURES_DIR, fill_empty_tables, warehouse_query as query
from cheetah_dashboards.warehouse import RunningWarehouse, start_warehouse


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("fixtures")
    running: RunningWarehouse = start_warehouse(work / "data", work / "logs")
    try:
        yield running
    finally:
        running.child.stop()


def test_an_empty_table_gets_the_generated_episode_once(warehouse: RunningWarehouse) -> None:
    fixtures = {f.table: f for f in fill_empty_tables(warehouse.url)}
    assert sorted(fixtures) == ["alerts", "fabric_links", "incast_guard", "throughput"]
    first = fixtures["incast_guard"]
    assert (first.table, first.rows_before, first.rows_after, first.error) == ("incast_guard", 0, 1200, None)
    assert first.describe().startswith("ok    fixture incast_guard: no rows in the data; inserted 1,200 generated rows")
    # 10.9.0.1: B = 256 KiB, 1 to 30 senders (a sender more every 20 s), share 3B/(4n): 196608 at 1
    # sender, 196608 // 30 = 6553 at 30. 10.9.0.2: B = 64 KiB, 8 senders, share 6144; the last 20 s of
    # each of the 10 minutes hold 2 senders at 1 MSS and a backlog of 80 % of B (52428 B).
    assert query(warehouse.url, (
        "SELECT toString(receiver), count(), min(senders), max(senders), max(share_bytes), min(share_bytes), "
        "countIf(senders_one_mss = 2), max(max_backlog_bytes), uniqExact(device_id), any(device_id), "
        "dateDiff('second', min(at), max(at)) FROM incast_guard GROUP BY receiver ORDER BY receiver"
    )) == (
        "::ffff:10.9.0.1\t600\t1\t30\t196608\t6553\t0\t176947\t1\tcheck-fixture\t599\n"
        "::ffff:10.9.0.2\t600\t8\t8\t6144\t6144\t200\t52428\t1\tcheck-fixture\t599\n"
    )
    again = {f.table: f for f in fill_empty_tables(warehouse.url)}["incast_guard"]
    assert (again.rows_before, again.rows_after, again.error) == (1200, 1200, None)
    assert again.describe() == "ok    fixture incast_guard: 1,200 rows in the data, nothing generated"


def test_the_throughput_episode_is_the_one_its_header_describes(warehouse: RunningWarehouse) -> None:
    """throughput.sql and alerts.sql (their headers): 13 observations on day D (midnight UTC two days
    ago), 3 alerts; the values the Throughput charts are checked against (test_headless_check.py)."""
    fill_empty_tables(warehouse.url)
    assert query(warehouse.url, (
        "SELECT src_host, passive, count(), min(sum_stream_bps), max(sum_stream_bps), "
        "countIf(isFinite(forecast_mean5_bps)), countIf(isFinite(diurnal_a)), "
        "min(start_at) = toStartOfDay(now64(3, 'UTC')) - INTERVAL 2 DAY FROM throughput "
        "GROUP BY src_host, passive ORDER BY src_host, passive"
    )) == (
        "198.51.100.7\ttrue\t1\t900000000\t900000000\t0\t0\t0\n"
        "dtn1.site-a.check-fixture\tfalse\t3\t190000000\t410000000\t0\t0\t0\n"
        "dtn1.site-a.check-fixture\ttrue\t6\t100000000\t600000000\t1\t3\t1\n"
        "dtn2.site-a.check-fixture\tfalse\t1\t55000000\t55000000\t0\t0\t0\n"
        "dtn2.site-a.check-fixture\ttrue\t2\t50000000\t70000000\t0\t0\t0\n"
    )
    assert query(warehouse.url, "SELECT kind, count() FROM alerts FINAL GROUP BY kind ORDER BY kind") == "outside_band\t1\nprca\t2\n"


def test_a_failing_file_is_reported_by_name(warehouse: RunningWarehouse, tmp_path: Path) -> None:
    (tmp_path / "rejected.sql").write_text("INSERT INTO rejected (stage) SELECT no_such_column FROM numbers(1)")
    [failed] = fill_empty_tables(warehouse.url, tmp_path)
    assert not failed.ok and failed.table == "rejected"
    assert failed.describe().startswith(f"FAIL  fixture rejected ({tmp_path / 'rejected.sql'}): ")
    assert "no_such_column" in (failed.error or "")


def test_the_fixture_files_are_named_after_tables_the_warehouse_declares() -> None:
    declared = {p.stem for p in (FIXTURES_DIR.parents[1] / "tables").glob("*.yaml")}
    assert {p.stem for p in FIXTURES_DIR.glob("*.sql")} <= declared


def test_the_fabric_episode_is_the_one_its_header_describes(warehouse: RunningWarehouse) -> None:
    """fabric_links.sql (its header): 60 rounds of the leaf-spine's four switch-to-switch links; spine1's
    at 3.5 Mb/s but 8 Mb/s in round 10, where its up-link names the one reroute; spine2's 0.5 then 5 Mb/s."""
    fill_empty_tables(warehouse.url)
    assert query(warehouse.url, (
        "SELECT link_id, count(), uniqExact(fabric), min(utilisation), max(utilisation), countIf(over_threshold), "
        "max(elephants), countIf(reroute_command_id != '') FROM fabric_links GROUP BY link_id ORDER BY link_id"
    )) == (
        "leaf1:2>spine1:1\t60\t1\t0.35\t0.8\t1\t2\t1\n"
        "leaf1:3>spine2:1\t60\t1\t0.05\t0.5\t0\t1\t0\n"
        "spine1:2>leaf2:2\t60\t1\t0.35\t0.8\t1\t2\t0\n"
        "spine2:2>leaf2:3\t60\t1\t0.05\t0.5\t0\t1\t0\n"
    )
