#!/usr/bin/env python3
"""Writes a JUnit report for checks that are each a single command (a setup step, the Java
formatting check, the demo's truth check, the trace generator's checks): a case passed iff its
command exited 0; the end of its log is the failure's text, and its message is the exit code with
the log's last lines that name a failure or an error (else its last lines), so that the tally can
say why without the log.

Usage: junit_case.py OUT CLASS NAME EXIT_CODE LOG [NAME EXIT_CODE LOG ...]

scripts/tally_tests.py counts it like any other JUnit report. Standard library only: it must run
even when the project's venv failed to build.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET


def main(argv: list[str]) -> int:
    if len(argv) < 6 or (len(argv) - 3) % 3:
        print(__doc__.strip().splitlines()[4], file=sys.stderr)
        return 2
    out, cls, rest = argv[1], argv[2], argv[3:]
    cases = [rest[i : i + 3] for i in range(0, len(rest), 3)]
    failed = sum(rc != "0" for _, rc, _ in cases)
    suite = ET.Element("testsuite", name=cls, tests=str(len(cases)), failures=str(failed))
    for name, rc, log in cases:
        case = ET.SubElement(suite, "testcase", classname=cls, name=name)
        if rc != "0":
            text = log_tail(log)
            ET.SubElement(case, "failure", message=f"exit {rc}\n{telling_lines(text)}").text = text
    ET.ElementTree(suite).write(out, encoding="unicode")
    return 0


def log_tail(log: str) -> str:
    """The log's last part, without what XML 1.0 cannot hold (terminal escapes)."""
    try:
        text = open(log, errors="replace").read()[-8000:]
    except OSError as e:
        text = f"(no log: {e})"
    return re.sub("[^\t\n\r\x20-\ud7ff\ue000-\ufffd]", "", text)


TELLING = re.compile(r"FAIL|[Ee]rror|Exception|[Tt]imed? ?out")


def telling_lines(text: str, n: int = 5) -> str:
    """The last n lines of text that name a failure or an error, else its last n lines."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    telling = [ln for ln in lines if TELLING.search(ln)]
    return "\n".join((telling or lines)[-n:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
