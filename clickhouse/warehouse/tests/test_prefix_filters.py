"""Prefix filters' daily effectiveness (migration 0015) against a hand-computed case."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, migrations
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.embedded import EmbeddedEngine
from tests.warehouse_process import NO_BROKER

DAY0 = (datetime.now(timezone.utc) - timedelta(days=60)).replace(hour=12, minute=0, second=0, microsecond=0)


def test_share_of_alpha_bytes_caught_by_filters_from_earlier_days(engine: EmbeddedEngine, database: str) -> None:
    client = EngineClient(engine, database)
    migrations.apply(client, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": NO_BROKER}, log=lambda _: None)

    def alpha(flow: str, day: int, exporter: str, src: str, dst: str, size: int, source: str = "netflow") -> str:
        start = (DAY0 + timedelta(days=day)).strftime("%Y-%m-%d %H:%M:%S")
        # event_at too: the table's TTL counts from it (a 1970 default would expire the row).
        return f"('{flow}', 'end', '{source}', '{start}', '{start}', 1, '{exporter}', '{src}', '{dst}', '{start}', {size})"

    rows = [
        alpha("a", 0, "::ffff:192.0.2.1", "::ffff:198.18.1.10", "::ffff:198.18.2.20", 100),  # builds (r1, .1/24, .2/24)
        alpha("b", 5, "::ffff:192.0.2.1", "::ffff:198.18.1.99", "::ffff:198.18.2.7", 300),  # same /24 pair: caught
        alpha("c", 5, "::ffff:192.0.2.2", "::ffff:198.18.1.10", "::ffff:198.18.2.20", 700),  # other router: not caught
        alpha("d", 40, "::ffff:192.0.2.1", "::ffff:198.18.1.10", "::ffff:198.18.2.20", 50),  # 35 days after b: aged out
        alpha("e", 41, "::ffff:192.0.2.1", "2001:db8:1:5::1", "2001:db8:2::9", 10),  # IPv6: /48 pair, new
        alpha("f", 42, "::ffff:192.0.2.1", "2001:db8:1:ff::2", "2001:db8:2:1::1", 30),  # same /48 pair: caught
        alpha("g", 42, "::ffff:192.0.2.1", "::ffff:203.0.113.1", "::ffff:203.0.114.1", 999, source="probe"),  # not α
    ]
    client.query(
        "INSERT INTO cheetahs (flow_id, type, source, event_at, start_at, seq, exporter, src_addr, dst_addr, end_at, bytes) VALUES "
        + ",".join(rows)
    )
    select = client.query(
        "SELECT as_select FROM system.tables WHERE database = currentDatabase() AND name = 'prefix_filter_effectiveness_mv'",
        "TSVRaw",
    ).decode()
    got = client.query(
        f"SELECT dateDiff('day', toDate('{DAY0:%Y-%m-%d}'), day), alpha_flows, alpha_bytes, caught_flows, caught_bytes, round(share, 6) "
        f"FROM ({select}) ORDER BY day",
        "TSV",
    ).decode()
    assert got == (
        "0\t1\t100\t0\t0\t0\n"
        "5\t2\t1000\t1\t300\t0.3\n"
        "40\t1\t50\t0\t0\t0\n"
        "41\t1\t10\t0\t0\t0\n"
        "42\t1\t30\t1\t30\t1\n"
    )
    # The refreshable view stores the same figures (it runs at creation, then every hour).
    client.query("SYSTEM REFRESH VIEW prefix_filter_effectiveness_mv")
    deadline = time.monotonic() + 30
    stored = ""
    while time.monotonic() < deadline:
        stored = client.query("SELECT sum(caught_bytes) FROM prefix_filter_effectiveness FINAL", "TSV").decode().strip()
        if stored == "330":
            break
        time.sleep(0.2)
    assert stored == "330"
