"""Replays the kept fuzz corpus of the adapters' targets (scripts/fuzz_targets.txt): every input
is decoded, refused or admitted without an exception or a hang (tests/fuzz_adapter_command.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from fuzz_registry import targets, replay  # noqa: E402

MINE = [t for t in targets() if t.component == "adapters"]


def test_the_adapters_have_a_fuzz_target() -> None:
    assert MINE, "scripts/fuzz_targets.txt lists no target of adapters/"


@pytest.mark.parametrize("target", MINE, ids=[t.name for t in MINE])
def test_corpus_replays_without_a_crash(target) -> None:
    replay(target)
