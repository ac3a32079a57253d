"""The tally of ./cheetah test, on hand-written reports whose counts are known by construction."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TALLY = Path(__file__).resolve().parents[1] / "tally_tests.py"

SUREFIRE = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="net.cheetah.cli.TruthCheckTest" tests="5" errors="1" skipped="1" failures="1">
  <testcase name="matches" classname="net.cheetah.cli.TruthCheckTest" time="0.01"/>
  <testcase name="missing" classname="net.cheetah.cli.TruthCheckTest" time="0.01"/>
  <testcase name="duplicate" classname="net.cheetah.cli.TruthCheckTest" time="0.01">
    <failure message="expected 1 got 2" type="org.opentest4j.AssertionFailedError">trace</failure>
  </testcase>
  <testcase name="hangs" classname="net.cheetah.cli.TruthCheckTest" time="600">
    <error message="hangs() timed out after 10 minutes" type="java.util.concurrent.TimeoutException"/>
  </testcase>
  <testcase name="later" classname="net.cheetah.cli.TruthCheckTest" time="0">
    <skipped message="disabled"/>
  </testcase>
</testsuite>
"""

PYTEST = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1"
failures="0" skipped="0" tests="2"><testcase classname="tests.test_front" name="test_ok" time="0.1"/>
<testcase classname="tests.test_broken" name="" time="0"><error message="collection failure">
ImportError</error></testcase></testsuite></testsuites>"""


def go_events(*events: tuple[str, str, str | None]) -> str:
    return "\n".join(json.dumps({"Action": a, "Package": p, **({"Test": t} if t else {})}) for a, p, t in events)


def suite(root: Path, name: str, exit_code: str | None, files: dict[str, str]) -> None:
    d = root / name
    d.mkdir(parents=True)
    for fname, text in files.items():
        (d / fname).write_text(text)
    if exit_code is not None:
        (d / "exit").write_text(exit_code + "\n")


def tally(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TALLY), str(root), *extra], capture_output=True, text=True, timeout=30)


def last_line(r: subprocess.CompletedProcess[str]) -> str:
    return r.stdout.strip().splitlines()[-1]


def test_junit_cases_counted_one_each(tmp_path: Path) -> None:
    # 2 plain cases pass; a failure and an error fail; a skipped one is skipped. The runner exited 0
    # even though tests failed (Maven with test failures ignored): the reports decide.
    suite(tmp_path, "java", "0", {"a.xml": SUREFIRE})
    r = tally(tmp_path)
    assert last_line(r) == "tests: 2 passed, 2 failed, 1 skipped"
    assert "FAILED net.cheetah.cli.TruthCheckTest.duplicate" in r.stdout
    assert "FAILED net.cheetah.cli.TruthCheckTest.hangs" in r.stdout
    assert r.returncode == 1


def test_pytest_collection_error_is_a_failure(tmp_path: Path) -> None:
    suite(tmp_path, "warehouse", "1", {"pytest.xml": PYTEST})
    r = tally(tmp_path)
    # The runner's exit 1 is explained by the failing case: no extra failure for the suite.
    assert last_line(r) == "tests: 1 passed, 1 failed"


def test_no_skipped_part_when_nothing_skipped(tmp_path: Path) -> None:
    suite(tmp_path, "demo", "0", {"demo.xml": '<testsuite><testcase classname="demo" name="truth_check"/></testsuite>'})
    r = tally(tmp_path)
    assert last_line(r) == "tests: 1 passed, 0 failed"
    assert r.returncode == 0


def test_runner_failing_without_a_failed_case_counts_once(tmp_path: Path) -> None:
    # A build failure: the runner exits 1 and the reports it did write are all green.
    suite(tmp_path, "java", "1", {"a.xml": '<testsuite><testcase classname="A" name="x"/></testsuite>'})
    r = tally(tmp_path)
    assert last_line(r) == "tests: 1 passed, 1 failed"
    assert "java: the runner exited 1 with no failing test" in r.stdout


def test_runner_that_never_finished_is_a_failure(tmp_path: Path) -> None:
    suite(tmp_path, "probe", None, {})
    assert last_line(tally(tmp_path)) == "tests: 0 passed, 1 failed"


def test_missing_expected_report_is_a_failure(tmp_path: Path) -> None:
    # Two modules expected; one wrote no report (its build failed under -fae).
    suite(
        tmp_path,
        "java",
        "1",
        {
            "expect": "jobs-TEST-*.xml\ncli-TEST-*.xml\n",
            "jobs-TEST-A.xml": '<testsuite><testcase classname="A" name="x"/></testsuite>',
        },
    )
    r = tally(tmp_path)
    assert last_line(r) == "tests: 1 passed, 1 failed"
    assert "no report cli-TEST-*.xml" in r.stdout


def test_unreadable_report_is_a_failure(tmp_path: Path) -> None:
    suite(tmp_path, "dashboards", "0", {"pytest.xml": "<testsuite><testcase"})
    assert last_line(tally(tmp_path)) == "tests: 0 passed, 1 failed"


def test_go_subtests_counted_not_their_parent(tmp_path: Path) -> None:
    events = go_events(
        ("run", "p", "TestA"),
        ("run", "p", "TestA/one"),
        ("pass", "p", "TestA/one"),
        ("run", "p", "TestA/two"),
        ("fail", "p", "TestA/two"),
        ("fail", "p", "TestA"),
        ("pass", "p", "TestB"),
        ("skip", "p", "TestC"),
        ("fail", "p", None),
    )
    suite(tmp_path, "collector", "1", {"go.jsonl": "=== not json\n" + events})
    r = tally(tmp_path)
    assert last_line(r) == "tests: 2 passed, 1 failed, 1 skipped"
    assert "FAILED p.TestA/two" in r.stdout


def test_go_package_failing_without_a_test_counts_once(tmp_path: Path) -> None:
    # A build error or a -timeout panic: the package fails, no test reports fail (a test that was
    # running when the time-out hit may never report).
    events = go_events(("pass", "ok/pkg", "TestX"), ("run", "bad/pkg", "TestHang"), ("fail", "bad/pkg", None))
    suite(tmp_path, "snmp", "1", {"go.jsonl": "# bad/pkg [build failed]\n" + events})
    r = tally(tmp_path)
    assert last_line(r) == "tests: 1 passed, 1 failed"
    assert "bad/pkg (package failed with no failing test" in r.stdout


def test_totals_are_the_sum_of_suites(tmp_path: Path) -> None:
    suite(tmp_path, "java", "0", {"a.xml": SUREFIRE})
    suite(tmp_path, "warehouse", "1", {"pytest.xml": PYTEST})
    suite(tmp_path, "collector", "0", {"go.jsonl": go_events(("pass", "p", "TestB"), ("pass", "p", None))})
    r = tally(tmp_path)
    assert "  java: 2 passed, 2 failed, 1 skipped" in r.stdout
    assert "  warehouse: 1 passed, 1 failed" in r.stdout
    assert "  collector: 1 passed, 0 failed" in r.stdout
    assert last_line(r) == "tests: 4 passed, 3 failed, 1 skipped"


def test_one_suite_prints_only_its_line(tmp_path: Path) -> None:
    suite(tmp_path, "java", "0", {"a.xml": SUREFIRE})
    suite(tmp_path, "demo", "0", {"demo.xml": '<testsuite><testcase classname="demo" name="t"/></testsuite>'})
    r = tally(tmp_path, "demo")
    assert r.stdout.strip() == "demo: 1 passed, 0 failed"
    assert r.returncode == 0


@pytest.mark.parametrize("args", [[], ["a", "b", "c"]])
def test_usage_errors(tmp_path: Path, args: list[str]) -> None:
    r = subprocess.run([sys.executable, str(TALLY), *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2


def test_empty_reports_dir_is_an_error(tmp_path: Path) -> None:
    assert tally(tmp_path).returncode == 2


JUNIT_CASE = Path(__file__).resolve().parents[1] / "junit_case.py"


def test_each_failure_says_why_in_its_first_lines(tmp_path: Path) -> None:
    # A CI log keeps the console only: each failure's message follows its name, indented.
    long_message = "\n".join(["Expecting actual:", "  3", "to be equal to:", "  4"] + [f"line {i}" for i in range(20)])
    report = (
        '<testsuite><testcase classname="A" name="x"><failure message="'
        + long_message.replace("\n", "&#10;")
        + '">at A.x(A.java:1)</failure></testcase>'
        '<testcase classname="A" name="y"><error>java.lang.IllegalStateException: broker gone\n'
        "\tat B.y(B.java:2)</error></testcase></testsuite>"
    )
    events = go_events(("run", "p", "TestZ")) + "\n" + json.dumps(
        {"Action": "output", "Package": "p", "Test": "TestZ", "Output": "    z_test.go:9: lost 3 flows\n"}
    ) + "\n" + go_events(("fail", "p", "TestZ"), ("fail", "p", None))
    suite(tmp_path, "java", "1", {"a.xml": report})
    suite(tmp_path, "collector", "1", {"go.jsonl": events})
    out = tally(tmp_path).stdout
    assert "  FAILED A.x\n      Expecting actual:\n        3\n      to be equal to:\n        4\n      line 0\n      line 1\n" in out
    assert "line 2" not in out  # six lines, no more
    assert "  FAILED A.y\n      java.lang.IllegalStateException: broker gone\n" in out
    assert "  FAILED p.TestZ\n      z_test.go:9: lost 3 flows\n" in out
    brief = subprocess.run(
        [sys.executable, str(TALLY), "--brief", str(tmp_path)], capture_output=True, text=True, timeout=30
    ).stdout
    assert "  FAILED A.x\n  FAILED A.y\n" in brief and "Expecting" not in brief


def test_a_single_command_case_says_its_exit_and_the_log_lines_that_name_the_failure(tmp_path: Path) -> None:
    log = tmp_path / "case.log"
    log.write_text("starting\nFAILED: stored 41 of 42 records\nstopping\nall stopped\n")
    ok_log = tmp_path / "ok.log"
    ok_log.write_text("fine\n")
    out = tmp_path / "r" / "cluster"
    out.mkdir(parents=True)
    subprocess.run(
        [sys.executable, str(JUNIT_CASE), str(out / "c.xml"), "cluster", "broken", "1", str(log), "fine", "0", str(ok_log)],
        check=True,
        timeout=30,
    )
    (out / "exit").write_text("1\n")
    r = tally(tmp_path / "r")
    assert last_line(r) == "tests: 1 passed, 1 failed"
    assert "  FAILED cluster.broken\n      exit 1\n      FAILED: stored 41 of 42 records\n" in r.stdout


def test_a_suites_line_says_its_wall_time(tmp_path: Path) -> None:
    suite(tmp_path, "java", "0", {"a.xml": SUREFIRE})
    (tmp_path / "java" / "seconds").write_text("1234\n")
    assert "  java: 2 passed, 2 failed, 1 skipped (1234 s)" in tally(tmp_path).stdout
