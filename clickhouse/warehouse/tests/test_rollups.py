"""Rollups (migrations 0012 sites, 0013 rollups) against sums computed here, independently.

Rows are inserted into the result tables directly: the views see them as they would see rows
arriving from Kafka. Expected values are computed in Python from the same rows.
"""

from __future__ import annotations

import ipaddress
import json
import math
import random
import statistics
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.rollups import load_site_prefixes, rebuild
from cheetah_warehouse.sites import parse_sites
from tests.warehouse_process import NO_BROKER

SITES = {"site-a": ["198.18.1.0/24"], "site-b": ["198.18.2.0/24"], "site-b-host": ["198.18.2.7/32"]}
T0 = datetime(2026, 10, 31, 22, 58, 0, tzinfo=timezone.utc)  # crosses minutes, hours, days and a month


@pytest.fixture
def client(engine: EmbeddedEngine, database: str) -> EngineClient:
    c = EngineClient(engine, database)
    migrations.apply(c, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": NO_BROKER, "kafka_group_prefix": "rollups"}, log=lambda _: None)
    load_site_prefixes(c, parse_sites(__import__("json").dumps(SITES)))
    return c


def site_of(address: str) -> str:
    """Most specific matching prefix wins (the IP_TRIE dictionary's rule)."""
    ip = ipaddress.ip_address(address)
    best, best_len = "", -1
    for site, prefixes in SITES.items():
        for prefix in prefixes:
            net = ipaddress.ip_network(prefix)
            if ip in net and net.prefixlen > best_len:
                best, best_len = site, net.prefixlen
    return best


def rows(client: EngineClient, sql: str) -> list[list[str]]:
    return [line.split("\t") for line in client.query(sql, "TSV").decode().splitlines()]


def ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def insert(client: EngineClient, table: str, columns: list[str], values: list[tuple[Any, ...]]) -> None:
    def literal(v: Any) -> str:
        if isinstance(v, datetime):
            return f"'{ts(v)}'"
        if isinstance(v, str):
            return "'" + v.replace("'", "\\'") + "'"
        if isinstance(v, bool):
            return "true" if v else "false"
        return repr(v)

    body = ",".join("(" + ",".join(literal(v) for v in row) + ")" for row in values)
    client.query(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {body}")


def bucket(t: datetime, grain: str) -> str:
    if grain == "1m":
        b = t.replace(second=0, microsecond=0)
    elif grain == "1h":
        b = t.replace(minute=0, second=0, microsecond=0)
    else:
        b = t.replace(hour=0, minute=0, second=0, microsecond=0)
    return b.strftime("%Y-%m-%d %H:%M:%S")


ADDRESSES = ["198.18.1.10", "198.18.1.11", "198.18.2.7", "198.18.2.8", "203.0.113.5"]


def generate_flows(rng: random.Random) -> list[tuple[Any, ...]]:
    flows = []
    for i in range(300):
        start = T0 + timedelta(milliseconds=rng.randrange(0, 4 * 3600 * 1000))
        flows.append(
            (
                start,
                start + timedelta(seconds=30),
                "::ffff:" + rng.choice(["192.0.2.1", "192.0.2.2"]),
                "::ffff:" + rng.choice(ADDRESSES),
                "::ffff:" + rng.choice(ADDRESSES),
                rng.choice([6, 17]),
                rng.randrange(1, 10**10),
                rng.randrange(1, 10**6),
            )
        )
    return flows


def expected_flows(flows: list[tuple[Any, ...]], grain: str) -> dict[tuple[str, ...], list[int]]:
    out: dict[tuple[str, ...], list[int]] = defaultdict(lambda: [0, 0, 0])
    for start, _end, exporter, src, dst, proto, size, packets in flows:
        key = (bucket(start, grain), exporter, site_of(src.removeprefix("::ffff:")), site_of(dst.removeprefix("::ffff:")), str(proto))
        out[key][0] += 1
        out[key][1] += size
        out[key][2] += packets
    return dict(out)


FLOW_COLUMNS = ["start_at", "end_at", "exporter", "src_addr", "dst_addr", "proto", "bytes", "packets"]


@pytest.mark.parametrize("grain", ["1m", "1h", "1d"])
def test_flow_volume_rollups_equal_sums_computed_independently(client: EngineClient, grain: str) -> None:
    flows = generate_flows(random.Random(7))
    insert(client, "flows", FLOW_COLUMNS, flows[:150])
    insert(client, "flows", FLOW_COLUMNS, flows[150:])  # two inserts: the rollup must sum across parts
    got = {
        tuple(r[:5]): [int(x) for x in r[5:]]
        for r in rows(
            client,
            f"SELECT bucket_at, replaceOne(toString(exporter), '', ''), src_site, dst_site, proto, "
            f"sum(records), sum(bytes), sum(packets) FROM flows_{grain} GROUP BY ALL",
        )
    }
    assert got == expected_flows(flows, grain)


def test_link_load_rollup_gives_exact_burstiness_of_background(client: EngineClient) -> None:
    rng = random.Random(11)
    bins = []
    for link in ("esnet-a", "esnet-b"):
        for i in range(3 * 600):  # 3 minutes of 100 ms bins
            size = rng.randrange(10**5, 10**7)
            bins.append((link, "probe-1", T0 + timedelta(milliseconds=100 * i), 100, size, size // 1000, rng.choice([0, size // 3])))
    insert(client, "probe_bins", ["link_id", "probe_id", "bin_start_at", "bin_ms", "bytes", "packets", "cheetah_bytes"], bins)
    got = rows(
        client,
        "SELECT link_id, bucket_at, sum(bins), sum(bytes), sum(cheetah_bytes), max(max_bin_bytes), "
        "sqrt(sum(bg_bytes_sq) / sum(bins) - pow(sum(bg_bytes) / sum(bins), 2)) / (sum(bg_bytes) / sum(bins)) "
        "FROM link_load_1m GROUP BY link_id, bucket_at ORDER BY link_id, bucket_at",
    )
    assert len(got) == 2 * 3
    for link, minute, n, total, cheetah, biggest, burstiness in got:
        mine = [b for b in bins if b[0] == link and bucket(b[2], "1m") == minute]
        background = [b[4] - b[6] for b in mine]
        assert int(n) == len(mine) == 600
        assert int(total) == sum(b[4] for b in mine)
        assert int(cheetah) == sum(b[6] for b in mine)
        assert int(biggest) == max(b[4] for b in mine)
        assert math.isclose(float(burstiness), statistics.pstdev(background) / statistics.fmean(background), rel_tol=1e-9)


def test_link_stats_rollups_average_and_max(client: EngineClient) -> None:
    windows = [
        ("esnet-a", T0 + timedelta(minutes=10 * i), T0 + timedelta(minutes=10 * i + 60), 2e8 + 1e7 * i, 0.5 + 0.1 * i, 0.2 + 0.05 * i, i % 2 == 0)
        for i in range(12)
    ]
    insert(client, "link_stats", ["link_id", "window_start_at", "window_end_at", "mean_bg_bps", "burstiness", "utilization", "sliding"], windows)
    got = rows(
        client,
        "SELECT sliding, bucket_at, sum(windows), sum(sum_mean_bg_bps) / sum(windows), max(max_utilization) "
        "FROM link_stats_1h WHERE link_id = 'esnet-a' GROUP BY sliding, bucket_at ORDER BY sliding, bucket_at",
    )
    expected: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for _, _, end, bg, _, util, sliding in windows:
        expected[("true" if sliding else "false", bucket(end, "1h"))].append((bg, util))
    assert [(s, b) for s, b, *_ in got] == sorted(expected)
    for sliding, hour, n, mean_bg, max_util in got:
        values = expected[(sliding, hour)]
        assert int(n) == len(values)
        assert math.isclose(float(mean_bg), statistics.fmean(v[0] for v in values))
        assert math.isclose(float(max_util), max(v[1] for v in values))


FLOWSET_COLUMNS = ["flowset_id", "src_addr", "dst_addr", "n_flows", "single", "start_at", "end_at", "bytes", "duration_s", "rate_bps", "closed_at"]


def generate_flowsets(rng: random.Random, count: int) -> list[tuple[Any, ...]]:
    sets = []
    for i in range(count):
        start = T0 + timedelta(hours=rng.randrange(0, 24 * 40))
        n = rng.choice([1, 1, 2, 4, 8])
        duration = rng.uniform(1, 3600)
        size = rng.randrange(10**9, 10**12)
        src, dst = rng.sample(ADDRESSES, 2)
        sets.append((f"fs-{i}", "::ffff:" + src, "::ffff:" + dst, n, n == 1, start, start + timedelta(seconds=duration), size, duration, size * 8 / duration, start))
    return sets


def test_flowsets_per_site_and_month_with_exact_quantiles(client: EngineClient) -> None:
    sets = generate_flowsets(random.Random(3), 400)
    insert(client, "flowsets", FLOWSET_COLUMNS, sets)
    got = rows(
        client,
        "SELECT month, src_site, dst_site, sum(flowsets), sum(singles), sum(flows), sum(bytes), max(max_bytes), "
        "quantilesMerge(0.5, 0.95, 0.99)(size_q) FROM flowsets_site_month GROUP BY ALL ORDER BY ALL",
    )
    groups: dict[tuple[str, str, str], list[tuple[Any, ...]]] = defaultdict(list)
    for s in sets:
        month = s[5].replace(day=1).strftime("%Y-%m-%d")
        groups[(month, site_of(s[1].removeprefix("::ffff:")), site_of(s[2].removeprefix("::ffff:")))].append(s)
    assert [tuple(r[:3]) for r in got] == sorted(groups)
    for month, src, dst, n, singles, flows, size, biggest, quantiles in got:
        members = groups[(month, src, dst)]
        sizes = sorted(m[7] for m in members)
        assert (int(n), int(singles), int(flows), int(size), int(biggest)) == (
            len(members), sum(1 for m in members if m[3] == 1), sum(m[3] for m in members), sum(sizes), max(sizes)
        )
        # Below 8192 values the reservoir holds them all: linear interpolation between ranks.
        for q, value in zip((0.5, 0.95, 0.99), quantiles.strip("[]").split(",")):
            assert math.isclose(float(value), linear_quantile(sizes, q), rel_tol=1e-9), (month, src, dst, q)


def linear_quantile(sorted_values: list[int], q: float) -> float:
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def test_new_sites_and_rebuild_recompute_the_rollups_and_rebuild_is_repeatable(client: EngineClient) -> None:
    sets = generate_flowsets(random.Random(5), 60)
    insert(client, "flowsets", FLOWSET_COLUMNS, sets)
    insert(client, "flowsets", FLOWSET_COLUMNS, sets[:10])  # delivered twice: FINAL counts it once on rebuild
    SITES.update({"docs": ["203.0.113.0/24"]})
    try:
        load_site_prefixes(client, parse_sites(__import__("json").dumps(SITES)))
        rebuilt = rebuild(client)
        assert "flowsets_site_month" in rebuilt and "flows_1m" in rebuilt and "link_load_1d" in rebuilt
        first = rows(client, "SELECT src_site, sum(flowsets) FROM flowsets_site_month GROUP BY src_site ORDER BY src_site")
        expected: dict[str, int] = defaultdict(int)
        for s in sets:
            expected[site_of(s[1].removeprefix("::ffff:"))] += 1
        assert first == [[site, str(n)] for site, n in sorted(expected.items())]
        assert "docs" in expected
        rebuild(client)
        assert rows(client, "SELECT src_site, sum(flowsets) FROM flowsets_site_month GROUP BY src_site ORDER BY src_site") == first
    finally:
        del SITES["docs"]


def test_redirect_rules_keep_the_latest_state_of_each_rule(client: EngineClient) -> None:
    columns = ["command_id", "issued_at", "expires_at", "device_id", "action", "replaces_command_id", "dry_run"]
    later = T0 + timedelta(hours=1)
    insert(client, "redirect_commands", columns, [
        ("add-1", T0, later, "r1", "scavenger", "", False),
        ("add-2", T0, later, "r1", "dscp_mark", "", False),
        ("dry-3", T0, later, "r2", "scavenger", "", True),
    ])
    insert(client, "redirect_commands", columns, [("rm-1", T0 + timedelta(minutes=5), later, "r1", "remove", "add-1", False)])
    got = rows(client, "SELECT rule_id, state, last_command_id, dry_run FROM redirect_rules FINAL ORDER BY rule_id")
    assert got == [["add-1", "removed", "rm-1", "false"], ["add-2", "active", "add-2", "false"], ["dry-3", "active", "dry-3", "true"]]


def test_sites_command_loads_and_rebuilds_on_a_data_directory(tmp_path: Any) -> None:
    from tests.warehouse_process import run_cli

    data = tmp_path / "data"
    assert run_cli("migrate", "--data", str(data), "--kafka-brokers", NO_BROKER).returncode == 0
    sites_file = tmp_path / "sites.json"
    sites_file.write_text('{"lab-a": ["198.18.1.0/24"], "lab-b": ["2001:db8::/32"]}')
    result = run_cli("sites", "--data", str(data), str(sites_file))
    assert result.returncode == 0, result.stderr
    assert f"loaded 2 site prefixes from {sites_file}; rebuilt 10 rollups (flows_1d, flows_1h, flows_1m" in result.stderr
    lookup = run_cli("query", "--data", str(data), "SELECT dictGet('sites', 'site', toIPv6('2001:db8::9')), dictGet('sites', 'site', toIPv6('::ffff:198.18.9.1'))")
    assert lookup.stdout == "lab-b\t\n"
    bad = tmp_path / "bad.json"
    bad.write_text('{"lab-a": ["198.18.1.0/33"]}')
    refused = run_cli("sites", "--data", str(data), str(bad))
    assert refused.returncode == 2 and "site 'lab-a' has an invalid prefix '198.18.1.0/33'" in refused.stderr


# The burstiness known answers shared with the Java link-statistics job and the simulator
# (schemas/testdata/burstiness_cases.json, computed by hand), against the NOC dashboard's own
# burstiness metric (its expression is read from the bundle, so the formula tested is the one shown).
# The warehouse's rollups see only the probe's bins, so only the cases without NetFlow cheetahs apply.
BURSTINESS_CASES = json.loads((Path(__file__).resolve().parents[3] / "schemas/testdata/burstiness_cases.json").read_text())["cases"]
# E[x^2] - E[x]^2 in Float64 loses digits when the CoV is tiny next to large bins (the 100 Gb/s
# case: CoV ~6.5e-7 of ~1.25e9-byte bins): the rollup answer is within 1e-4 of the definition there.
NOC_LINK_LOAD = Path(__file__).resolve().parents[3] / "dashboards/bundles/noc/datasets/cheetah_warehouse/noc_link_load.yaml"


def dashboard_burstiness_expression() -> str:
    import yaml

    metrics = yaml.safe_load(NOC_LINK_LOAD.read_text())["metrics"]
    return str(next(m["expression"] for m in metrics if m["metric_name"] == "minute_burstiness"))


CANCELLATION_TOLERANCE = {"100 ms bins near 100 Gb/s, nearly smooth": 1e-4}


@pytest.mark.parametrize(
    "case",
    [c for c in BURSTINESS_CASES if all(b["netflow_cheetah_bytes"] == 0 for b in c["bins"])],
    ids=lambda c: c["name"],
)
def test_link_load_rollup_agrees_with_the_shared_burstiness_known_answers(client: EngineClient, case: dict[str, Any]) -> None:
    rows_in = [
        ("fixture", "probe-1", T0 + timedelta(milliseconds=100 * i), 100, b["bytes"], 1, b["cheetah_bytes"])
        for i, b in enumerate(case["bins"])
    ]
    insert(client, "probe_bins", ["link_id", "probe_id", "bin_start_at", "bin_ms", "bytes", "packets", "cheetah_bytes"], rows_in)
    (got,) = rows(
        client,
        f"SELECT sum(bins), sum(bg_bytes), {dashboard_burstiness_expression()} FROM link_load_1m WHERE link_id = 'fixture'",
    )
    n, background, burstiness = int(got[0]), int(got[1]), float(got[2])
    assert n == len(case["bins"])
    assert background == sum(case["background"]), "background = bytes - cheetah bytes, never below 0"
    tolerance = CANCELLATION_TOLERANCE.get(case["name"], 1e-9)
    assert math.isclose(burstiness, case["burstiness"], rel_tol=tolerance, abs_tol=1e-12), case["by_hand"]
