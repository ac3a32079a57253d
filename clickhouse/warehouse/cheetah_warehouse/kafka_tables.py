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
"""

from __future__ import annotations

import sys
from typing import Callable

from .clients import SqlClient

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
