"""Command line: serve, query, migrate, wait, report, schema ... (``--help`` on each)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import DEFAULT_MIGRATIONS_DIR, DEFAULT_QUERIES_DIR, DEFAULT_SCHEMAS_DIR, DEFAULT_TABLES_DIR, DEFAULT_USERS_DIR, migrations
from .clients import EngineClient, HttpClient, SqlClient
from .embedded import EmbeddedEngine, EngineConfig, data_directory_owner
from .consumer import DEFAULT_MAX_BATCH_RECORDS, read_client_options
from .errors import DataDirectoryLocked, QueryError, WarehouseError
from .kafka_tables import NO_BROKER, apply_held, drop_kafka_tables
from .replication import parse as parse_replication

PROG = "python -m cheetah_warehouse"


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not in 0..65535 (0 picks a free port)")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not positive")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value:g} is negative")
    return value


def _add_kafka_options(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument(
        "--kafka-brokers",
        required=required,
        metavar="HOST:PORT[,HOST:PORT]",
        help="Kafka bootstrap servers the warehouse (serve) or a server's Kafka engine tables (migrate --url) "
        "read from (template {{kafka_brokers}})",
    )
    parser.add_argument(
        "--kafka-group-prefix",
        metavar="PFX",
        help="consumer group prefix; each table's group is PFX.<table> (PFX.flows, PFX.flowsets, ...; "
        "template {{kafka_group_prefix}}; default cheetah-warehouse)",
    )
    parser.add_argument(
        "--kafka-flush-interval-ms",
        metavar="MS",
        help="longest a consumed batch waits before it is written (template {{kafka_flush_interval_ms}}; default 1000)",
    )
    parser.add_argument(
        "--migrations", type=Path, default=DEFAULT_MIGRATIONS_DIR, metavar="DIR",
        help=f"migrations directory (default {DEFAULT_MIGRATIONS_DIR})",
    )


def _add_schemas_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--schemas", type=Path, default=DEFAULT_SCHEMAS_DIR, metavar="DIR",
        help=f"protobuf schemas root holding cheetah/v1/*.proto (default {DEFAULT_SCHEMAS_DIR})",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Cheetah's embedded warehouse: ClickHouse in-process (chdb), fed from Kafka, "
        "served over the ClickHouse HTTP protocol on 127.0.0.1.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser(
        "serve",
        help="own a data directory: apply migrations, consume the result topics, serve HTTP",
        description="Open DIR (one process owns it), apply pending migrations, consume the result topics "
        "and answer ClickHouse HTTP on 127.0.0.1:PORT. Prints one line 'READY http://127.0.0.1:PORT' on "
        "stdout when ready; SIGTERM or SIGINT stop it cleanly (exit 0).",
    )
    serve.add_argument("--data", type=Path, required=True, metavar="DIR", help="data directory (created if missing)")
    serve.add_argument("--http-port", type=_port, required=True, metavar="PORT", help="HTTP port on 127.0.0.1; 0 picks a free one")
    _add_kafka_options(serve, required=True)
    _add_schemas_option(serve)
    serve.add_argument(
        "--users", type=Path, default=DEFAULT_USERS_DIR, metavar="DIR",
        help=f"users.d directory: read-only users for dashboards (default {DEFAULT_USERS_DIR})",
    )
    serve.add_argument(
        "--tables", type=Path, metavar="DIR",
        help="table declarations: which topic each table stores and how (default: tables/ beside --migrations, "
        f"{DEFAULT_TABLES_DIR} by default)",
    )
    serve.add_argument(
        "--kafka-max-batch-records", type=_positive_int, default=DEFAULT_MAX_BATCH_RECORDS, metavar="N",
        help=f"most records written in one batch per partition (default {DEFAULT_MAX_BATCH_RECORDS})",
    )
    serve.add_argument(
        "--kafka-config", type=Path, metavar="FILE",
        help="librdkafka properties (key=value lines) added to every consumer's configuration: the "
        "warehouse's Kafka credentials, e.g. security.protocol=SASL_SSL, sasl.mechanisms=SCRAM-SHA-512, "
        "sasl.username, sasl.password, ssl.ca.location (docs/DEPLOY.md, \"Security\"); keep it owner-only",
    )
    serve.add_argument(
        "--stop-merges", action="store_true",
        help="stop background merges before consuming (queries/stop_merges.sql), so that a row stored twice "
        "stays visible to a row count: for tests and the demo's stored-once check",
    )
    serve.add_argument(
        "--exit-on-stdin-eof", action="store_true",
        help="stop (as on SIGTERM) when stdin ends: a parent that keeps a pipe open on it dies in any way "
        "(kill -9 too) and the warehouse never outlives it; exit 1 if not stopped 30 s later",
    )
    serve.add_argument(
        "--log-level", default="warning", metavar="LEVEL",
        help="engine log level for DIR/logs/warehouse.log (default warning; librdkafka logs to DIR/logs/kafka.log)",
    )

    query = sub.add_parser(
        "query",
        help="run one SQL statement and print the result",
        description="Run SQL against a running warehouse (--url) or directly on a data directory that no "
        "process owns (--data).",
    )
    target = query.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", metavar="URL", help="warehouse or ClickHouse HTTP URL, e.g. http://127.0.0.1:8123")
    target.add_argument("--data", type=Path, metavar="DIR", help="data directory, when no serve owns it")
    query.add_argument(
        "--format", metavar="F",
        help="output format (default PrettyCompact on a terminal, TabSeparated otherwise)",
    )
    _add_schemas_option(query)
    query.add_argument("sql", metavar="SQL", help="the statement")

    migrate = sub.add_parser(
        "migrate",
        help="apply pending migrations to a data directory or a ClickHouse server",
        description="Apply clickhouse/migrations/NNNN_*.sql that schema_migrations does not list yet, "
        "substituting the template variables. Running it again is a no-op.",
    )
    target = migrate.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", metavar="URL", help="ClickHouse HTTP URL (distributed mode)")
    target.add_argument("--data", type=Path, metavar="DIR", help="data directory, when no serve owns it")
    _add_kafka_options(migrate, required=False)
    _add_schemas_option(migrate)
    migrate.add_argument(
        "--replicated", action="store_true",
        help="with --url: create every MergeTree-family table as its Replicated* engine, ZooKeeper path "
        "'/clickhouse/tables/{shard}/{database}/{table}', replica '{replica}' (server macros); the ledger "
        "schema_migrations too (clickhouse/README.md, \"Migrations\")",
    )
    migrate.add_argument(
        "--on-cluster", metavar="CLUSTER",
        help="with --replicated: run every CREATE, DROP and ALTER ON CLUSTER CLUSTER, e.g. '{cluster}' "
        "(the macro Altinity's operator defines), so that every replica gets every table, view and Kafka table",
    )

    wait = sub.add_parser(
        "wait",
        help="poll a count query until it reaches N",
        description="Run SQL every --interval seconds until its first value is at least N; progress on stderr. "
        "Exit 0 when reached, 1 on timeout.",
    )
    wait.add_argument("--url", required=True, metavar="URL", help="warehouse HTTP URL")
    wait.add_argument("--query", required=True, metavar="SQL", help="a query whose first column is a number")
    wait.add_argument("--expect-at-least", type=_positive, required=True, metavar="N")
    wait.add_argument("--timeout", type=_positive, required=True, metavar="S", help="seconds")
    wait.add_argument("--interval", type=_positive, default=0.5, metavar="S", help="seconds between polls (default 0.5)")

    sites = sub.add_parser(
        "sites",
        help="load the site prefixes (site_prefixes table and sites dictionary)",
        description="Replace the site prefixes with FILE (the sites JSON the report takes: site name -> "
        "list of CIDR prefixes), reload the `sites` dictionary and, unless --no-rebuild, recompute the "
        "rollups that carry sites.",
    )
    target = sites.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", metavar="URL", help="warehouse or ClickHouse HTTP URL")
    target.add_argument("--data", type=Path, metavar="DIR", help="data directory, when no serve owns it")
    _add_schemas_option(sites)
    sites.add_argument("file", type=Path, metavar="FILE", help='e.g. {"site-a": ["198.18.1.0/24"]}')
    sites.add_argument("--no-rebuild", action="store_true", help="only load; rollups keep their old sites")

    rollups = sub.add_parser(
        "rebuild-rollups",
        help="recompute every rollup from its source table",
        description="Truncate each rollup table (flows_1m/1h/1d, link_load_*, link_stats_*, "
        "flowsets_site_month) and refill it with its materialized view's own query over the source table.",
    )
    target = rollups.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", metavar="URL", help="warehouse or ClickHouse HTTP URL")
    target.add_argument("--data", type=Path, metavar="DIR", help="data directory, when no serve owns it")
    _add_schemas_option(rollups)

    report = sub.add_parser(
        "report",
        help="print the demo report: records, rejections, cheetahs, flowsets",
        description="Print records in and rejected, cheetahs, flowsets by N and the flowset shape "
        "(median, mean, 95th, 99th percentile, max of size, duration, rate) per site direction and overall.",
    )
    report.add_argument("--url", required=True, metavar="URL", help="warehouse or ClickHouse HTTP URL")
    report.add_argument(
        "--sites", type=Path, metavar="FILE",
        help='JSON object site name -> list of CIDR prefixes, e.g. {"lab-a": ["198.18.0.0/17"]}',
    )
    report.add_argument(
        "--queries", type=Path, default=DEFAULT_QUERIES_DIR, metavar="DIR",
        help=f"report SQL directory (default {DEFAULT_QUERIES_DIR})",
    )

    schema = sub.add_parser(
        "schema",
        help="the table declarations (clickhouse/tables): render, check against the migrations, write a migration",
        description="Each result table is declared once in clickhouse/tables/<table>.yaml; its table, Kafka "
        "table and views are generated from it (clickhouse/README.md, \"Tables\").",
    )
    actions = schema.add_subparsers(dest="schema_command", required=True, metavar="ACTION")
    render = actions.add_parser("render", help="print the CREATE statements of the declared tables")
    render.add_argument("table_names", nargs="*", metavar="TABLE", help="only these tables (default: all)")
    check = actions.add_parser(
        "check",
        help="exit 1, naming each difference, when the migrations do not give the declared schema",
        description="Apply every migration to a scratch database, the declarations to another, and compare "
        "what ClickHouse reports of both. Exit 0 when they agree, 1 otherwise.",
    )
    new_migration = actions.add_parser(
        "new-migration",
        help="write the next migration that makes the migrations give the declared schema",
        description="Write clickhouse/migrations/NNNN_NAME.sql (the next number) with the ALTERs and the "
        "re-created Kafka table and views that turn what the migrations give into what the tables declare; "
        "verified by applying it to a scratch database. Writes nothing when they already agree.",
    )
    new_migration.add_argument("name", metavar="NAME", help="lower-case name, e.g. flowsets_hops")
    new_migration.add_argument(
        "--drop-columns", action="store_true",
        help="write DROP COLUMN for columns no longer declared (their data is lost); refused otherwise",
    )
    for action in (render, check, new_migration):
        action.add_argument(
            "--tables", type=Path, default=DEFAULT_TABLES_DIR, metavar="DIR",
            help=f"table declarations (default {DEFAULT_TABLES_DIR})",
        )
        _add_schemas_option(action)
    for action in (check, new_migration):
        action.add_argument(
            "--migrations", type=Path, default=DEFAULT_MIGRATIONS_DIR, metavar="DIR",
            help=f"migrations directory (default {DEFAULT_MIGRATIONS_DIR})",
        )
    return parser


def _schema(args: argparse.Namespace) -> int:
    import tempfile

    from .declarations import create_statements, load_declarations, render_sql
    from .schema_migration import Scratch, differences, write_migration

    declarations = load_declarations(args.tables, args.schemas)
    if args.schema_command == "render":
        chosen = [d for d in declarations if not args.table_names or d.table in args.table_names]
        missing = sorted(set(args.table_names) - {d.table for d in declarations})
        if missing:
            raise WarehouseError(f"no declaration for {', '.join(missing)} in {args.tables}")
        sys.stdout.write(render_sql(create_statements(chosen)))
        return 0
    with tempfile.TemporaryDirectory(prefix="cheetah-schema-") as scratch_dir:
        with EmbeddedEngine(EngineConfig(Path(scratch_dir) / "data", args.schemas)) as engine:
            scratch = Scratch(engine)
            if args.schema_command == "check":
                found = differences(scratch, declarations, args.migrations)
                if found:
                    print(f"the migrations in {args.migrations} do not give the schema declared in {args.tables}:", file=sys.stderr)
                    for line in found:
                        print(f"  {line}", file=sys.stderr)
                    print(f"write the migration with: {PROG} schema new-migration NAME", file=sys.stderr)
                    return 1
                print(f"the migrations give the declared schema of {len(declarations)} tables", file=sys.stderr)
                return 0
            command = f"{PROG} schema new-migration {args.name}"
            path = write_migration(scratch, declarations, args.migrations, args.name, command, args.drop_columns)
            if path is None:
                print("the migrations already give the declared schema; nothing written", file=sys.stderr)
            else:
                print(path)
            return 0


def _kafka_values(args: argparse.Namespace) -> dict[str, str | None]:
    return {
        "kafka_brokers": args.kafka_brokers,
        "kafka_group_prefix": args.kafka_group_prefix,
        "kafka_flush_interval_ms": args.kafka_flush_interval_ms,
    }


def _open_data_dir(data_dir: Path, schemas_dir: Path) -> EmbeddedEngine:
    from .serve import running_url

    if data_directory_owner(data_dir.resolve()):
        url = running_url(data_dir.resolve())
        hint = f" {url}" if url else ""
        raise DataDirectoryLocked(f"data directory {data_dir} is owned by a running warehouse; use --url{hint}")
    if not data_dir.is_dir():
        raise WarehouseError(f"data directory {data_dir} does not exist; start `serve --data {data_dir}` first")
    return EmbeddedEngine(EngineConfig(data_dir, schemas_dir)).open()


def _exit_when_parent_goes(grace_s: float = 30.0) -> None:
    """SIGTERM ourselves once stdin ends (the parent holding its pipe is gone); exit 1 after grace_s."""
    import os
    import signal
    import threading

    def watch() -> None:
        # The raw descriptor, not sys.stdin.buffer: a read blocked in the buffered reader holds
        # its lock, and the interpreter's shutdown after a clean stop then fails on that lock
        # (a fatal error, after which the engine's signal handlers hang the process until SIGKILL).
        while os.read(0, 65536):
            pass
        # The parent read our stdout and stderr too: from now on they lead nowhere, and writing
        # to them would fail (EPIPE) in the middle of the clean stop.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.kill(os.getpid(), signal.SIGTERM)
        threading.Event().wait(grace_s)
        os._exit(1)  # not stopped grace_s after the parent went

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        from .serve import ServeConfig, serve

        if args.exit_on_stdin_eof:
            _exit_when_parent_goes()

        return serve(
            ServeConfig(
                data_dir=args.data,
                schemas_dir=args.schemas,
                migrations_dir=args.migrations,
                http_port=args.http_port,
                kafka_brokers=args.kafka_brokers,
                kafka_group_prefix=args.kafka_group_prefix,
                kafka_flush_interval_ms=args.kafka_flush_interval_ms,
                log_level=args.log_level,
                users_dir=args.users,
                tables_dir=args.tables,
                max_batch_records=args.kafka_max_batch_records,
                kafka_client_options=read_client_options(args.kafka_config) if args.kafka_config else {},
                stop_merges=DEFAULT_QUERIES_DIR / "stop_merges.sql" if args.stop_merges else None,
            )
        )

    if args.command == "query":
        if args.format is None:
            args.format = "PrettyCompact" if sys.stdout.isatty() else "TabSeparated"
        if args.url:
            output = HttpClient(args.url).query(args.sql, args.format)
        else:
            with _open_data_dir(args.data, args.schemas) as engine:
                output = engine.query(args.sql, args.format).data
        sys.stdout.buffer.write(output)
        sys.stdout.flush()
        return 0

    if args.command == "migrate":
        replication = parse_replication(args.replicated, args.on_cluster)
        if replication is not None and not args.url:
            raise WarehouseError("--replicated needs --url: a data directory is one server, its tables are never replicated")
        if args.url:
            # A server's Kafka tables consume only once every pending migration is applied (kafka_tables.py).
            apply_held(HttpClient(args.url), args.migrations, _kafka_values(args), replication=replication)
        else:
            args.data.mkdir(parents=True, exist_ok=True)
            with _open_data_dir(args.data, args.schemas) as engine:
                # A data directory holds no Kafka tables: serve consumes the topics itself (kafka_tables.py).
                drop_kafka_tables(EngineClient(engine))
                migrations.apply(EngineClient(engine), args.migrations, {**_kafka_values(args), "kafka_brokers": NO_BROKER})
                drop_kafka_tables(EngineClient(engine))
        return 0

    if args.command == "wait":
        from .wait import wait_for_count

        try:
            wait_for_count(HttpClient(args.url, timeout_s=10), args.query, args.expect_at_least, args.timeout, args.interval)
        except WarehouseError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0

    if args.command in ("sites", "rebuild-rollups"):
        from .rollups import load_site_prefixes, rebuild
        from .sites import load_sites

        def act(client: SqlClient) -> None:
            loaded = ""
            if args.command == "sites":
                count = load_site_prefixes(client, load_sites(args.file))
                loaded = f"loaded {count} site prefixes from {args.file}"
                if args.no_rebuild:
                    print(f"{loaded} into {client.describe()}", file=sys.stderr)
                    return
            rebuilt = rebuild(client)
            done = f"rebuilt {len(rebuilt)} rollups ({', '.join(rebuilt)}) in {client.describe()}"
            print(f"{loaded}; {done}" if loaded else done, file=sys.stderr)

        if args.url:
            act(HttpClient(args.url))
        else:
            with _open_data_dir(args.data, args.schemas) as engine:
                act(EngineClient(engine))
        return 0

    if args.command == "schema":
        return _schema(args)

    if args.command == "report":
        from .report import QueryFiles, collect, render
        from .sites import Sites, load_sites

        sites = load_sites(args.sites) if args.sites else Sites()
        client: SqlClient = HttpClient(args.url)
        sys.stdout.write(render(collect(client, QueryFiles(args.queries), sites), client.describe()))
        return 0

    raise AssertionError(args.command)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except QueryError as exc:
        print(f"error: {exc.text}", file=sys.stderr)
        return 2
    except WarehouseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
