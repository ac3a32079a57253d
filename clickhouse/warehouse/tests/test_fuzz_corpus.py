"""Replays the kept fuzz corpus of the warehouse front's targets (scripts/fuzz_targets.txt): every
input is answered or refused without an exception or a hang (tests/fuzz_http_request.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
from fuzz_registry import targets, replay  # noqa: E402

MINE = [t for t in targets() if t.component == "clickhouse/warehouse"]


def test_the_warehouse_has_a_fuzz_target() -> None:
    assert MINE, "scripts/fuzz_targets.txt lists no target of clickhouse/warehouse/"


@pytest.mark.parametrize("target", MINE, ids=[t.name for t in MINE])
def test_corpus_replays_without_a_crash(target) -> None:
    replay(target)
