"""scripts/fuzz_targets.txt, the one list of fuzz targets that `./cheetah bench fuzz` runs and the
suites replay, against the repository: every line names a harness that exists, in a component a
suite tests, with a kept corpus of tens of KB; and every fuzz harness in the repository is listed
(a harness nobody lists is never soaked)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzz_registry import ROOT, targets  # noqa: E402
from fuzz_soak import KEEP_BYTES  # noqa: E402

TARGETS = targets()


def suite_folders() -> list[str]:
    """The folders whose test script a suite of ./cheetah test runs."""
    text = (ROOT / "cheetah").read_text()
    block = re.search(r"declare -A SUITE_TEST=\((.*?)\)\n", text, re.S)
    assert block, "SUITE_TEST not found in ./cheetah"
    return [str(Path(script).parent) for script in re.findall(r'\]="?([\w./-]+)', block.group(1))]


def test_the_registry_lists_every_kind_of_input() -> None:
    assert {t.engine for t in TARGETS} == {"go", "libfuzzer", "jazzer", "atheris"}
    assert len(TARGETS) >= 9


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_each_target_has_its_harness_corpus_and_suite(target) -> None:
    component = target.component_dir
    assert component.is_dir(), target
    assert any(target.component == f or target.component.startswith(f + "/") for f in suite_folders()), (
        f"{target.component} is in no suite of ./cheetah test: its corpus replay would never run")
    if target.engine == "go":
        package, func = target.harness.split(":")
        sources = "".join(p.read_text() for p in (component / package).glob("*_test.go"))
        assert f"func {func}(f *testing.F)" in sources, target
        assert target.corpus_dir == component / package / "testdata" / "fuzz" / func, "go test replays only testdata/fuzz/FUNC"
    elif target.engine == "libfuzzer":
        make_target, _ = target.harness.split(":")
        assert re.search(rf"^{make_target}:", (component / "Makefile").read_text(), re.M), target
    elif target.engine == "jazzer":
        source = component / "src" / "test" / "java" / (target.harness.replace(".", "/") + ".java")
        assert "public static void fuzzerTestOneInput(byte[] data)" in source.read_text(), source
    else:
        module, function = target.harness.split(":")
        source = component / (module.replace(".", "/") + ".py")
        assert f"def {function}(" in source.read_text(), source
    if target.engine != "go" or target.corpus_dir.exists():  # Go: seeds may be f.Add calls only
        files = [p for p in target.corpus_dir.iterdir() if p.is_file()]
        assert files, f"{target.corpus}: no seeds"
        size = sum(p.stat().st_size for p in files)
        assert size <= 2 * KEEP_BYTES, f"{target.corpus}: {size} bytes; the kept corpus is tens of KB (the soak keeps {KEEP_BYTES})"


def test_every_fuzz_harness_in_the_repository_is_listed() -> None:
    listed = {t.harness for t in TARGETS}
    found = set()
    for path in ROOT.glob("ingest/**/*_test.go"):
        if "/.cheetah/" in str(path):
            continue
        for func in re.findall(r"^func (Fuzz\w+)\(f \*testing\.F\)", path.read_text(), re.M):
            component = next(t.component for t in TARGETS if (ROOT / t.component) in path.parents)
            found.add(f"./{path.parent.relative_to(ROOT / component)}:{func}")
    for path in ROOT.glob("flink-jobs/*/src/test/java/**/*.java"):
        if "fuzzerTestOneInput(byte[]" in path.read_text():
            java_root = next(p for p in path.parents if p.name == "java" and p.parent.name == "test")
            found.add(".".join(path.relative_to(java_root).with_suffix("").parts))
    missing = found - listed
    assert not missing, f"fuzz harnesses not in scripts/fuzz_targets.txt: {sorted(missing)}"
