"""The replicated mode's one rule (cheetah_warehouse/replication.py), on hand-written statements
with hand-written expectations. What a real engine makes of the rewritten migrations:
test_replicated_migrations.py."""

from __future__ import annotations

import pytest

from cheetah_warehouse.errors import WarehouseError
from cheetah_warehouse.replication import Replication, on_cluster, parse, replicated_engines, rewrite

PATH = "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'"


@pytest.mark.parametrize(
    "engine, expected",
    [
        ("MergeTree", f"ReplicatedMergeTree({PATH})"),
        ("MergeTree()", f"ReplicatedMergeTree({PATH})"),
        ("ReplacingMergeTree(seq)", f"ReplicatedReplacingMergeTree({PATH}, seq)"),
        ("ReplacingMergeTree", f"ReplicatedReplacingMergeTree({PATH})"),
        ("SummingMergeTree", f"ReplicatedSummingMergeTree({PATH})"),
        ("SummingMergeTree((bytes, packets))", f"ReplicatedSummingMergeTree({PATH}, (bytes, packets))"),
        ("AggregatingMergeTree", f"ReplicatedAggregatingMergeTree({PATH})"),
        ("CollapsingMergeTree(sign)", f"ReplicatedCollapsingMergeTree({PATH}, sign)"),
        ("VersionedCollapsingMergeTree(sign, v)", f"ReplicatedVersionedCollapsingMergeTree({PATH}, sign, v)"),
        ("ReplacingMergeTree(toUInt64(concat('a)', b)))", f"ReplicatedReplacingMergeTree({PATH}, toUInt64(concat('a)', b)))"),
    ],
)
def test_each_merge_tree_engine_becomes_its_replicated_counterpart(engine, expected):
    ddl = f"CREATE TABLE IF NOT EXISTS t\n(\n    a UInt32\n)\nENGINE = {engine}\nORDER BY a\nTTL x + INTERVAL 1 DAY"
    want = f"CREATE TABLE IF NOT EXISTS t\n(\n    a UInt32\n)\nENGINE = {expected}\nORDER BY a\nTTL x + INTERVAL 1 DAY"
    assert rewrite(ddl, Replication()) == want


def test_a_migration_shaped_statement_with_comments_and_a_cluster():
    ddl = (
        "-- the latest event of a flow wins\n"
        "CREATE TABLE IF NOT EXISTS cheetahs\n(\n    flow_id String,\n    seq UInt64\n)\n"
        "ENGINE = ReplacingMergeTree(seq)\nORDER BY flow_id\nTTL toDateTime(event_at) + INTERVAL 400 DAY"
    )
    assert rewrite(ddl, Replication("{cluster}")) == (
        "-- the latest event of a flow wins\n"
        "CREATE TABLE IF NOT EXISTS cheetahs ON CLUSTER '{cluster}'\n(\n    flow_id String,\n    seq UInt64\n)\n"
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', seq)\n"
        "ORDER BY flow_id\nTTL toDateTime(event_at) + INTERVAL 400 DAY"
    )


def test_kafka_tables_views_and_dictionaries_keep_their_engine_and_get_on_cluster():
    kafka = "CREATE TABLE IF NOT EXISTS flows_queue\n(\n    a UInt32\n)\nENGINE = Kafka\nSETTINGS kafka_group_name = 'g.flows'"
    assert rewrite(kafka, Replication()) == kafka  # the same consumer group on every replica
    assert rewrite(kafka, Replication("{cluster}")) == (
        "CREATE TABLE IF NOT EXISTS flows_queue ON CLUSTER '{cluster}'\n(\n    a UInt32\n)\nENGINE = Kafka\n"
        "SETTINGS kafka_group_name = 'g.flows'"
    )
    assert rewrite("CREATE MATERIALIZED VIEW IF NOT EXISTS flows_mv TO flows AS\nSELECT a FROM flows_queue", Replication("c1")) == (
        "CREATE MATERIALIZED VIEW IF NOT EXISTS flows_mv ON CLUSTER 'c1' TO flows AS\nSELECT a FROM flows_queue"
    )
    assert rewrite("CREATE VIEW IF NOT EXISTS v AS SELECT 1", Replication("c1")) == (
        "CREATE VIEW IF NOT EXISTS v ON CLUSTER 'c1' AS SELECT 1"
    )
    assert rewrite("CREATE DICTIONARY IF NOT EXISTS sites\n(\n    prefix String\n)", Replication("c1")) == (
        "CREATE DICTIONARY IF NOT EXISTS sites ON CLUSTER 'c1'\n(\n    prefix String\n)"
    )


def test_drop_and_alter_get_on_cluster_and_inserts_are_sent_as_they_are():
    c = Replication("{cluster}")
    assert rewrite("DROP VIEW IF EXISTS snmp_counters_mv", c) == "DROP VIEW IF EXISTS snmp_counters_mv ON CLUSTER '{cluster}'"
    assert rewrite("DROP TABLE flows_queue SYNC", c) == "DROP TABLE flows_queue ON CLUSTER '{cluster}' SYNC"
    assert rewrite("ALTER TABLE snmp_counters ADD COLUMN IF NOT EXISTS r Bool AFTER s", c) == (
        "ALTER TABLE snmp_counters ON CLUSTER '{cluster}' ADD COLUMN IF NOT EXISTS r Bool AFTER s"
    )
    insert = "INSERT INTO schema_migrations (version) SELECT {version:UInt32}"
    assert rewrite(insert, c) == insert
    # A definition read back from system.tables (the Kafka table release): qualified name.
    assert rewrite("CREATE TABLE cheetah.flows_queue (`a` UInt32) ENGINE = Kafka SETTINGS x = 1", c) == (
        "CREATE TABLE cheetah.flows_queue ON CLUSTER '{cluster}' (`a` UInt32) ENGINE = Kafka SETTINGS x = 1"
    )


def test_without_replication_every_statement_is_unchanged():
    ddl = "CREATE TABLE IF NOT EXISTS t (a UInt32) ENGINE = ReplacingMergeTree(a) ORDER BY a"
    assert rewrite(ddl, None) == ddl
    assert parse(False, None) is None


def test_what_the_rule_does_not_know_is_refused_never_sent_unreplicated():
    with pytest.raises(WarehouseError, match="engine CoalescingMergeTree has no replicated form"):
        replicated_engines("CREATE TABLE t (a UInt32) ENGINE = CoalescingMergeTree ORDER BY a")
    with pytest.raises(WarehouseError, match="has no ON CLUSTER form"):
        on_cluster("RENAME TABLE a TO b", "{cluster}")
    with pytest.raises(WarehouseError, match="--on-cluster needs --replicated"):
        parse(False, "{cluster}")
    with pytest.raises(WarehouseError, match="cluster name"):
        Replication("x'; DROP")
    # Already replicated (read back from a server): left as it is.
    done = f"CREATE TABLE t (a UInt32) ENGINE = ReplicatedMergeTree({PATH}) ORDER BY a"
    assert replicated_engines(done) == done
