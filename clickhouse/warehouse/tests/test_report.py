"""Report numbers from rows inserted into the MergeTree tables, checked by hand.

Sites: lab-a = 198.18.1.0/24, lab-b = 198.18.2.0/24; 198.19.0.5 is outside both.

flowset  src -> dst        N   size (GB)  duration (s)  rate (Gb/s)
s1       lab-a -> lab-b     1     1           10           0.8
s2       lab-a -> lab-b     3     2           20           0.8   (re-emitted: the later closing wins)
s3       lab-a -> outside   6     3           30           0.8
s4       lab-b -> lab-a    12     4           40           0.8
s5       outside -> lab-a  20    10           50           1.6

Percentiles interpolate linearly between closest ranks, h = (n - 1) p:
all sizes 1,2,3,4,10 GB: median 3, mean 4, p95 = 4 + 0.8 * 6 = 8.8, p99 = 4 + 0.96 * 6 = 9.76, max 10.
all durations 10..50 s: median 30, mean 30, p95 = 40 + 0.8 * 10 = 48, p99 = 49.6, max 50.
all rates .8,.8,.8,.8,1.6 Gb/s: median 0.8, mean 0.96, p95 = 0.8 + 0.8 * 0.8 = 1.44, p99 = 1.568, max 1.6.
lab-a from (1,2,3 GB): median 2, mean 2, p95 = 2 + 0.9 * 1 = 2.9, p99 = 2.98, max 3.
lab-b to (1,2 GB): median 1.5, mean 1.5, p95 = 1 + 0.95 * 1 = 1.95, p99 = 1.99, max 2.
lab-a from durations 10,20,30 s: median 20, mean 20, p95 = 20 + 0.9 * 10 = 29, p99 = 29.8, max 30; rates all 0.8.
lab-a to (s4, s5): sizes 4,10 GB: median 7, mean 7, p95 = 4 + 0.95 * 6 = 9.7, p99 = 9.94, max 10;
  durations 40,50 s: 45, 45, 49.5, 49.9, 50; rates .8,1.6 Gb/s: 1.2, 1.2, 1.56, 1.592, 1.6.
lab-b from (s4 alone): 4 GB, 40 s, 0.8 Gb/s for every statistic.
lab-b to durations 10,20 s: 15, 15, 19.5, 19.9, 20; rates all 0.8.

Cheetahs (latest event per flow): netflow f1 (seq 3: 3 GB) + f3 (1 GB) = 2 flows, 4 GB; probe f2
0.5 GB; total 3 flows, 4.5 GB. Records: 7 flows; 6 rejected (3 + 2 + 1).

EXPECTED_REPORT below is the whole report written out from these figures (units: decimal, two
decimals; seconds with one), so the CLI is checked against numbers, not against render().
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from cheetah_warehouse import DEFAULT_QUERIES_DIR
from cheetah_warehouse.clients import HttpClient
from cheetah_warehouse.report import QueryFiles, ReportData, collect, render
from cheetah_warehouse.sites import Sites, parse_sites
from tests.warehouse_process import Warehouse, run_cli, sql

GB = 1e9

EXPECTED_REPORT = """\
Cheetah warehouse report ({url})

Records
                       records
  -------------------  -------
  flow records stored        7
  rejected                   6

Rejected by stage and reason
  stage      reason                records
  ---------  --------------------  -------
  normalize  inverted_times              3
  goflow2    malformed_datagram          2
  warehouse  undecodable_protobuf        1

Cheetahs (latest event per flow)
  source   flows      bytes
  -------  -----  ---------
  netflow      2    4.00 GB
  probe        1  500.00 MB
  total        3    4.50 GB

Flowsets by N (member flows per parallel flowset)
  site   direction  N=1  2-4  5-8  9-16  >16  sets
  -----  ---------  ---  ---  ---  ----  ---  ----
  lab-a  from         1    1    1     0    0     3
  lab-a  to           0    0    0     1    1     2
  lab-b  from         0    0    0     1    0     1
  lab-b  to           1    1    0     0    0     2
  all    all          1    1    1     1    1     5

Flowset shape: size, duration, rate (median, mean, 95th, 99th percentile, max)
  site   direction  metric    sets       median         mean          p95          p99          max
  -----  ---------  --------  ----  -----------  -----------  -----------  -----------  -----------
  lab-a  from       size         3      2.00 GB      2.00 GB      2.90 GB      2.98 GB      3.00 GB
  lab-a  from       duration     3       20.0 s       20.0 s       29.0 s       29.8 s       30.0 s
  lab-a  from       rate         3  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s
  lab-a  to         size         2      7.00 GB      7.00 GB      9.70 GB      9.94 GB     10.00 GB
  lab-a  to         duration     2       45.0 s       45.0 s       49.5 s       49.9 s       50.0 s
  lab-a  to         rate         2    1.20 Gb/s    1.20 Gb/s    1.56 Gb/s    1.59 Gb/s    1.60 Gb/s
  lab-b  from       size         1      4.00 GB      4.00 GB      4.00 GB      4.00 GB      4.00 GB
  lab-b  from       duration     1       40.0 s       40.0 s       40.0 s       40.0 s       40.0 s
  lab-b  from       rate         1  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s
  lab-b  to         size         2      1.50 GB      1.50 GB      1.95 GB      1.99 GB      2.00 GB
  lab-b  to         duration     2       15.0 s       15.0 s       19.5 s       19.9 s       20.0 s
  lab-b  to         rate         2  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s  800.00 Mb/s
  all    all        size         5      3.00 GB      4.00 GB      8.80 GB      9.76 GB     10.00 GB
  all    all        duration     5       30.0 s       30.0 s       48.0 s       49.6 s       50.0 s
  all    all        rate         5  800.00 Mb/s  960.00 Mb/s    1.44 Gb/s    1.57 Gb/s    1.60 Gb/s
"""
SITES = {"lab-a": ["198.18.1.0/24"], "lab-b": ["198.18.2.0/24"]}
A, B, OUTSIDE = "::ffff:198.18.1.10", "::ffff:198.18.2.20", "::ffff:198.19.0.5"


def ago(minutes: float) -> str:
    """A recent timestamp: rows must be younger than every table's TTL."""
    return (datetime.now(timezone.utc) - timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S.000")


def insert(url: str, table: str, rows: list[dict[str, Any]]) -> None:
    body = "\n".join(json.dumps(row) for row in rows)
    sql(url, f"INSERT INTO {table} FORMAT JSONEachRow\n{body}\n")


def flowset(fid: str, src: str, dst: str, n: int, size_gb: float, duration: float, closed: str) -> dict[str, Any]:
    return {
        "flowset_id": fid, "src_addr": src, "dst_addr": dst, "n_flows": n, "single": n == 1,
        "bytes": int(size_gb * GB), "duration_s": duration, "rate_bps": size_gb * GB * 8 / duration,
        "start_at": ago(60), "end_at": ago(59),
        "member_flow_ids": [f"{fid}-{i}" for i in range(n)], "closed_at": closed,
    }


def load_rows(url: str) -> None:
    insert(url, "flows", [{"src_addr": A, "dst_addr": B, "bytes": 1000 + i, "start_at": ago(60)} for i in range(7)])
    insert(url, "rejected", [{"stage": "normalize", "reason": "inverted_times", "received_at": ago(5)}] * 3)
    insert(url, "rejected", [{"stage": "goflow2", "reason": "malformed_datagram", "received_at": ago(5)}] * 2)
    insert(url, "rejected", [{"stage": "warehouse", "reason": "undecodable_protobuf", "received_at": ago(5)}])
    # Separate inserts make separate parts, so FINAL (latest seq per flow_id) is what counts.
    for seq, size in ((1, 1 * GB), (2, 2 * GB), (3, 3 * GB)):
        insert(url, "cheetahs", [{"flow_id": "f1", "source": "netflow", "seq": seq, "bytes": int(size), "event_at": ago(60)}])
    insert(url, "cheetahs", [{"flow_id": "f2", "source": "probe", "seq": 1, "bytes": int(0.5 * GB), "event_at": ago(60)}])
    insert(url, "cheetahs", [{"flow_id": "f3", "source": "netflow", "seq": 1, "bytes": int(1 * GB), "event_at": ago(60)}])
    insert(url, "flowsets", [flowset("s2", A, B, 3, 0.001, 20, ago(58))])  # superseded
    insert(url, "flowsets", [
        flowset("s1", A, B, 1, 1, 10, ago(55)),
        flowset("s2", A, B, 3, 2, 20, ago(55)),
        flowset("s3", A, OUTSIDE, 6, 3, 30, ago(55)),
        flowset("s4", B, A, 12, 4, 40, ago(55)),
        flowset("s5", OUTSIDE, A, 20, 10, 50, ago(55)),
    ])


@pytest.fixture(scope="module")
def report_data(served: Warehouse) -> ReportData:
    load_rows(served.url)
    return collect(HttpClient(served.url), QueryFiles(DEFAULT_QUERIES_DIR), parse_sites(json.dumps(SITES)))


def test_records_and_rejections(report_data: ReportData) -> None:
    assert (report_data.flows, report_data.rejected) == (7, 6)
    by_reason = {(r["stage"], r["reason"]): int(r["records"]) for r in report_data.rejected_by_reason}
    assert by_reason == {("normalize", "inverted_times"): 3, ("goflow2", "malformed_datagram"): 2, ("warehouse", "undecodable_protobuf"): 1}


def test_cheetahs_count_the_latest_event_of_each_flow(report_data: ReportData) -> None:
    by_source = {r["source"]: (int(r["flows"]), float(r["bytes"])) for r in report_data.cheetahs}
    assert by_source == {"netflow": (2, 4 * GB), "probe": (1, 0.5 * GB), "": (3, 4.5 * GB)}


def test_flowsets_by_n_to_and_from_each_site(report_data: ReportData) -> None:
    buckets = ("n_1", "n_2_4", "n_5_8", "n_9_16", "n_over_16", "sets")
    table = {(r["site"], r["direction"]): tuple(int(r[b]) for b in buckets) for r in report_data.flowsets_by_n}
    assert table == {
        ("lab-a", "from"): (1, 1, 1, 0, 0, 3),
        ("lab-a", "to"): (0, 0, 0, 1, 1, 2),
        ("lab-b", "from"): (0, 0, 0, 1, 0, 1),
        ("lab-b", "to"): (1, 1, 0, 0, 0, 2),
        ("all", "all"): (1, 1, 1, 1, 1, 5),
    }


def shape(data: ReportData, site: str, direction: str, metric: str) -> tuple[float, ...]:
    for r in data.flowset_shape:
        if (r["site"], r["direction"], r["metric"]) == (site, direction, metric):
            return tuple(float(r[k]) for k in ("sets", "median", "mean", "p95", "p99", "max"))
    raise AssertionError(f"no shape row for {site} {direction} {metric}")


def test_flowset_shape_percentiles(report_data: ReportData) -> None:
    assert shape(report_data, "all", "all", "size") == pytest.approx((5, 3 * GB, 4 * GB, 8.8 * GB, 9.76 * GB, 10 * GB))
    assert shape(report_data, "all", "all", "duration") == pytest.approx((5, 30, 30, 48, 49.6, 50))
    assert shape(report_data, "all", "all", "rate") == pytest.approx((5, 0.8 * GB, 0.96 * GB, 1.44 * GB, 1.568 * GB, 1.6 * GB))
    assert shape(report_data, "lab-a", "from", "size") == pytest.approx((3, 2 * GB, 2 * GB, 2.9 * GB, 2.98 * GB, 3 * GB))
    assert shape(report_data, "lab-b", "to", "size") == pytest.approx((2, 1.5 * GB, 1.5 * GB, 1.95 * GB, 1.99 * GB, 2 * GB))
    assert shape(report_data, "lab-b", "from", "duration") == pytest.approx((1, 40, 40, 40, 40, 40))


def test_rendered_report_is_aligned_tables(report_data: ReportData) -> None:
    text = render(report_data, "http://test")
    assert ["flow", "records", "stored", "7"] in [line.split() for line in text.splitlines()]
    lines = text.splitlines()
    start = lines.index("Flowsets by N (member flows per parallel flowset)")
    header, rule, *rows = lines[start + 1 : start + 8]
    assert header.split() == ["site", "direction", "N=1", "2-4", "5-8", "9-16", ">16", "sets"]
    assert rows[0].split() == ["lab-a", "from", "1", "1", "1", "0", "0", "3"]
    assert rows[-1].split() == ["all", "all", "1", "1", "1", "1", "1", "5"]
    assert all(len(row) == len(rule) for row in rows)  # right-aligned numbers end under the rule
    shape_line = next(line for line in lines if line.split()[:3] == ["all", "all", "size"])
    assert shape_line.split()[3:] == ["5", "3.00", "GB", "4.00", "GB", "8.80", "GB", "9.76", "GB", "10.00", "GB"]


def test_report_command_prints_the_report(served: Warehouse, report_data: ReportData, tmp_path: Path) -> None:
    sites = tmp_path / "sites.json"
    sites.write_text(json.dumps(SITES))
    result = run_cli("report", "--url", served.url, "--sites", str(sites))
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED_REPORT.format(url=served.url)


def test_render_lays_out_the_hand_computed_figures(report_data: ReportData) -> None:
    assert render(report_data, "http://test") == EXPECTED_REPORT.format(url="http://test")


def test_report_without_sites_has_only_overall_rows(served: Warehouse, report_data: ReportData) -> None:
    data = collect(HttpClient(served.url), QueryFiles(DEFAULT_QUERIES_DIR), Sites())
    assert [(r["site"], r["direction"]) for r in data.flowsets_by_n] == [("all", "all")]


def test_bad_sites_file_is_named(served: Warehouse, tmp_path: Path) -> None:
    sites = tmp_path / "sites.json"
    sites.write_text('{"lab-a": ["198.18.1.0/33"]}')
    result = run_cli("report", "--url", served.url, "--sites", str(sites))
    assert result.returncode == 2
    assert f"sites file {sites}: site 'lab-a' has an invalid prefix '198.18.1.0/33'" in result.stderr


@pytest.mark.parametrize("path", sorted(DEFAULT_QUERIES_DIR.glob("*.sql")), ids=lambda p: p.name)
def test_every_query_file_runs_against_the_migrated_schema(served: Warehouse, path: Path) -> None:
    client = HttpClient(served.url)
    client.query(path.read_text(encoding="utf-8"), params=Sites().query_params())
