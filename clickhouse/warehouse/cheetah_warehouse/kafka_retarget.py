"""Point existing Kafka engine tables at the brokers given on this start.

Migrations run once, so the broker list of the first start is baked into the
Kafka tables. The Kafka engine has no ALTER ... MODIFY SETTING, so a table
whose ``kafka_broker_list`` differs is dropped and created again from its own
definition with only the broker list replaced; its materialized views keep
their names and resume with it. The consumer group is kept (its committed
offsets live in Kafka), so nothing is read twice on the same cluster.
"""

from __future__ import annotations

import re
import sys
from typing import Callable

from .clients import SqlClient
from .migrations import sql_literal_value

_BROKER_SETTING = re.compile(r"kafka_broker_list\s*=\s*'((?:[^'\\]|\\.)*)'")
_GROUP_SETTING = re.compile(r"kafka_group_name\s*=\s*'((?:[^'\\]|\\.)*)'")


def retarget(
    client: SqlClient,
    brokers: str,
    group_prefix: str | None = None,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> list[str]:
    """Recreate Kafka tables whose broker list is not ``brokers``; return their names.

    A different group prefix is only reported: changing a table's consumer
    group would re-read its topic from the start.
    """
    rows = client.query(
        "SELECT name, create_table_query FROM system.tables "
        "WHERE database = currentDatabase() AND engine = 'Kafka' ORDER BY name",
        "TSVRaw",
    ).decode()
    changed: list[str] = []
    for line in rows.splitlines():
        name, ddl = line.split("\t", 1)
        group = _GROUP_SETTING.search(ddl)
        if group_prefix and group and not group.group(1).startswith(group_prefix + "."):
            log(
                f"warning: kafka table {name} keeps consumer group {group.group(1)!r}, not {group_prefix}.*: "
                "groups are fixed when a table is created (a new group would read its topic again from the start)"
            )
        match = _BROKER_SETTING.search(ddl)
        if match is None or match.group(1) == brokers:
            continue
        new_ddl = ddl[: match.start(1)] + sql_literal_value(brokers) + ddl[match.end(1) :]
        client.query(f"DROP TABLE {name} SYNC")
        client.query(new_ddl)
        log(f"kafka table {name}: brokers {match.group(1)} -> {brokers}")
        changed.append(name)
    return changed
