"""Replays the kept fuzz corpus of the adapters' target (scripts/fuzz_targets.txt): every input is
decoded, refused or admitted without an exception or a hang (tests/fuzz_adapter_command.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from fuzz_registry import suite_tests  # noqa: E402

test_the_component_has_a_fuzz_target, test_corpus_replays_without_a_crash = suite_tests("adapters")
