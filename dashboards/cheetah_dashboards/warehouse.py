"""The embedded warehouse (clickhouse/warehouse) on a copy of a data directory, for checks.

A data directory is locked by the one process that owns it, and the demo may be re-run at any
time, so a check always serves a private copy.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from cheetah_dashboards.errors import DashboardsError
from cheetah_dashboards.processes import Child, start, wait_until

REPO = Path(__file__).resolve().parents[2]
WAREHOUSE_PYTHON = REPO / ".cheetah" / "venv" / "bin" / "python"
WAREHOUSE_SOURCE = REPO / "clickhouse" / "warehouse"
READY_TIMEOUT_S = 90.0
# No broker: the copy is only read. The Kafka tables retry this closed port quietly.
NO_BROKER = "127.0.0.1:9"


@dataclass(frozen=True)
class RunningWarehouse:
    url: str
    child: Child


def copy_data(source: Path, target: Path) -> Path:
    if not (source / "metadata").is_dir():
        raise DashboardsError(
            f"{source} is not a warehouse data directory (no metadata/ inside); "
            "run `./cheetah demo` first or give --warehouse-data the directory a warehouse wrote"
        )
    if target.exists():
        shutil.rmtree(target)
    # symlinks=True: an Atomic database's metadata/<db> is a relative symlink into store/.
    # The source's logs are not needed; its top-level `status` lock file belongs to its owner.
    top_level = source.resolve()
    shutil.copytree(source, target, symlinks=True,
                    ignore=lambda d, names: [n for n in names if Path(d).resolve() == top_level
                                             and n in ("status", "logs")])
    return target


def start_warehouse(data_dir: Path, logs_dir: Path) -> RunningWarehouse:
    if not WAREHOUSE_PYTHON.exists():
        raise DashboardsError(f"the warehouse venv is missing ({WAREHOUSE_PYTHON}); run `./cheetah setup`")
    argv = [
        str(WAREHOUSE_PYTHON), "-m", "cheetah_warehouse", "serve", "--data", str(data_dir), "--http-port", "0",
        "--kafka-brokers", NO_BROKER, "--kafka-group-prefix", "cheetah-dashboards-check",
    ]
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(WAREHOUSE_SOURCE), os.environ.get("PYTHONPATH")]))}
    child = start("warehouse", argv, logs_dir / "warehouse.log", env=env)

    def ready() -> bool:
        child.ensure_running()
        return any(line.startswith("READY ") for line in child.stdout_lines)

    try:
        wait_until(ready, READY_TIMEOUT_S, f"the warehouse on {data_dir} to print READY (log: {child.log_path})")
    except DashboardsError:
        child.stop()
        raise
    url = next(line for line in child.stdout_lines if line.startswith("READY ")).split(" ", 1)[1].strip()
    return RunningWarehouse(url=url, child=child)


@contextmanager
def running_warehouse_copy(source: Path, work_dir: Path) -> Iterator[RunningWarehouse]:
    data = copy_data(source, work_dir / "warehouse")
    warehouse = start_warehouse(data, work_dir / "logs")
    try:
        yield warehouse
    finally:
        warehouse.child.stop()
