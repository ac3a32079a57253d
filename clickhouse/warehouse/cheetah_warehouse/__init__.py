"""Cheetah's embedded warehouse: the ClickHouse engine in-process (chdb) owning
a data directory, fed by its own Kafka consumer (each row once, also across a
SIGKILL: consumer.py), served over ClickHouse HTTP.

In distributed mode a ClickHouse server runs the same migrations
(clickhouse/migrations), reads the topics with their Kafka engine tables (at
least once), and replaces everything here but the CLI's
``migrate``, ``query``, ``wait`` and ``report`` commands, which then use --url.
"""

from pathlib import Path

__version__ = "0.1.0"

_CLICKHOUSE_DIR = Path(__file__).resolve().parents[2]

DEFAULT_MIGRATIONS_DIR = _CLICKHOUSE_DIR / "migrations"
DEFAULT_QUERIES_DIR = _CLICKHOUSE_DIR / "queries"
DEFAULT_TABLES_DIR = _CLICKHOUSE_DIR / "tables"
DEFAULT_USERS_DIR = _CLICKHOUSE_DIR / "users.d"
DEFAULT_SCHEMAS_DIR = _CLICKHOUSE_DIR.parent / "schemas"
