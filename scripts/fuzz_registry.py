"""Reads scripts/fuzz_targets.txt (the fuzz targets, one line each) for the soak
(scripts/fuzz_soak.py) and the corpus replays of the Python suites."""

from __future__ import annotations

import importlib
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "scripts" / "fuzz_targets.txt"
ENGINES = ("go", "libfuzzer", "jazzer", "atheris")


@dataclass(frozen=True)
class Target:
    name: str
    component: str  # folder, from the repository root
    engine: str
    harness: str
    corpus: str  # folder, from the repository root
    covers: str

    @property
    def corpus_dir(self) -> Path:
        return ROOT / self.corpus

    @property
    def component_dir(self) -> Path:
        return ROOT / self.component

    def inputs(self) -> list[Path]:
        return sorted(p for p in self.corpus_dir.iterdir() if p.is_file())

    def python_function(self) -> Callable[[bytes], None]:
        """The atheris harness function, imported from the component folder (no instrumentation)."""
        module_name, function_name = self.harness.split(":")
        if str(self.component_dir) not in sys.path:
            sys.path.insert(0, str(self.component_dir))
        return getattr(importlib.import_module(module_name), function_name)


def targets(path: Path = REGISTRY) -> list[Target]:
    found: list[Target] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.split(None, 5)
        if len(cols) != 6 or cols[2] not in ENGINES:
            raise ValueError(f"{path}:{number}: want name component engine({'|'.join(ENGINES)}) harness corpus covers, got {line!r}")
        found.append(Target(*cols))
    names = [t.name for t in found]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: a target name appears twice: {names}")
    return found


def replay(target: Target, limit_s: float = 30.0) -> None:
    """Runs every kept input of an atheris target once, each within limit_s; raises with the
    input's path on the first exception or hang (a refusal inside the harness is fine)."""
    function = target.python_function()
    inputs = target.inputs()
    if not inputs:
        raise AssertionError(f"{target.corpus}: empty corpus (the seeds belong in the repository)")
    for path in inputs:
        data = path.read_bytes()
        failure: list[BaseException] = []

        def run() -> None:
            try:
                function(data)
            except BaseException as exc:  # noqa: BLE001 - any escape is the finding
                failure.append(exc)

        worker = threading.Thread(target=run, name=f"fuzz-replay-{path.name}", daemon=True)
        worker.start()
        worker.join(limit_s)
        if worker.is_alive():
            raise AssertionError(f"{target.name}: {path} not handled within {limit_s:g} s (a hang)")
        if failure:
            raise AssertionError(f"{target.name}: {path} raised {failure[0]!r}; reproduce: "
                                 f"./cheetah bench fuzz --target {target.name} --reproduce {path}") from failure[0]


def suite_tests(component: str) -> tuple[Callable[[], None], Callable[[Target], None]]:
    """The two replay tests of a component's suite, for its test_fuzz_corpus.py to name:
    the component has a target, and each of its targets' kept corpus replays without a finding."""
    import pytest

    mine = [t for t in targets() if t.component == component]

    def test_the_component_has_a_fuzz_target() -> None:
        assert mine, f"scripts/fuzz_targets.txt lists no target of {component}/"

    @pytest.mark.parametrize("target", mine, ids=[t.name for t in mine])
    def test_corpus_replays_without_a_crash(target: Target) -> None:
        replay(target)

    return test_the_component_has_a_fuzz_target, test_corpus_replays_without_a_crash
