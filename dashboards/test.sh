#!/usr/bin/env bash
# Runs every test of the dashboards (bundles, Superset import, headless check) with pytest (each test has a time limit: pytest.ini).
# Usage: test.sh [--junit FILE | --report-dir DIR] [pytest args...]
#   --junit FILE      also write a JUnit XML report (the one ./cheetah test tallies)
#   --report-dir DIR  the same, as DIR/pytest.xml
#   pytest args       e.g. -k name -x, or a test file
# Interpreter: .cheetah/superset-venv/bin/python (CHEETAH_SUPERSET_PYTHON overrides). Some tests need root (namespaces, veths).
# The headless test reads the demo's warehouse (.cheetah/demo/warehouse): run ./cheetah demo first.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$ROOT/scripts/python_component.sh" test "$HERE" "${CHEETAH_SUPERSET_PYTHON:-$ROOT/.cheetah/superset-venv/bin/python}" "$@"
