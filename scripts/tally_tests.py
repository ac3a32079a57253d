#!/usr/bin/env python3
"""Adds up what every test runner of `./cheetah test` reported, from machine-readable reports only.

Usage: tally_tests.py [--brief] REPORTS_DIR [SUITE]   (SUITE: its line only; --brief: no reasons)

REPORTS_DIR holds one folder per suite (written by ./cheetah's run_tests):
  SUITE/*.xml        JUnit XML (Surefire, pytest --junitxml, the probe's test.sh --junit, and the
                     one-case reports ./cheetah writes for single checks such as the demo)
  SUITE/*.jsonl      `go test -json` event streams
  SUITE/exit         the suite runner's exit code (written last; missing = the runner never ended)
  SUITE/expect       optional: report files that must exist, one relative glob per line (e.g. one
                     per Maven module with tests), so a module whose build failed is counted

Counts one result per test case. A suite whose runner failed without a failing test in its reports
(a build failure, a crash, a time-out that killed the runner) counts one failure of its own, as does
every expected report that is missing. Go: a package that failed with no failing test (build error,
panic, -timeout) counts one failure; subtests are counted, their parents are not.

Prints one line per suite, then each failure by name with the first lines of why it failed (the
report's failure message, or a Go test's error lines), so a CI log that keeps only the output still
says what broke, and last `tests: N passed, M failed[, K skipped]`.
Exit status: 0 if nothing failed (skips allowed), 1 otherwise. Standard library only: it must run
even when the project's venv failed to build.
"""

from __future__ import annotations

import glob
import json
import sys
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (name, why)

    def fail(self, name: str, why: str = "") -> None:
        self.failed += 1
        self.failures.append((name, why))

    def add(self, other: Tally) -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.failures += other.failures


WHY_LINES = 6
WHY_CHARS = 160


def why(text: str) -> str:
    """The first non-blank lines of a failure's text, each cut short: enough to name the cause."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()][:WHY_LINES]
    return "\n".join(ln if len(ln) <= WHY_CHARS else ln[: WHY_CHARS - 3] + "..." for ln in lines)


def junit_why(el: ET.Element) -> str:
    """A JUnit failure's message, else the start of its text (a stack trace's first lines)."""
    message = el.get("message") or ""
    return why(message if message.strip() else (el.text or ""))


def junit(path: Path) -> Tally:
    t = Tally()
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        t.fail(f"{path.name}: unreadable JUnit report ({e})")
        return t
    for case in root.iter("testcase"):
        name = ".".join(p for p in (case.get("classname"), case.get("name")) if p)
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            t.fail(name, junit_why(bad))
        elif case.find("skipped") is not None:
            t.skipped += 1
        else:
            t.passed += 1
    # A suite-level error with no test case (e.g. a class that could not be initialised).
    for suite in root.iter("testsuite"):
        if suite.find("testcase") is None and int(suite.get("errors", "0") or 0) + int(
            suite.get("failures", "0") or 0
        ):
            t.fail(f"{suite.get('name', path.name)} (suite error)")
    return t


def go_json(path: Path) -> Tally:
    t = Tally()
    final: dict[tuple[str, str], str] = {}  # (package, test) -> pass/fail/skip
    output: dict[tuple[str, str | None], list[str]] = {}  # what a test (or package) printed
    failed_packages: list[str] = []
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if not line.startswith("{"):
            continue  # go's own build errors print as plain text; the package 'fail' counts them
        try:
            ev = json.loads(line)
        except json.JSONDecodeError:
            t.fail(f"{path.name}:{n}: unreadable go test -json line")
            continue
        action, pkg, test = ev.get("Action"), ev.get("Package", ""), ev.get("Test")
        if action == "output":
            output.setdefault((pkg, test), []).append(ev.get("Output", ""))
        if action not in ("pass", "fail", "skip"):
            continue
        if test:
            final[(pkg, test)] = action
        elif action == "fail":
            failed_packages.append(pkg)
    names = {k for k in final}
    for (pkg, test), action in sorted(final.items()):
        if any(p == pkg and o.startswith(test + "/") for p, o in names):
            continue  # a parent: its subtests are the results
        if action == "pass":
            t.passed += 1
        elif action == "skip":
            t.skipped += 1
        else:
            t.fail(f"{pkg}.{test}", go_why(output.get((pkg, test), [])))
    for pkg in failed_packages:
        if not any(p == pkg and a == "fail" for (p, _), a in final.items()):
            t.fail(
                f"{pkg} (package failed with no failing test: build error, panic or time-out)",
                go_why(output.get((pkg, None), [])),
            )
    return t


def go_why(lines: list[str]) -> str:
    """A Go test's own messages (t.Error, t.Fatal, a panic), without go test's === and --- lines."""
    text = "".join(lines)
    kept = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith(("=== ", "--- ")))
    return why(textwrap.dedent(kept))


def suite(d: Path) -> Tally:
    t = Tally()
    for p in sorted(d.glob("*.xml")):
        t.add(junit(p))
    for p in sorted(d.glob("*.jsonl")):
        t.add(go_json(p))
    expect = d / "expect"
    if expect.exists():
        for pattern in expect.read_text().split():
            if not glob.glob(str(d / pattern)):
                t.fail(f"{d.name}: no report {pattern} (build failed, or its tests never ran)")
    exit_file = d / "exit"
    code = exit_file.read_text().strip() if exit_file.exists() else ""
    if code == "":
        t.fail(f"{d.name}: the runner did not finish")
    elif code != "0" and t.failed == 0:
        t.fail(f"{d.name}: the runner exited {code} with no failing test in its reports")
    return t


def main(argv: list[str]) -> int:
    brief = "--brief" in argv
    argv = [a for a in argv if a != "--brief"]
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = Path(argv[1])
    total = Tally()
    if len(argv) == 3:
        suites = [root / argv[2]] if (root / argv[2]).is_dir() else []
    else:
        suites = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if not suites:
        print(f"tally: no suite reports under {root}", file=sys.stderr)
        return 2
    for d in suites:
        t = suite(d)
        total.add(t)
        extra = f", {t.skipped} skipped" if t.skipped else ""
        took = d / "seconds"  # the suite's wall time, written by the runner
        if took.exists() and took.read_text().strip().isdigit():
            extra += f" ({int(took.read_text())} s)"
        print(f"  {d.name}: {t.passed} passed, {t.failed} failed{extra}")
    for name, reason in total.failures:
        print(f"  FAILED {name}")
        for line in [] if brief else reason.splitlines():
            print(f"      {line}")
    if len(argv) == 3:
        return 0 if total.failed == 0 else 1
    extra = f", {total.skipped} skipped" if total.skipped else ""
    print(f"\ntests: {total.passed} passed, {total.failed} failed{extra}")
    return 0 if total.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
