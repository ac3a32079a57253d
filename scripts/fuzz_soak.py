"""The fuzz soak: coverage-guided fuzzing of every target of scripts/fuzz_targets.txt, one after
the other, N minutes each (docs/BENCHMARKS.md, "Fuzz soak"). Not part of the tests.

  ./cheetah bench fuzz [--minutes N] [--target NAME]... [--timeout-s S] [--no-keep]
  ./cheetah bench fuzz --list
  ./cheetah bench fuzz --target NAME --reproduce FILE

Per target it prints executions, executions/s, the corpus (files and bytes kept), coverage as the
engine reports it (libFuzzer, Jazzer, Atheris: `cov` edges and `ft` features; Go: the inputs
that found new coverage, Go prints no coverage count), crashes, hangs (an input that takes longer
than --timeout-s), and the command that reproduces each finding. Afterwards the corpus is
minimised (libFuzzer family: -merge=1, the smallest set with the same coverage; Go: each input
was minimised when found, the smallest are kept) and written back to the target's corpus folder
within KEEP_BYTES, so the suites' replay runs it. Exit status 1 if any target crashed or hung.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_registry import ROOT, Target, targets  # noqa: E402

KEEP_BYTES = 32 * 1024  # per target, in the repository
JAZZER = ("com.code-intelligence:jazzer:0.24.0", "com.code-intelligence:jazzer-api:0.24.0")  # Maven Central, pinned
STATE = ROOT / ".cheetah" / "fuzz"
MAX_LEN = {"probe-packet": 512, "nfcapd-file": 16384}  # bytes per input; others 4096


@dataclass
class Result:
    target: Target
    seconds: float = 0.0
    execs: int = 0
    rate: float = 0.0  # execs/s as the engine counts it; 0: execs / seconds
    coverage: str = ""
    corpus_files: int = 0
    corpus_bytes: int = 0
    crashes: list[str] = field(default_factory=list)  # reproduce commands
    hangs: list[str] = field(default_factory=list)
    error: str = ""


def say(text: str) -> None:
    print(f"\033[1mfuzz:\033[0m {text}", file=sys.stderr, flush=True)


def go_bin() -> str:
    return os.environ.get("GO") or shutil.which("go") or "/usr/local/go/bin/go"


def python_bin() -> str:
    venv = ROOT / ".cheetah" / "venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


# --- engines: how to build and start each ---------------------------------------------------------

def probe_binary(t: Target) -> Path:
    make_target, binary = t.harness.split(":")
    build = STATE / "build" / t.component.replace("/", "-")
    subprocess.run(["make", "-s", "-C", str(t.component_dir), f"BUILD={build}", f"PYTHON={python_bin()}", make_target],
                   check=True, stdout=sys.stderr)
    return build / binary


def jazzer_classpath(t: Target) -> str:
    """The module's classes, test classes and test-scope dependencies, and Jazzer (fetched once
    from Maven Central, pinned)."""
    mvn = [str(ROOT / "mvnw"), "-q", "-B"]
    m2 = Path.home() / ".m2" / "repository"
    jars = []
    for coordinates in JAZZER:
        group, artifact, version = coordinates.split(":")
        jar = m2 / group.replace(".", "/") / artifact / version / f"{artifact}-{version}.jar"
        if not jar.exists():
            say(f"fetching {coordinates} (Maven Central)")
            subprocess.run([*mvn, "dependency:get", f"-Dartifact={coordinates}", "-Dtransitive=false"], cwd=ROOT, check=True,
                           stdout=sys.stderr)
        jars.append(str(jar))
    STATE.mkdir(parents=True, exist_ok=True)
    cp_file = STATE / f"{t.component.replace('/', '-')}.classpath"
    subprocess.run([*mvn, "-o", "-pl", t.component, "test-compile", "dependency:build-classpath",
                    "-Dmdep.includeScope=test", f"-Dmdep.outputFile={cp_file}"], cwd=ROOT, check=True, stdout=sys.stderr)
    module = t.component_dir / "target"
    return os.pathsep.join([str(module / "test-classes"), str(module / "classes"), cp_file.read_text().strip(), *jars])


def libfuzzer_command(t: Target, args: list[str]) -> list[str]:
    """The libFuzzer-family command line of a target (libFuzzer flags and inputs in args)."""
    if t.engine == "libfuzzer":
        return [str(probe_binary(t)), *args]
    if t.engine == "jazzer":
        package = t.harness.rsplit(".", 1)[0]
        return ["java", "-Xmx2g", "-cp", jazzer_classpath(t), "com.code_intelligence.jazzer.Jazzer",
                f"--target_class={t.harness}",
                # the reader and the decompressors it calls are the parser: all instrumented
                f"--instrumentation_includes={package}.**:net.cheetah.**:io.airlift.compress.**:org.apache.commons.compress.**",
                *args]
    if t.engine == "atheris":
        return [python_bin(), str(ROOT / "scripts" / "fuzz_atheris.py"), str(t.component_dir), t.harness, *args]
    raise ValueError(t.engine)


# --- one target ------------------------------------------------------------------------------------

def run_libfuzzer_family(t: Target, seconds: int, timeout_s: int, keep: bool) -> Result:
    r = Result(t)
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{t.name}-"))
    found, artifacts = work / "found", work / "artifacts"
    found.mkdir()
    artifacts.mkdir()
    max_len = MAX_LEN.get(t.name, 4096)
    base = libfuzzer_command(t, [])  # builds once
    args = [f"-max_total_time={seconds}", f"-timeout={timeout_s}", f"-max_len={max_len}", "-print_final_stats=1",
            "-rss_limit_mb=3072", f"-artifact_prefix={artifacts}/", str(found), str(t.corpus_dir)]
    log = work / "fuzz.log"
    say(f"{t.name}: {t.engine} for {seconds} s: {' '.join(base[:1] + base[-2:] if t.engine == 'atheris' else base[:1])} ...")
    start = time.monotonic()
    with log.open("w") as out:
        subprocess.run([*base, *args], stdout=out, stderr=subprocess.STDOUT, cwd=work)
    r.seconds = time.monotonic() - start
    text = log.read_text(errors="replace")
    (STATE / "logs").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(log, STATE / "logs" / f"{t.name}.log")
    if m := re.findall(r"stat::average_exec_per_sec:\s*(\d+)", text):
        r.rate = int(m[-1])  # over the fuzzing itself (the wall time above includes start-up)
    if m := re.findall(r"stat::number_of_executed_units:\s*(\d+)", text):
        r.execs = int(m[-1])
    else:  # killed before the final stats: the last status line
        if m := re.findall(r"^#(\d+)\s", text, re.M):
            r.execs = int(m[-1])
    cov = re.findall(r"cov: (\d+) ft: (\d+)", text)
    if cov:
        r.coverage = f"cov {cov[-1][0]} edges, ft {cov[-1][1]}"
    for a in sorted(artifacts.iterdir()):
        repro = f"./cheetah bench fuzz --target {t.name} --reproduce {keep_artifact(t, a)}"
        (r.hangs if a.name.startswith("timeout-") else r.crashes).append(repro)
    if not r.execs and not r.crashes and not r.hangs:
        r.error = f"no executions; the log (.cheetah/fuzz/logs/{t.name}.log) ends with: " + log_tail(text)
    elif r.crashes or r.hangs:
        say(f"{t.name}: finding; the fuzzer's log ends with:\n{log_tail(text, 40)}")
    if keep and not r.error and t.engine == "atheris":
        # No -merge here: libFuzzer's merge re-executes argv[0], the driver script without its
        # target. The finds (libFuzzer already shrinks each while fuzzing, -reduce_inputs) join
        # the corpus, smallest first, within KEEP_BYTES.
        add_to_corpus(t, sorted(found.iterdir(), key=lambda p: p.stat().st_size))
    elif keep and not r.error:
        merged = work / "merged"
        merged.mkdir()
        subprocess.run([*base, "-merge=1", f"-max_len={max_len}", f"-timeout={timeout_s}", str(merged), str(t.corpus_dir), str(found)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work)
        if any(merged.iterdir()):
            write_corpus(t, sorted(merged.iterdir(), key=lambda p: p.stat().st_size))
    count_corpus(r)
    shutil.rmtree(work, ignore_errors=True)
    return r


def run_go(t: Target, seconds: int, keep: bool) -> Result:
    r = Result(t)
    package, func = t.harness.split(":")
    cmd = [go_bin(), "test", "-run=^$", f"-fuzz=^{func}$", f"-fuzztime={seconds}s", "-fuzzminimizetime=2s",
           "-parallel=1", "-timeout=0", package]
    say(f"{t.name}: go test -fuzz for {seconds} s: cd {t.component} && {' '.join(['go', *cmd[1:]])}")
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=t.component_dir, capture_output=True, text=True)
    r.seconds = time.monotonic() - start
    text = proc.stdout + proc.stderr
    stats = re.findall(r"execs: (\d+) \((\d+)/sec\), new interesting: (\d+) \(total: (\d+)\)", text)
    if elapsed := re.findall(r"fuzz: elapsed: (?:(\d+)m)?(\d+)s, execs", text):
        r.seconds = max(int(m or 0) * 60 + int(s) for m, s in elapsed)  # fuzzing time, not the build before it
    if stats:
        r.execs = max(int(s[0]) for s in stats)
        interesting = max(int(s[2]) for s in stats)
        r.coverage = f"{interesting} new inputs with new coverage (Go prints no coverage count)"
    if proc.returncode != 0:
        if m := re.search(r"Failing input written to (testdata/fuzz/\S+)", text):
            name = Path(m.group(1)).name
            repro = f"cd {t.component} && go test -run='^{func}$/^{name}$' {package}"
            hang = "did not return within" in text or "not handled within" in text
            (r.hangs if hang else r.crashes).append(repro)
            say(f"{t.name}: finding:\n{log_tail(text, 40)}")
        else:
            r.error = f"go test exited {proc.returncode}: " + log_tail(text)
    if keep and not r.error:
        cache = Path(subprocess.run([go_bin(), "env", "GOCACHE"], capture_output=True, text=True, check=True).stdout.strip())
        import_path = subprocess.run([go_bin(), "list", package], cwd=t.component_dir, capture_output=True, text=True,
                                     check=True).stdout.strip()
        generated = cache / "fuzz" / import_path / func
        found = sorted(generated.iterdir(), key=lambda p: p.stat().st_size) if generated.is_dir() else []
        # Go's corpus folder also holds any crasher: kept; the generated inputs (each minimised
        # by Go when found) are added smallest first.
        add_to_corpus(t, found)
    count_corpus(r)
    return r


def keep_artifact(t: Target, artifact: Path) -> Path:
    """Findings go to .cheetah/fuzz/findings/TARGET/ (the temp folder is removed); once fixed,
    copy one into the target's corpus so the replay keeps it fixed."""
    dest = STATE / "findings" / t.name
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(artifact, dest / artifact.name)
    return (dest / artifact.name).relative_to(ROOT)


def add_to_corpus(t: Target, inputs: list[Path]) -> None:
    """Adds inputs the corpus does not have yet, in the order given, within KEEP_BYTES."""
    t.corpus_dir.mkdir(parents=True, exist_ok=True)
    kept = sum(p.stat().st_size for p in t.corpus_dir.iterdir() if p.is_file())
    for p in inputs:
        if not (t.corpus_dir / p.name).exists() and kept + p.stat().st_size <= KEEP_BYTES:
            shutil.copyfile(p, t.corpus_dir / p.name)
            kept += p.stat().st_size


def write_corpus(t: Target, inputs: list[Path]) -> None:
    """Replaces the target's corpus by the merged set, smallest first, within KEEP_BYTES; files
    named seed-* (written by hand or by a real tool, e.g. nfcapd) stay whatever the merge says."""
    staged = t.corpus_dir.with_name(t.corpus_dir.name + ".new")
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    total = 0
    for p in t.corpus_dir.glob("seed-*"):
        shutil.copyfile(p, staged / p.name)
    for p in inputs:
        if total + p.stat().st_size > KEEP_BYTES:
            break
        shutil.copyfile(p, staged / p.name)
        total += p.stat().st_size
    shutil.rmtree(t.corpus_dir, ignore_errors=True)
    staged.rename(t.corpus_dir)


def count_corpus(r: Result) -> None:
    files = [p for p in r.target.corpus_dir.glob("*") if p.is_file()] if r.target.corpus_dir.is_dir() else []
    r.corpus_files, r.corpus_bytes = len(files), sum(p.stat().st_size for p in files)


def log_tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def reproduce(t: Target, path: Path) -> int:
    if t.engine == "go":
        print(f"Go keeps its findings in {t.corpus}; run: cd {t.component} && go test -run='^{t.harness.split(':')[1]}$/^NAME$' "
              f"{t.harness.split(':')[0]} (NAME: the file there)", file=sys.stderr)
        return 2
    if t.engine == "atheris":  # the harness alone, with a plain traceback
        cmd = [python_bin(), "-c", "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
               "from fuzz_registry import targets; t = [t for t in targets() if t.name == sys.argv[3]][0];"
               "t.python_function()(open(sys.argv[4], 'rb').read()); print('handled')",
               str(ROOT / "scripts"), str(t.component_dir), t.name, str(path.resolve())]
    else:
        cmd = libfuzzer_command(t, [str(path.resolve())])
    return subprocess.run(cmd).returncode


def main() -> int:
    ap = argparse.ArgumentParser(prog="./cheetah bench fuzz", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10, help="fuzzing time per target (default 10)")
    ap.add_argument("--target", action="append", help="only this target (repeatable; --list shows them)")
    ap.add_argument("--timeout-s", type=int, default=10, help="an input taking longer is a hang (default 10)")
    ap.add_argument("--no-keep", action="store_true", help="leave the corpus folders as they are")
    ap.add_argument("--list", action="store_true", help="list the targets and exit")
    ap.add_argument("--reproduce", type=Path, help="run one input (a finding) through --target's harness")
    a = ap.parse_args()
    chosen = targets()
    if a.target:
        unknown = set(a.target) - {t.name for t in chosen}
        if unknown:
            ap.error(f"unknown target(s) {sorted(unknown)}; --list shows them")
        chosen = [t for t in chosen if t.name in a.target]
    if a.list:
        for t in chosen:
            print(f"{t.name:<16} {t.engine:<9} {t.component:<22} {t.covers}")
        return 0
    if a.reproduce:
        if len(chosen) != 1:
            ap.error("--reproduce needs one --target")
        return reproduce(chosen[0], a.reproduce)
    seconds = max(1, round(a.minutes * 60))
    print(f"date: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}  machine: {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}  nice {os.nice(0)}  per target: {seconds} s, hang = input > {a.timeout_s} s")
    results = []
    for t in chosen:
        try:
            if t.engine == "go":
                results.append(run_go(t, seconds, not a.no_keep))
            else:
                results.append(run_libfuzzer_family(t, seconds, a.timeout_s, not a.no_keep))
        except (subprocess.CalledProcessError, OSError) as e:
            results.append(Result(t, error=f"could not start: {e}"))
        report(results[-1], a.minutes, a.timeout_s)
    bad = [r for r in results if r.crashes or r.hangs or r.error]
    print(f"SUMMARY fuzz targets={len(results)} crashes={sum(len(r.crashes) for r in results)} "
          f"hangs={sum(len(r.hangs) for r in results)} errors={sum(1 for r in results if r.error)}")
    return 1 if bad else 0


def report(r: Result, minutes: float, timeout_s: int) -> None:
    t = r.target
    rate = r.rate or (r.execs / r.seconds if r.seconds else 0)
    print(f"FIGURE fuzz.{t.name:<16} {r.execs:>12,} execs in {r.seconds:,.0f} s ({rate:,.0f}/s), "
          f"crashes {len(r.crashes)}, hangs {len(r.hangs)}, corpus {r.corpus_files} files / {r.corpus_bytes / 1024:.1f} KB"
          + (f", {r.coverage}" if r.coverage else ""))
    print(f"       engine {t.engine} | load {os.getloadavg()[0]:.2f} | ./cheetah bench fuzz --target {t.name} --minutes {minutes:g}"
          + (f" --timeout-s {timeout_s}" if timeout_s != 10 else ""))
    for c in r.crashes:
        print(f"       CRASH reproduce: {c}")
    for h in r.hangs:
        print(f"       HANG reproduce: {h}")
    if r.error:
        print(f"       ERROR {r.error}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
