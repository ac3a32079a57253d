#!/usr/bin/env bash
# Runs every test of the trace generator, one line each (PASS name / FAIL name, its output
# below a failure), and exits 1 on any failure:
#   tracegen.same_seed_same_bytes  two runs with one seed write the same pcap, byte for byte
#   tracegen.truth_matches_pcap    an independent recount of the pcap (tests/check_trace.py,
#                                  plain struct parsing) agrees with the ground-truth file
# Usage: test.sh [--bin DIR] [--junit FILE | --report-dir DIR]
#   --bin DIR         test DIR/cheetah-tracegen as built (default: build.sh into build/bin first)
#   --junit FILE      also write a JUnit XML report; --report-dir DIR: as DIR/tracegen.xml
# The probe's test.sh runs this and counts these lines among the probe suite's tests.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}"
BIN="" JUNIT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN="${2:?--bin needs a folder}"; shift 2 ;;
    --junit) JUNIT="${2:?--junit needs a file}"; shift 2 ;;
    --report-dir) JUNIT="${2:?--report-dir needs a folder}/tracegen.xml"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
WORK="$(mktemp -d /tmp/tracegen-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
if [ -z "$BIN" ]; then
  BIN="$HERE/build/bin"
  bash "$HERE/build.sh" "$BIN" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; echo "FAIL tracegen.build"; exit 1; }
fi
[ -x "$PY" ] || { echo "test.sh: no Python at $PY: run ./cheetah setup (it creates the venv)"; echo "FAIL tracegen.setup"; exit 1; }

CASES=() FAILED=0
# One check: a command with a time limit; PASS/FAIL line, its output shown on failure.
check() {
  local name="$1" rc=0; shift
  timeout --kill-after=10 600 "$@" >"$WORK/$name.log" 2>&1 || rc=$?
  if [ $rc -eq 0 ]; then echo "PASS $name"; else cat "$WORK/$name.log"; echo "FAIL $name"; FAILED=$((FAILED + 1)); fi
  CASES+=("$name" "$rc" "$WORK/$name.log")
}
TG=("$BIN/cheetah-tracegen" --scale 0.01 --seconds 5 --rate-threshold 50e6 --seed 7)
"${TG[@]}" --out "$WORK/a.pcap" --truth "$WORK/a.json" >/dev/null 2>&1
"${TG[@]}" --out "$WORK/b.pcap" --truth "$WORK/b.json" >/dev/null 2>&1
check tracegen.same_seed_same_bytes cmp "$WORK/a.pcap" "$WORK/b.pcap"
check tracegen.truth_matches_pcap "$PY" "$HERE/tests/check_trace.py" "$WORK/a.pcap" "$WORK/a.json"
if [ -n "$JUNIT" ]; then
  mkdir -p "$(dirname "$JUNIT")" && python3 "$ROOT/scripts/junit_case.py" "$JUNIT" tracegen "${CASES[@]}"
fi
[ $FAILED -eq 0 ]
