"""Time the dashboards' queries on a year of flowsets (issue: "fast on a year of flowsets").

    .cheetah/venv/bin/python clickhouse/bench/dashboard_queries.py [--flowsets 1000000] [--repeat 20]

Generates the year once (year_of_flowsets.sql, in-engine: ~1 s per million flowsets) into
--data, serves it with the embedded warehouse, and runs the dashboards' SQL --repeat times over
HTTP as the read-only `dashboards` user, the way Superset does: every file of
clickhouse/queries/dashboards/ (the text the bundle builder injects into the Superset bundles as
each virtual dataset's or saved query's SQL), rendered with no time range and no filter and
computed whole (cheetah_warehouse.dashboard_sql). Prints a markdown table: rows, median, p95 and
max wall time per query.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import statistics
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "clickhouse" / "warehouse"))

from cheetah_warehouse import DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMAS_DIR, migrations  # noqa: E402
from cheetah_warehouse.clients import EngineClient  # noqa: E402
from cheetah_warehouse.dashboard_sql import dashboard_query_files, unfiltered, whole_result  # noqa: E402
from cheetah_warehouse.embedded import EmbeddedEngine, EngineConfig  # noqa: E402
from cheetah_warehouse.migrations import split_statements  # noqa: E402
from cheetah_warehouse.rollups import load_site_prefixes  # noqa: E402
from cheetah_warehouse.sites import parse_sites  # noqa: E402

NO_BROKER = "127.0.0.1:9"  # the Kafka tables exist but consume nothing
SITES = {f"site-{c}": [f"198.18.{i}.0/24"] for i, c in enumerate("abcdef", start=1)}
DASHBOARDS_AUTH = "Basic " + base64.b64encode(b"dashboards:cheetah-dashboards").decode()


def generate(data: Path, flowsets: int) -> None:
    marker = data / "year-of-flowsets.json"
    if marker.exists() and json.loads(marker.read_text()).get("flowsets") == flowsets:
        print(f"reusing {data} ({flowsets:,} flowsets)", file=sys.stderr)
        return
    if data.exists():
        raise SystemExit(f"{data} exists but holds another dataset; remove it or pass another --data")
    start = (datetime.now(timezone.utc) - timedelta(days=365)).strftime("%Y-%m-%d %H:%M:%S.000")
    t0 = time.monotonic()
    with EmbeddedEngine(EngineConfig(data, DEFAULT_SCHEMAS_DIR)) as engine:
        client = EngineClient(engine)
        migrations.apply(client, DEFAULT_MIGRATIONS_DIR, {"kafka_brokers": NO_BROKER}, log=lambda _: None)
        load_site_prefixes(client, parse_sites(json.dumps(SITES)))
        for statement in split_statements((HERE / "year_of_flowsets.sql").read_text()):
            engine.query(statement, params={"n": str(flowsets), "year_start": start})
        engine.query("OPTIMIZE TABLE flowsets FINAL")
        engine.query("OPTIMIZE TABLE cheetahs FINAL")
        counts = engine.query("SELECT (SELECT count() FROM flowsets), (SELECT count() FROM cheetahs)").data.decode().split()
    marker.write_text(json.dumps({"flowsets": flowsets, "start": start}))
    print(f"generated {int(counts[0]):,} flowsets and {int(counts[1]):,} cheetah flows in {time.monotonic() - t0:.1f} s",
          file=sys.stderr)


def serve(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "cheetah_warehouse", "serve", "--data", str(data), "--http-port", "0",
         "--kafka-brokers", NO_BROKER, "--kafka-group-prefix", "bench"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={"PYTHONPATH": str(ROOT / "clickhouse" / "warehouse"), "PATH": "/usr/bin:/bin"},
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode()
    if not line.startswith("READY "):
        process.terminate()
        raise SystemExit(f"the warehouse did not start (said {line!r})")
    return process, line.split()[1]


def run(url: str, sql: str) -> tuple[float, int]:
    """Wall time of one request, and the rows of the query (whole_result answers one row: rows, digest)."""
    request = urllib.request.Request(url + "/?default_format=TSV", data=sql.encode(), headers={"Authorization": DASHBOARDS_AUTH})
    t0 = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        body = response.read()
    return time.perf_counter() - t0, int(body.split()[0])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowsets", type=int, default=1_000_000, help="flowsets in the year (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=20, help="runs per query (default 20)")
    parser.add_argument("--data", type=Path, default=ROOT / ".cheetah" / "bench" / "year-of-flowsets")
    parser.add_argument("--queries", type=Path, nargs="*", default=dashboard_query_files(),
                        help="query files (default: every file of clickhouse/queries/dashboards/)")
    args = parser.parse_args()
    data = args.data.resolve()
    generate(data, args.flowsets)
    process, url = serve(data)
    try:
        print(f"| query | rows | median ms | p95 ms | max ms |\n| --- | ---: | ---: | ---: | ---: |")
        for path in args.queries:
            sql = whole_result(unfiltered(path))
            run(url, sql)  # warm-up: first touch of the parts
            times: list[float] = []
            rows = 0
            for _ in range(args.repeat):
                elapsed, rows = run(url, sql)
                times.append(elapsed * 1000)
            print(f"| {path.stem} | {rows} | {statistics.median(times):.0f} | {percentile(times, 0.95):.0f} | {max(times):.0f} |",
                  flush=True)
    finally:
        process.terminate()
        process.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
