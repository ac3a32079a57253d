"""One ClickHouse replica for test_replicated_migrations.py: a process of its own (chdb has one
engine per process) opening chdb with a ``<zookeeper>`` section and ``<macros>``, migrating with
the warehouse's runner, and writing what the engine then reports to a JSON file.

Usage: python -m tests.replica_process DATA_DIR ZK_PORT REPLICA OUT.json DB:MODE [DB:MODE ...]
MODE is ``plain`` (single-server tables) or ``replicated`` (``--replicated``). Kafka tables are
held and released as ``migrate --url`` does (``apply_held``), on a closed port.

chdb runs no interserver HTTP server, so a replica of a Replicated* table stays read-only
(docs/DEPLOY.md, "Replicated tables"): its writes fail with TABLE_IS_READ_ONLY. The client here
lets exactly those through and lists them in the output, which the test compares with the writes
it expects, and separately the statements that failed only because a refused ALTER did not add
the column their error names (0016's second ALTER and its view); any other error fails the run.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from pathlib import Path

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR
from cheetah_warehouse.clients import EngineClient
from cheetah_warehouse.embedded import EmbeddedEngine, EngineConfig
from cheetah_warehouse.errors import QueryError
from cheetah_warehouse.kafka_tables import apply_held
from cheetah_warehouse.replication import Replication

TABLE_IS_READ_ONLY = 242


class ReadOnlyReplicaClient(EngineClient):
    """EngineClient that records (instead of raising) the writes a read-only replica refuses."""

    def __init__(self, engine: EmbeddedEngine, database: str) -> None:
        super().__init__(engine, database)
        self.refused: list[str] = []  # TABLE_IS_READ_ONLY
        self.cascaded: list[str] = []  # failed only because a refused ALTER did not add a column

    def query(self, sql, fmt="TabSeparated", params=None):  # type: ignore[override]
        try:
            # Without it an insert into a read-only replica retries for minutes before it fails.
            return self._engine.query(
                sql, fmt, params=params, database=self._database, settings={"insert_keeper_max_retries": "0"}
            ).data
        except QueryError as exc:
            statement = " ".join(re.sub(r"--[^\n]*", "", sql).split())[:120]  # without its comments
            if exc.code == TABLE_IS_READ_ONLY:
                self.refused.append(statement)
                return b""
            # An error naming a column that a refused ALTER would have added: the ALTER's consequence.
            added = {m.group(1) for r in self.refused for m in re.finditer(r"ADD COLUMN IF NOT EXISTS (\w+)", r)}
            named = set(re.findall(r"column (?:with name )?'?(\w+)'?", exc.text))
            if added & named:
                self.cascaded.append(statement)
                return b""
            raise


def main(argv: list[str]) -> int:
    data_dir, zk_port, replica, out = Path(argv[0]), int(argv[1]), argv[2], Path(argv[3])
    targets = [item.split(":") for item in argv[4:]]
    extra = (
        f"  <zookeeper><node><host>127.0.0.1</host><port>{zk_port}</port></node>"
        "<session_timeout_ms>30000</session_timeout_ms></zookeeper>\n"
        f"  <macros><cluster>cheetah</cluster><shard>0</shard><replica>{replica}</replica></macros>\n"
    )
    engine = EmbeddedEngine(EngineConfig(data_dir, DEFAULT_SCHEMAS_DIR, extra_config=extra)).open()
    report: dict[str, object] = {"refused": {}, "cascaded": {}, "tables": {}, "replicas": {}, "log": []}
    for database, mode in targets:
        engine.query(f"CREATE DATABASE IF NOT EXISTS {database}")
        client = ReadOnlyReplicaClient(engine, database)
        replication = Replication() if mode == "replicated" else None
        apply_held(client, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": "127.0.0.1:1"},
                   log=report["log"].append, replication=replication)  # type: ignore[union-attr]
        report["refused"][database] = client.refused  # type: ignore[index]
        report["cascaded"][database] = client.cascaded  # type: ignore[index]
        report["tables"][database] = json.loads(  # type: ignore[index]
            b"[" + engine.query(
                "SELECT name, engine, engine_full, create_table_query FROM system.tables "
                f"WHERE database = '{database}' ORDER BY name", "JSONEachRow",
            ).data.replace(b"}\n{", b"},{") + b"]"
        )
        report["replicas"][database] = json.loads(  # type: ignore[index]
            b"[" + engine.query(
                "SELECT table, zookeeper_path, replica_name, replica_path, is_readonly, total_replicas "
                f"FROM system.replicas WHERE database = '{database}' ORDER BY table", "JSONEachRow",
            ).data.replace(b"}\n{", b"},{") + b"]"
        )
    out.write_text(json.dumps(report, indent=1))
    # chdb 26.9 aborts or hangs in close() with replicated tables open ("mutex lock failed"):
    # the report is written, so leave without it; ZooKeeper ends the session on its own.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BaseException:  # noqa: BLE001 - reported, then leave without chdb's close() (above)
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
