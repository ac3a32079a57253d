"""Command line: serve, import, check (python -m cheetah_dashboards --help)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from cheetah_dashboards.bundles import BUNDLES_DIR, load_bundles
from cheetah_dashboards.errors import DashboardsError
from cheetah_dashboards.headless_check import run_check
from cheetah_dashboards.importer import import_bundles
from cheetah_dashboards.superset_home import ADMIN_USER, SupersetHome
from cheetah_dashboards.superset_server import start_superset

PROG = "python -m cheetah_dashboards"
PASSWORD_ENV = "CHEETAH_SUPERSET_ADMIN_PASSWORD"
DEFAULT_PASSWORD = "cheetah-admin"  # loopback-only instances; set $CHEETAH_SUPERSET_ADMIN_PASSWORD otherwise


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bundles", nargs="+", metavar="NAME",
                        help=f"bundles to use, by folder name under {BUNDLES_DIR} (default: all)")
    parser.add_argument("--admin-password", default=os.environ.get(PASSWORD_ENV, DEFAULT_PASSWORD),
                        help=f"password of Superset's '{ADMIN_USER}' user (default ${PASSWORD_ENV} or "
                             f"'{DEFAULT_PASSWORD}')")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Cheetah's Superset dashboards as code: run Superset on 127.0.0.1, import the bundles of "
                    "dashboards/bundles/, and check them headless (every chart returns rows, every dashboard "
                    "renders in Chromium without an error box). Run with Superset's venv "
                    "(.cheetah/superset-venv/bin/python).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="prepare a state directory and run Superset until SIGTERM/Ctrl-C",
                           description="superset db upgrade, fab create-admin and init on SQLite metadata in "
                                       "STATE, then gunicorn on 127.0.0.1:PORT. Prints 'READY URL' once /health "
                                       "answers. With --warehouse-url, imports the bundles first.")
    serve.add_argument("--state-dir", type=Path, required=True, metavar="STATE",
                       help="Superset's config, metadata (SQLite), secret key and logs; kept between runs")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    serve.add_argument("--warehouse-url", metavar="URL",
                       help="import the bundles and connect them to this ClickHouse HTTP URL, "
                            "e.g. http://127.0.0.1:18123 (user 'dashboards' unless the URL names one)")
    _common(serve)

    imp = sub.add_parser("import", help="import the bundles into a state directory, connected to a warehouse",
                         description="Zip each bundle, import it (datasets, charts and dashboards overwritten: "
                                     "the bundles are the source of truth), then point the database "
                                     "'Cheetah warehouse' at --warehouse-url. Superset need not be running.")
    imp.add_argument("--state-dir", type=Path, required=True, metavar="STATE")
    imp.add_argument("--warehouse-url", required=True, metavar="URL",
                     help="ClickHouse HTTP URL, e.g. http://127.0.0.1:18123 or http://user:pass@host:8123/db")
    _common(imp)

    check = sub.add_parser("check", help="headless check on a copy of a warehouse data directory",
                           description="Start a warehouse on a copy of DIR, insert the generated rows of "
                                       "clickhouse/queries/dashboards_check/ into the copy's empty tables (each "
                                       "reported: the demo cannot fill them), start a fresh Superset, import the "
                                       "bundles, ask every chart of every dashboard and every saved query for "
                                       "data through the REST API (no rows = failure, naming the chart), then "
                                       "screenshot every dashboard in headless Chromium (an error box = "
                                       "failure). Stops everything it started. Exit 0 only if all passed.")
    check.add_argument("--warehouse-data", type=Path, required=True, metavar="DIR",
                       help="a warehouse data directory, e.g. .cheetah/demo/warehouse (only a copy is opened)")
    check.add_argument("--screenshots", type=Path, metavar="OUT",
                       help="write OUT/dashboard-<name>.png (e.g. docs/img); without it, no browser check")
    check.add_argument("--work-dir", type=Path, metavar="DIR",
                       help="keep the copy, Superset's state and logs here (default: a temp dir, removed)")
    _common(check)
    return parser


def _serve(args: argparse.Namespace) -> int:
    home = SupersetHome(args.state_dir.resolve(), args.admin_password)
    home.initialise()
    if args.warehouse_url:
        import_bundles(home, load_bundles(names=args.bundles), args.warehouse_url)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server = start_superset(home, args.port)
    print(f"READY {server.url}", flush=True)
    try:
        while not stop.wait(1.0):
            server.child.ensure_running()
    finally:
        server.child.stop()
    return 0


def _import(args: argparse.Namespace) -> int:
    home = SupersetHome(args.state_dir.resolve(), args.admin_password)
    home.initialise()
    for path in import_bundles(home, load_bundles(names=args.bundles), args.warehouse_url):
        print(f"imported {path}")
    return 0


def _check(args: argparse.Namespace) -> int:
    report = run_check(load_bundles(names=args.bundles), args.warehouse_data.resolve(),
                       args.screenshots.resolve() if args.screenshots else None, args.admin_password,
                       args.work_dir.resolve() if args.work_dir else None)
    for line in report.lines():
        print(line)
    failed = sum(1 for line in report.lines() if line.startswith("FAIL"))
    print("dashboards check passed" if report.ok else f"dashboards check FAILED ({failed} failures)")
    return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return {"serve": _serve, "import": _import, "check": _check}[args.command](args)
    except DashboardsError as error:
        print(f"{PROG} {args.command}: {error}", file=sys.stderr)
        return 1
