"""`flink-jobs/bench/run.sh jmh` runs every benchmark of both JMH classes by default, and only those
a first argument that is not an option matches (a JMH regex); listing them (-l) ends cleanly,
with nothing to print as figures. Listing runs no benchmark, so this takes seconds."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "flink-jobs" / "bench" / "run.sh"


def listed(*args: str) -> list[str]:
    cmd = [str(RUN), "jmh", *args, "-l"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=50)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    names = (line.strip() for line in run.stdout.splitlines())
    return sorted(n for n in names if n.startswith("net.cheetah.bench."))


def test_every_benchmark_by_default() -> None:
    # By hand: the @Benchmark methods of PipelineBenchmark and OperatorBenchmark.
    pipeline = (
        "decode decodeAndDetect decodeMessages detect flowsetPerEvent groupFlowset"
        " normalize normalizeMessages normalizeOnly"
    ).split()
    expected = ["net.cheetah.bench.OperatorBenchmark.cheetahOperator"]
    expected += [f"net.cheetah.bench.PipelineBenchmark.{m}" for m in pipeline]
    assert listed() == sorted(expected)


def test_a_first_argument_picks_the_benchmarks() -> None:
    assert listed("cheetahOperator") == ["net.cheetah.bench.OperatorBenchmark.cheetahOperator"]
    assert listed("detect$") == ["net.cheetah.bench.PipelineBenchmark.detect"]
