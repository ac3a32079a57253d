"""The embedded warehouse holds no Kafka engine tables: it consumes the topics itself (consumer.py).

The migrations are the same for a ClickHouse server and the embedded warehouse, so they create
the Kafka tables and their views. In a data directory they are created pointing at no broker
(``NO_BROKER``, a closed port: a Kafka table with a view starts consuming at once, and one that
wrote a block between its creation and its drop would store it without a token) and dropped right
after the migrations, by ``serve`` and ``migrate --data``; the views that read them stay, idle (a
server's Kafka tables write through them). ``serve`` also drops them before migrating: a data
directory written before the warehouse consumed itself holds Kafka tables with real brokers. The
consumer groups are the Kafka tables' groups, so such a directory continues from the offsets its
Kafka tables committed.

A server keeps its Kafka tables, and the same race needs the same hold: a Kafka table with a view
consumes as soon as it exists, while a later migration may still add views on the table it feeds
(0013's rollups on ``probe_bins``, ``flows``, ...), which would never see what it read meanwhile.
So ``migrate --url`` (``apply_held``) creates them on ``NO_BROKER`` too and, once every pending
migration is applied, creates exactly the held ones again on the real brokers: the migration's
own definition read back from ``system.tables`` with only the broker list replaced (the Kafka
engine has no ALTER), so columns, settings and consumer group stay as the migration declared.
In replicated mode the drop and the creation go through the same rule as the migrations
(``replication.py``: ON CLUSTER), so every replica's Kafka table is released, each keeping the
one consumer group: the replicas split the topic's partitions between them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Mapping

from . import migrations
from .clients import SqlClient
from .replication import Replication, rewrite

NO_BROKER = "127.0.0.1:9"  # the discard port, closed: {{kafka_brokers}} of the migrations of a data directory


def drop_kafka_tables(client: SqlClient, log: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> list[str]:
    """Drop every Kafka engine table of the current database; return their names."""
    names = client.query(
        "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'Kafka' ORDER BY name",
        "TSVRaw",
    ).decode().split()
    for name in names:
        client.query(f"DROP TABLE {name} SYNC")
    if names:
        log(f"dropped {len(names)} Kafka engine table(s): the embedded warehouse consumes the topics itself")
    return names


_HELD = re.compile(r"(kafka_broker_list\s*=\s*')" + re.escape(NO_BROKER) + "'")


def apply_held(
    client: SqlClient,
    directory: Path,
    given: Mapping[str, str | None],
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    replication: Replication | None = None,
) -> list[migrations.Migration]:
    """Apply pending migrations to a server with their Kafka tables held; then release them."""
    brokers = given.get("kafka_brokers")
    if brokers is None or brokers == NO_BROKER:  # nothing to hold (without it a migration needing it fails naming --kafka-brokers)
        return migrations.apply(client, directory, given, log, replication)
    migrations.resolve_variables(given)  # refuse a bad broker list before anything is created
    applied = migrations.apply(client, directory, {**given, "kafka_brokers": NO_BROKER}, log, replication)
    released = release_held_kafka_tables(client, brokers, replication)
    if released:
        log(f"{len(released)} Kafka engine table(s) created by the migrations now consume from {brokers}")
    return applied


def release_held_kafka_tables(client: SqlClient, brokers: str, replication: Replication | None = None) -> list[str]:
    """Create every Kafka table of the current database that points at ``NO_BROKER`` again on
    ``brokers`` (also those a failed earlier run left held); return their names."""
    rows = client.query(
        "SELECT name, create_table_query FROM system.tables "
        "WHERE database = currentDatabase() AND engine = 'Kafka' ORDER BY name",
        "TSVRaw",
    ).decode()
    released: list[str] = []
    for line in rows.splitlines():
        name, ddl = line.split("\t", 1)
        if not _HELD.search(ddl):
            continue
        client.query(rewrite(f"DROP TABLE {name} SYNC", replication))
        released_ddl = _HELD.sub(lambda m: m.group(1) + migrations.sql_literal_value(brokers) + "'", ddl, count=1)
        client.query(rewrite(released_ddl, replication))
        released.append(name)
    return released
