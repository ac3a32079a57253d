from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # cheetah_warehouse without PYTHONPATH

from cheetah_warehouse.embedded import EmbeddedEngine  # noqa: E402
from tests.warehouse_process import Warehouse, start_warehouse  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warehouse]:
    """One warehouse per test module, with no Kafka broker behind it."""
    warehouse = start_warehouse(tmp_path_factory.mktemp("served") / "data")
    try:
        yield warehouse
    finally:
        warehouse.stop()


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedEngine]:
    """The one in-process engine of this test process (chdb: Kafka tables need the first connection)."""
    from cheetah_warehouse import DEFAULT_SCHEMAS_DIR
    from cheetah_warehouse.embedded import EmbeddedEngine, EngineConfig

    with EmbeddedEngine(EngineConfig(tmp_path_factory.mktemp("engine") / "data", DEFAULT_SCHEMAS_DIR)) as opened:
        yield opened


@pytest.fixture
def database(engine: EmbeddedEngine, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database in the shared engine for one test."""
    import re

    name = "t_" + re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:60]
    engine.query(f"DROP DATABASE IF EXISTS {name} SYNC")
    engine.query(f"CREATE DATABASE {name}")
    yield name
    engine.query(f"DROP DATABASE IF EXISTS {name} SYNC")
