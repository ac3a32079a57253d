#!/usr/bin/env bash
# Runs every test of the transfer-log shippers with pytest (each test has a time limit: pyproject.toml).
# Usage: test.sh [--junit FILE | --report-dir DIR] [pytest args...]
#   --junit FILE      also write a JUnit XML report (the one ./cheetah test tallies)
#   --report-dir DIR  the same, as DIR/pytest.xml
#   pytest args       e.g. -k name -x, or a test file
# Interpreter: .cheetah/venv/bin/python (CHEETAH_PYTHON overrides). One test runs real iperf3
# (the pinned Debian package) over loopback; test_scenarios_netns.py runs iperf3 between network
# namespaces (root), softflowd, nfcapd and `./cheetah throughput`, over a user-space delay line and
# onto loop-device disks, one kept busy by dd writers (about 3 minutes), and starts the embedded
# stack once (`cheetah up`, about a minute more).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$ROOT/scripts/python_component.sh" test "$HERE" "${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}" "$@"
