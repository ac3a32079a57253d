#!/usr/bin/env bash
# Runs the tests of ./cheetah's own tooling (scripts/tests: the tally of ./cheetah test, on
# hand-written reports whose counts are known by construction), 60 s limit per test.
# Usage: test.sh [--junit FILE | --report-dir DIR] [pytest args...]
#   --junit FILE      also write a JUnit XML report; --report-dir DIR: as DIR/pytest.xml
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$HERE/python_component.sh" test "$HERE" "${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}" "$@" -o timeout=60 tests
