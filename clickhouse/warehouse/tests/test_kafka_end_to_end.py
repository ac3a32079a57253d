"""Result topics -> Kafka engine tables -> materialized views -> MergeTree, with a
real Kafka 4.2.1 broker and a transactional (exactly-once) producer.

Checks: committed records land with their types converted; an aborted
transaction's records never do (read_committed); an undecodable record, and a
record that decodes but whose values do not fit the table (a 3-byte address, an
enum value the table does not know), is kept in `rejected` and the records after
it in its partition are stored; after a clean stop, records produced meanwhile arrive on restart
exactly once (offsets were committed, the consumer group resumes), including
when the broker list given on restart differs. (A SIGKILL: test_crash_recovery.py.)
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import yaml

from cheetah_warehouse import DEFAULT_QUERIES_DIR, DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR
from tests.cheetah_messages import address, load_messages
from tests.kafka_broker import KafkaBroker, broker_with_topics
from tests.warehouse_process import run_cli, sql, start_warehouse

# Every topic the warehouse stores (schemas/topics.yaml, `table` not null).
TOPICS = tuple(t["name"] for t in yaml.safe_load((DEFAULT_SCHEMAS_DIR / "topics.yaml").read_text())["topics"] if t["table"])
START_MS = int(time.time() * 1000) - 3_600_000  # an hour ago: inside every TTL


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    with broker_with_topics(tmp_path_factory.mktemp("kafka"), {t: 1 for t in TOPICS}) as started:
        yield started


@pytest.fixture(scope="module")
def messages() -> dict[str, Any]:
    return load_messages()


def transactional_producer(bootstrap: str, transactional_id: str) -> Any:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "linger.ms": 5})
    producer.init_transactions(30)
    return producer


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def count(url: str, table_and_filter: str) -> int:
    return int(sql(url, f"SELECT count() FROM {table_and_filter}"))


def test_transactional_records_land_once_and_aborted_ones_never(
    broker: KafkaBroker, messages: dict[str, Any], tmp_path: Path
) -> None:
    flow, rejected, event, flowset = (messages[n] for n in ("FlowRecord", "RejectedRecord", "CheetahEvent", "Flowset"))

    def flow_record(i: int, size: int) -> bytes:
        return flow(
            exporter=address("192.0.2.1"), source=3, received_ms=START_MS + 500, start_ms=START_MS + i,
            end_ms=START_MS + 60_000, src_addr=address("198.18.1.10"), dst_addr=address(f"198.18.2.{i}"),
            src_port=5000 + i, dst_port=443, proto=6, bytes=size, packets=10, sampling_rate=1,
        ).SerializeToString()

    producer = transactional_producer(broker.bootstrap, "warehouse-test")
    producer.begin_transaction()  # committed
    for i in range(3):
        producer.produce("flows.v1", flow_record(i, 1_000 + i))
    undecodable = b"\xff\xff\xff not a FlowRecord"
    producer.produce("flows.v1", undecodable)
    bad_address = flow(src_addr=b"\x0a\x00\x00", start_ms=START_MS, end_ms=START_MS + 1, bytes=1).SerializeToString()
    producer.produce("flows.v1", bad_address)  # decodes; no IPv6 column takes 3 bytes
    producer.produce("flows.rejected.v1", rejected(
        stage="normalize", reason="inverted_times", detail="end_ms < start_ms", payload=b"\x00\x01",
        exporter=address("192.0.2.1"), received_ms=START_MS, source_topic="flows.goflow2.v1", source_partition=0, source_offset=41,
    ).SerializeToString())
    for seq, kind in ((1, 1), (3, 3), (2, 2)):  # start, end, update: out of order on purpose
        producer.produce("cheetahs.v1", event(
            flow_id="f-1", type=kind, source=1, event_ms=START_MS + seq * 1000, seq=seq, src_addr=address("198.18.1.10"),
            dst_addr=address("198.18.2.20"), start_ms=START_MS, end_ms=START_MS + seq * 1000, bytes=seq * 10**9, rate_bps=8e8,
        ).SerializeToString())
    bad_type = event(flow_id="f-bad", type=7, source=1, event_ms=START_MS, seq=1).SerializeToString()  # no such type
    producer.produce("cheetahs.v1", bad_type)
    producer.produce("cheetahs.v1", event(flow_id="f-2", type=1, source=2, event_ms=START_MS, seq=1, bytes=5 * 10**8).SerializeToString())
    producer.produce("flowsets.v1", flowset(
        flowset_id="s-1", src_addr=address("198.18.1.10"), dst_addr=address("198.18.2.20"), n_flows=2, single=False,
        start_ms=START_MS, end_ms=START_MS + 20_000, bytes=3 * 10**9, duration_s=20.0, rate_bps=1.2e9,
        member_flow_ids=["f-1", "f-2"], closed_ms=START_MS + 30_000,
    ).SerializeToString())
    producer.commit_transaction(30)

    producer.begin_transaction()  # aborted: none of this may be stored
    producer.produce("flows.v1", flow_record(9, 666))
    producer.produce("cheetahs.v1", event(flow_id="f-aborted", type=1, source=1, event_ms=START_MS, seq=1).SerializeToString())
    producer.produce("flowsets.v1", flowset(flowset_id="s-aborted", n_flows=1, single=True, closed_ms=START_MS).SerializeToString())
    producer.flush(30)
    producer.abort_transaction(30)

    producer.begin_transaction()  # committed after the aborted one: once it is stored, the abort was passed
    producer.produce("flows.v1", flow_record(7, 777))
    producer.produce("flowsets.v1", flowset(flowset_id="s-2", n_flows=1, single=True, bytes=10**9, closed_ms=START_MS + 40_000).SerializeToString())
    producer.commit_transaction(30)

    data_dir = tmp_path / "data"
    warehouse = start_warehouse(data_dir, brokers=broker.bootstrap, group_prefix="e2e")
    try:
        url = warehouse.url
        wait_until(lambda: count(url, "flows WHERE bytes = 777") == 1 and count(url, "flowsets WHERE flowset_id = 's-2'") == 1,
                   "the records committed after the aborted transaction")
        wait_until(lambda: count(url, "rejected") >= 4 and count(url, "cheetahs FINAL") >= 2, "rejections and cheetahs")

        assert count(url, "flows") == 4
        assert count(url, "rejected") == 4
        assert count(url, "cheetahs FINAL") == 2
        assert count(url, "flowsets FINAL") == 2
        assert count(url, "flows WHERE bytes = 666") == 0
        assert count(url, "cheetahs WHERE flow_id = 'f-aborted'") == 0
        assert count(url, "flowsets WHERE flowset_id = 's-aborted'") == 0

        assert sql(url, "SELECT toString(exporter), source, received_at, start_at, toString(dst_addr), src_port, bytes "
                        "FROM flows WHERE bytes = 1001") == (
            "::ffff:192.0.2.1\tipfix\t"
            + sql(url, f"SELECT fromUnixTimestamp64Milli({START_MS + 500}, 'UTC'), fromUnixTimestamp64Milli({START_MS + 1}, 'UTC')").strip()
            + "\t::ffff:198.18.2.1\t5001\t1001\n"
        )
        assert sql(url, "SELECT type, source, seq, bytes, toString(src_addr) FROM cheetahs FINAL WHERE flow_id = 'f-1'") == (
            "end\tnetflow\t3\t3000000000\t::ffff:198.18.1.10\n"
        )
        assert sql(url, "SELECT source FROM cheetahs FINAL WHERE flow_id = 'f-2'") == "probe\n"
        assert sql(url, "SELECT n_flows, single, member_flow_ids, duration_s, rate_bps FROM flowsets FINAL WHERE flowset_id = 's-1'") == (
            "2\tfalse\t['f-1','f-2']\t20\t1200000000\n"
        )
        assert sql(url, "SELECT stage, reason, hex(payload), toString(exporter), source_topic, source_offset "
                        "FROM rejected WHERE stage = 'normalize'") == (
            "normalize\tinverted_times\t0001\t::ffff:192.0.2.1\tflows.goflow2.v1\t41\n"
        )
        kept = [("cheetahs.v1", 3, bad_type), ("flows.v1", 3, undecodable), ("flows.v1", 4, bad_address)]
        assert sql(url, "SELECT reason, source_topic, source_offset, hex(payload) FROM rejected WHERE stage = 'warehouse' "
                        "ORDER BY source_topic, source_offset") == "".join(
            f"undecodable_protobuf\t{topic}\t{offset}\t{payload.hex().upper()}\n" for topic, offset, payload in kept
        )
        assert "PROTOBUF_BAD_CAST" in sql(url, "SELECT detail FROM rejected WHERE source_topic = 'flows.v1' AND source_offset = 4")
    finally:
        assert warehouse.stop() == 0, warehouse.stderr()

    producer.begin_transaction()  # produced while the warehouse is down
    producer.produce("flows.v1", flow_record(8, 888))
    producer.commit_transaction(30)

    # Same broker under another name: the consumer groups keep their offsets.
    renamed = broker.bootstrap.replace("127.0.0.1", "localhost")
    restarted = start_warehouse(data_dir, brokers=renamed, group_prefix="e2e")
    try:
        wait_until(lambda: count(restarted.url, "flows WHERE bytes = 888") == 1, "the record produced while stopped")
        assert count(restarted.url, "flows") == 5  # nothing read twice
        assert count(restarted.url, "rejected") == 4
    finally:
        assert restarted.stop() == 0, restarted.stderr()
        del producer


def test_every_other_result_topic_lands_in_its_table_with_types_converted(
    broker: KafkaBroker, messages: dict[str, Any], tmp_path: Path
) -> None:
    m = messages
    ns = START_MS * 1_000_000 + 123_456
    records = {
        "probe.flights.v1": m["Flight"](
            flow_id="p-1", link_id="esnet-a", probe_id="probe-1", src_addr=address("198.18.1.10"), dst_addr=address("2001:db8::2"),
            src_port=40000, dst_port=5201, proto=6, first_ns=ns, elapsed_ns=100_000_000, bytes=12_500_000, packets=8400,
            rate_bps=1e9, cheetah=True, threshold_version=3, threshold_bps=5e8),
        "probe.bins.v1": m["LinkBin"](link_id="esnet-a", probe_id="probe-1", bin_start_ms=START_MS, bin_ms=100, bytes=9_000_000, packets=6000, cheetah_bytes=4_000_000),
        "probe.packets.v1": m["PacketSummary"](flow_id="p-1", link_id="esnet-a", ts_ns=ns, src_addr=address("198.18.1.10"), length=1500, tcp_flags=0x18, sampling_rate=1000, tcp_window=65535),
        "probe.counters.v1": m["ProbeCounters"](probe_id="probe-1", link_id="esnet-a", started_ms=START_MS - 60_000, at_ms=START_MS, packets=10**6, bytes=9 * 10**8, truncated_l3=2, fragment=3, port_missed=7, kafka_undeliverable=1, threshold_version=3, threshold_bps=5e8),
        "snmp.counters.v1": m["SnmpCounters"](link_id="esnet-a", device="r1", if_index=7, polled_ms=START_MS, if_hc_out_octets=2**40, if_hc_out_ucast_pkts=10**9, if_out_discards=17, if_high_speed_mbps=100_000, counters_reset=True, sys_uptime_ticks=4242),
        "transfers.v1": m["Transfer"](src_host="dtn1", dst_host="dtn2", tool="iperf3", streams=4, bytes=10**11, seconds=100.5, start_ms=START_MS, end_ms=START_MS + 100_500, stream_rates_bps=[1e9, 2e9], stream_seconds=[100.0, 100.5]),
        "links.stats.v1": m["LinkStats"](link_id="esnet-a", window_start_ms=START_MS, window_end_ms=START_MS + 3_600_000, t1_ms=100, t2_ms=3_600_000, bins=36000, mean_bg_bps=2e8, burstiness=0.7, utilization=0.31, capacity_bps=1e9, hour_of_day=13, sliding=True),
        "thresholds.v1": m["Threshold"](link_id="esnet-a", version=3, mode=2, rate_bps=5e8, computed_ms=START_MS, capacity_bps=1e9, mean_bg_bps=2e8, burstiness=0.7, loss_acceptable=1e-4, reason="table: largest R within l_acpt"),
        "redirects.commands.v1": m["RedirectCommand"](command_id="c-1", issued_ms=START_MS, expires_ms=START_MS + 600_000, device_id="r1", src_prefix=address("198.18.1.0"), src_prefix_len=120, dst_prefix=address("198.18.2.0"), dst_prefix_len=120, proto=6, action=1, reason="cheetah p-1", cheetah_flow_id="p-1", threshold_version=3, link_id="esnet-a", key_id="k1", hmac=b"\x01\xab"),
        "redirects.decisions.v1": m["RedirectCommand"](command_id="c-2", issued_ms=START_MS, expires_ms=START_MS + 600_000, device_id="r1", action=1, reason="cheetah p-2", refusal="device r1 has K = 100 active rules"),
        "redirects.acks.v1": m["RedirectAck"](command_id="c-1", device_id="r1", status=1, detail="tc filter added", acked_ms=START_MS + 5, adapter="tc"),
        "throughput.v1": m["Throughput"](src_host="dtn1", dst_host="dtn2", start_ms=START_MS, end_ms=START_MS + 1000, streams=4, bytes=10**9, sum_stream_bps=8e9, passive=True),
        "alerts.v1": m["Alert"](alert_id="a-1", kind="step_change", src_host="dtn1", dst_host="dtn2", detected_ms=START_MS, severity="warning", message="throughput fell", value=1e9, expected=4e9),
        "incast.guard.v1": m["IncastGuardSample"](time_ms=START_MS, device_id="every-topic", receiver=address("10.9.0.1"), senders=8, buffer_bytes=65536, share_bytes=6144, command_id="rc-1"),
        "fabric.links.v1": m["FabricLinkState"](
            fabric="leaf-spine", round_ms=START_MS, link_id="leaf1:2>spine1:1", from_node="leaf1", from_port=2, to_node="spine1", to_port=1,
            between_switches=True, capacity_bps=1e7, threshold_bps=7e6, measured=True, counter_bps=8e6, utilisation_bps=8e6, over_threshold=True,
            flows=2, sampled_bps=8e6, elephants=2, top_src=address("10.0.1.2"), top_dst=address("10.0.2.2"), top_src_port=40001,
            top_dst_port=5201, top_proto=6, top_bps=4.5e6),
    }
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    for topic, record in records.items():
        producer.produce(topic, record.SerializeToString())
    producer.produce("thresholds.v1", b"\x08garbage")  # undecodable: kept in rejected, never stalls the table
    assert producer.flush(30) == 0
    warehouse = start_warehouse(tmp_path / "data", brokers=broker.bootstrap, group_prefix="every-topic")
    try:
        url = warehouse.url
        tables = ("probe_flights", "probe_bins", "probe_packets", "probe_counters", "snmp_counters", "transfers", "link_stats", "thresholds",
                  "redirect_commands", "redirect_decisions", "redirect_acks", "throughput", "alerts", "incast_guard",
                  "fabric_links")
        wait_until(lambda: all(count(url, t) == 1 for t in tables) and count(url, "rejected WHERE source_topic = 'thresholds.v1'") == 1,
                   "one row in every table and the undecodable threshold in rejected")
        expect = {
            "SELECT toString(dst_addr), first_at, cheetah, rate_bps FROM probe_flights":
                f"2001:db8::2\t{sql(url, f'SELECT fromUnixTimestamp64Nano({ns}, {chr(39)}UTC{chr(39)})').strip()}\ttrue\t1000000000\n",
            "SELECT bytes - cheetah_bytes, bin_ms FROM probe_bins": "5000000\t100\n",
            "SELECT tcp_flags, sampling_rate, toString(src_addr) FROM probe_packets": "24\t1000\t::ffff:198.18.1.10\n",
            "SELECT started_at, at, not_flow_packets, port_drops, kafka_undeliverable FROM probe_counter_increments":
                f"{sql(url, f'SELECT fromUnixTimestamp64Milli({START_MS - 60_000}, {chr(39)}UTC{chr(39)})').strip()}\t"
                f"{sql(url, f'SELECT fromUnixTimestamp64Milli({START_MS}, {chr(39)}UTC{chr(39)})').strip()}\t5\t7\t1\n",
            "SELECT if_hc_out_octets, if_out_discards, if_high_speed_mbps, counters_reset, sys_uptime_ticks FROM snmp_counters":
                f"{2**40}\t17\t100000\ttrue\t4242\n",
            "SELECT stream_rates_bps, stream_seconds, seconds FROM transfers": "[1000000000,2000000000]\t[100,100.5]\t100.5\n",
            "SELECT sliding, hour_of_day, burstiness FROM link_stats": "true\t13\t0.7\n",
            "SELECT mode, version, reason FROM thresholds": "table\t3\ttable: largest R within l_acpt\n",
            "SELECT action, toString(src_prefix), src_prefix_len, hmac_hex FROM redirect_commands": "scavenger\t::ffff:198.18.1.0\t120\t01AB\n",
            "SELECT rule_id, state FROM redirect_rules FINAL": "c-1\tactive\n",
            "SELECT status, adapter FROM redirect_acks": "applied\ttc\n",
            "SELECT outcome, refusal FROM redirect_decisions": "refused\tdevice r1 has K = 100 active rules\n",
            "SELECT passive, sum_stream_bps FROM throughput": "true\t8000000000\n",
            "SELECT kind, severity, expected FROM alerts": "step_change\twarning\t4000000000\n",
            "SELECT sum(bins), sum(bg_bytes) FROM link_load_1h": "1\t5000000\n",
            "SELECT toString(receiver), senders, share_bytes, command_id FROM incast_guard": "::ffff:10.9.0.1\t8\t6144\trc-1\n",
            # 8 Mb/s of 10: utilisation 0.8; the biggest flow's addresses IPv4-mapped.
            "SELECT link_id, from_port, utilisation, over_threshold, elephants, toString(top_src), top_dst_port, top_bps, reroute_command_id FROM fabric_links":
                "leaf1:2>spine1:1\t2\t0.8\ttrue\t2\t::ffff:10.0.1.2\t5201\t4500000\t\n",
        }
        for query, expected in expect.items():
            assert sql(url, query) == expected, query
    finally:
        assert warehouse.stop() == 0, warehouse.stderr()
        del producer


# After the test above: it reads incast.guard.v1 from the start and expects exactly its own record.
def test_incast_guard_samples_land_once_with_the_values_the_noc_shows(
    broker: KafkaBroker, messages: dict[str, Any], tmp_path: Path
) -> None:
    """incast.guard.v1 (the incast adapter's samples, a plain producer) -> incast_guard, and the NOC's
    dataset over it (clickhouse/queries/dashboards/noc_incast_guard.sql): every sample once, values
    as sent, per receiver and minute as the charts aggregate them; an undecodable sample and one whose
    receiver is not 16 bytes go to `rejected` and the samples after them are stored. Every expected
    value is written out by hand from the samples below. Records of this module's other tests on the
    topic carry other device ids and are left out by the device filter."""
    sample = messages["IncastGuardSample"]
    device = "tor-1/port-r1"
    minute = (START_MS // 60_000 + 1) * 60_000  # samples at minute + 0, 1, 2 s and minute + 60 s: two minutes
    # (receiver, second, senders, one_mss, max_backlog, buffer): share = 3 * buffer // (4 * senders).
    rows = [
        ("10.9.0.1", 0, 1, 0, 10_000, 262_144), ("10.9.0.1", 1, 4, 0, 150_000, 262_144),
        ("10.9.0.1", 2, 8, 0, 190_000, 262_144), ("10.9.0.1", 60, 2, 0, 20_000, 262_144),
        ("2001:db8::9", 0, 8, 2, 52_428, 65_536), ("2001:db8::9", 1, 8, 0, 30_000, 65_536),
    ]
    records = [
        sample(time_ms=minute + second * 1000, device_id=device, receiver=address(ip), senders=n, senders_one_mss=one,
               syn_acks_total=n + one, releases_total=0, acks_seen_total=100 * (k + 1), acks_capped_total=90 * (k + 1),
               backlog_bytes=peak // 2, max_backlog_bytes=peak, buffer_bytes=b, share_bytes=3 * b // (4 * n),
               queue_drops_total=k, command_id=f"rwnd-{ip}").SerializeToString()
        for k, (ip, second, n, one, peak, b) in enumerate(rows)
    ]
    bad_receiver = sample(time_ms=minute, device_id=device, receiver=b"\x0a\x09\x00", senders=3).SerializeToString()
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    for value in [*records[:3], b"\xff\xff\xff not an IncastGuardSample", bad_receiver, *records[3:]]:
        producer.produce("incast.guard.v1", value, key=device.encode())
    assert producer.flush(30) == 0
    warehouse = start_warehouse(tmp_path / "data", brokers=broker.bootstrap, group_prefix="incast")
    try:
        url = warehouse.url
        mine = f"incast_guard WHERE device_id = '{device}'"
        wait_until(lambda: count(url, mine) == 6 and count(url, "rejected WHERE source_topic = 'incast.guard.v1'") == 2,
                   "the six samples and the two bad records")
        assert count(url, mine) == 6
        assert count(url, "rejected WHERE source_topic = 'incast.guard.v1'") == 2
        at = sql(url, f"SELECT fromUnixTimestamp64Milli({minute + 2000}, 'UTC')").strip()
        assert sql(url, f"SELECT toString(receiver), at, senders, share_bytes, backlog_bytes, queue_drops_total, command_id "
                        f"FROM {mine} AND senders = 8 AND buffer_bytes = 262144") == (
            f"::ffff:10.9.0.1\t{at}\t8\t24576\t95000\t2\trwnd-10.9.0.1\n"
        )
        # Per receiver: samples, most senders, most held at 1 MSS, largest backlog, smallest cap, last counters.
        assert sql(url, f"SELECT toString(receiver), count(), max(senders), max(senders_one_mss), max(max_backlog_bytes), "
                        f"min(share_bytes), max(syn_acks_total), max(acks_capped_total) FROM {mine} "
                        f"GROUP BY receiver ORDER BY receiver") == (
            "::ffff:10.9.0.1\t4\t8\t0\t190000\t24576\t8\t360\n"
            "2001:db8::9\t2\t8\t2\t52428\t6144\t10\t540\n"
        )
        # What the NOC's three charts draw: per receiver and minute, the most senders (full share, 1 MSS),
        # the largest backlog against the shared 75 % and B, the smallest window cap.
        dataset = (DEFAULT_QUERIES_DIR / "dashboards" / "noc_incast_guard.sql").read_text()
        first = sql(url, f"SELECT toStartOfMinute(fromUnixTimestamp64Milli({minute}, 'UTC'))").strip()
        second = sql(url, f"SELECT toStartOfMinute(fromUnixTimestamp64Milli({minute + 60_000}, 'UTC'))").strip()
        assert sql(url, f"SELECT receiver_ip, minute, max(senders), max(senders_one_mss), max(max_backlog_bytes), "
                        f"max(shared_bytes), max(buffer_bytes), min(share_bytes) FROM ({dataset}) WHERE device_id = '{device}' "
                        f"GROUP BY receiver_ip, minute ORDER BY receiver_ip, minute") == (
            f"10.9.0.1\t{first}\t8\t0\t190000\t196608\t262144\t24576\n"
            f"10.9.0.1\t{second}\t2\t0\t20000\t196608\t262144\t98304\n"
            f"2001:db8::9\t{first}\t8\t2\t52428\t49152\t65536\t6144\n"
        )
    finally:
        assert warehouse.stop() == 0, warehouse.stderr()
        del producer


# Last in this module: its link_id 'held-link' records stay on probe.bins.v1, which the test above
# reads from the start with a new group and expects exactly one probe_bins row from.
def test_migrate_url_holds_kafka_tables_so_every_rollup_gets_a_record_already_on_the_topic(
    broker: KafkaBroker, messages: dict[str, Any], tmp_path: Path
) -> None:
    """`migrate --url` (a ClickHouse server; here the warehouse's HTTP front with no migration
    applied, as in deploy/tests/test_migrate_step.py): 0005 creates probe_bins_queue, 0013 the
    link_load rollups on probe_bins. A record on probe.bins.v1 before migrate runs must reach
    probe_bins and all three rollups; one produced afterwards too (the released table consumes)."""
    from confluent_kafka import Producer

    def link_bin(bin_start_ms: int) -> bytes:
        return messages["LinkBin"](link_id="held-link", probe_id="probe-9", bin_start_ms=bin_start_ms, bin_ms=100,
                                   bytes=9_000_000, packets=6000, cheetah_bytes=4_000_000).SerializeToString()

    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    producer.produce("probe.bins.v1", link_bin(START_MS))
    assert producer.flush(30) == 0
    no_migrations = tmp_path / "none"
    no_migrations.mkdir()
    warehouse = start_warehouse(tmp_path / "data", extra_args=("--migrations", str(no_migrations), "--tables", str(DEFAULT_TABLES_DIR)))
    try:
        url = warehouse.url
        done = run_cli("migrate", "--url", url, "--kafka-brokers", broker.bootstrap, "--kafka-group-prefix", "held", timeout=300)
        assert done.returncode == 0, done.stderr
        queue = sql(url, "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'probe_bins_queue' FORMAT TSVRaw")
        assert f"kafka_broker_list = '{broker.bootstrap}'" in queue and "kafka_group_name = 'held.probe_bins'" in queue, queue
        # bytes - cheetah_bytes = 9 000 000 - 4 000 000, by hand.
        rollups = {f"SELECT sum(bins), sum(bg_bytes) FROM link_load_{span} WHERE link_id = 'held-link'": "1\t5000000\n"
                   for span in ("1m", "1h", "1d")}
        wait_until(lambda: count(url, "probe_bins WHERE link_id = 'held-link'") == 1, "the record on the topic before migrate", 120)
        wait_until(lambda: all(sql(url, q) == e for q, e in rollups.items()), "every link_load rollup of that record", 60)
        producer.produce("probe.bins.v1", link_bin(START_MS + 100))
        assert producer.flush(30) == 0
        wait_until(lambda: count(url, "probe_bins WHERE link_id = 'held-link'") == 2, "a record produced after migrate", 120)
        assert count(url, "probe_bins WHERE link_id = 'held-link'") == 2
    finally:
        assert warehouse.stop() == 0, warehouse.stderr()
        del producer
