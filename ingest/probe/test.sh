#!/usr/bin/env bash
# Every test of the probe and the trace generator, one line each:
#   PASS name / FAIL name ... and a last line "N passed, M failed" (exit 1 on any failure).
# Usage: test.sh [--fuzz-minutes N] [--no-kafka]
#   --fuzz-minutes N  run the parser fuzzer N minutes instead of 30 s
#   --no-kafka        leave out the integration tests (broker, veths); reported as FAIL (not run)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$HERE/build"
BIN="$BUILD/bin"
VENV_PY="$ROOT/.cheetah/venv/bin/python"
[ -x "$VENV_PY" ] || { echo "test.sh: the shared venv $VENV_PY is missing: run ./cheetah setup" >&2; exit 1; }
FUZZ_SECONDS=30
KAFKA=1
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-minutes) FUZZ_SECONDS=$(( ${2:?--fuzz-minutes needs a number} * 60 )); shift 2;;
    --no-kafka) KAFKA=0; shift;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0;;
    *) echo "test.sh: unknown argument $1 (see --help)" >&2; exit 2;;
  esac
done

PASSED=0; FAILED=0
WORK="$(mktemp -d /tmp/probe-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1"; FAILED=$((FAILED + 1)); [ -n "${2:-}" ] && sed 's/^/  /' "$2" >&2; return 0; }
# Runs "$@" quietly; PASS/FAIL line named $NAME, with its output shown on failure.
check() { local name="$1"; shift; if "$@" >"$WORK/out" 2>&1; then pass "$name"; else fail "$name" "$WORK/out"; fi; }
# Re-emits a runner's own PASS/FAIL lines under a prefix and counts them.
relay() {
  local prefix="$1" log="$2"
  while read -r verdict name; do
    case "$verdict" in PASS) pass "$prefix$name";; FAIL) fail "$prefix$name";; esac
  done < <(grep -E '^(PASS|FAIL) ' "$log")
}

# --- build -------------------------------------------------------------------
if make -s -C "$HERE" -j2 BUILD="$BUILD" BIN="$BIN" all unit unit-asan fuzz >"$WORK/build.log" 2>&1; then
  pass build
else
  fail build "$WORK/build.log"
  echo "$PASSED passed, $FAILED failed"; exit 1
fi

# --- unit tests: cache, LRU, flight rule, parser, bins; then under ASan/UBSan --
"$BUILD/unit" >"$WORK/unit.log" 2>&1; rc=$?
relay "unit." "$WORK/unit.log"; [ $rc -eq 0 ] || { grep -v '^PASS' "$WORK/unit.log" >&2; }
"$BUILD/unit-asan" >"$WORK/asan.log" 2>&1; rc=$?
relay "asan." "$WORK/asan.log"
if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$WORK/asan.log"; then fail asan.clean_exit "$WORK/asan.log"; fi

# --- fuzzing the parser (and the flight rule behind it) -----------------------
mkdir -p "$WORK/corpus"
"$BIN/cheetah-tracegen" --out "$WORK/seed.pcap" --truth "$WORK/seed.json" --scale 0.001 --seconds 1 --cheetahs 2 >/dev/null 2>&1
"$VENV_PY" - "$WORK/seed.pcap" "$WORK/corpus" <<'PY'
import struct, sys, pathlib
f = open(sys.argv[1], "rb"); f.read(24); out = pathlib.Path(sys.argv[2])
for i in range(64):  # real frames as seeds: [wire-length byte, time-step byte, frame]
    h = f.read(16)
    if len(h) < 16: break
    _, _, cl, wl = struct.unpack("<IIII", h)
    (out / f"seed{i}").write_bytes(bytes([0, 1]) + f.read(cl))
PY
check "fuzz.parser_${FUZZ_SECONDS}s_no_crash" "$BUILD/fuzz-parse" -max_total_time="$FUZZ_SECONDS" -max_len=512 \
  -print_final_stats=1 "$WORK/corpus"

# --- trace generator ----------------------------------------------------------
TG=("$BIN/cheetah-tracegen" --scale 0.01 --seconds 5 --rate-threshold 50e6 --seed 7)
"${TG[@]}" --out "$WORK/a.pcap" --truth "$WORK/a.json" >/dev/null 2>&1
"${TG[@]}" --out "$WORK/b.pcap" --truth "$WORK/b.json" >/dev/null 2>&1
check tracegen.same_seed_same_bytes cmp "$WORK/a.pcap" "$WORK/b.pcap"
check tracegen.truth_matches_pcap "${VENV_PY}" "$HERE/tests/check_trace.py" "$WORK/a.pcap" "$WORK/a.json"

# --- the offline contract, accuracy with L = 0, S = 1 ----------------------------
probe() { "$BIN/cheetah-probe" --quiet --pcap "$WORK/a.pcap" --rate-threshold 50e6 "$@"; }
mkdir -p "$WORK/single" "$WORK/dist" "$WORK/mem2"
check probe.offline_contract_runs probe --out "$WORK/single"
check accuracy.every_cheetah_above_r_none_below_half "${VENV_PY}" "$HERE/tests/check_accuracy.py" "$WORK/a.json" "$WORK/single"
check probe.distributor_2_workers_same_result bash -c "'$BIN/cheetah-probe' --quiet --pcap '$WORK/a.pcap' --rate-threshold 50e6 --workers 2 --out '$WORK/dist' && cmp <(sort '$WORK/single/cheetahs.csv') <(sort '$WORK/dist/cheetahs.csv') && cmp '$WORK/single/bins.csv' '$WORK/dist/bins.csv'"
check probe.memory_replay_2_workers_same_result bash -c "'$BIN/cheetah-probe' --quiet --pcap '$WORK/a.pcap' --rate-threshold 50e6 --memory --workers 2 --out '$WORK/mem2' && cmp <(sort '$WORK/single/cheetahs.csv') <(sort '$WORK/mem2/cheetahs.csv') && cmp '$WORK/single/bins.csv' '$WORK/mem2/bins.csv'"
check probe.errors_name_the_input bash "$HERE/tests/check_errors.sh" "$BIN/cheetah-probe" "$WORK"

# --- integration: a real broker, live capture on veths (pytest) -----------------
if [ $KAFKA -eq 1 ]; then
  PROBE_BIN="$BIN/cheetah-probe" TRACEGEN_BIN="$BIN/cheetah-tracegen" CHEETAH="$ROOT/cheetah" \
    "$VENV_PY" -m pytest -q -rA -p no:cacheprovider "$HERE/tests/integration" >"$WORK/kafka.log" 2>&1; rc=$?
  while read -r verdict name; do
    case "$verdict" in PASSED) pass "integration.${name##*::}";; FAILED|ERROR) fail "integration.${name##*::}";; esac
  done < <(grep -E '^(PASSED|FAILED|ERROR) ' "$WORK/kafka.log")
  if [ $rc -ne 0 ]; then
    grep -qE '^(PASSED|FAILED|ERROR) ' "$WORK/kafka.log" || fail integration.pytest_ran
    tail -60 "$WORK/kafka.log" >&2
  fi
else
  fail "integration.not_run (--no-kafka)"
fi

echo "$PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
