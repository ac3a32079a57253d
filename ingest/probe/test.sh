#!/usr/bin/env bash
# Every test of the probe (and of the trace generator, ingest/tracegen/test.sh, whose traces the
# probe's tests replay), one line each:
#   PASS name / FAIL name / SKIP name ... and a last line "N passed, M failed"
#   (", K skipped" when some were); exit 1 on any failure.
# Builds first (unit tests plain and under ASan/UBSan, the fuzzer) into ingest/probe/build.
# The fuzzer runs 30 s, then replays the kept corpus (tests/fuzz-corpus, scripts/fuzz_targets.txt).
# Usage: test.sh [--fuzz-minutes N] [--no-kafka] [--junit FILE | --report-dir DIR]
#   --fuzz-minutes N  run the parser fuzzer N minutes instead of 30 s
#   --no-kafka        leave out the integration tests (broker, veths); reported as FAIL (not run)
#   --junit FILE      also write the results as JUnit XML (one testcase per line above), even
#                     when the build fails (then one failing testcase, build)
#   --report-dir DIR  the same, as DIR/probe.xml
# Root: the integration tests create veths and start `./cheetah broker`.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$HERE/build"
BIN="$BUILD/bin"
VENV_PY="$ROOT/.cheetah/venv/bin/python"
FUZZ_SECONDS=30
KAFKA=1
JUNIT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-minutes) FUZZ_SECONDS=$(( ${2:?--fuzz-minutes needs a number} * 60 )); shift 2;;
    --no-kafka) KAFKA=0; shift;;
    --junit) JUNIT="${2:?--junit needs a file name}"; shift 2;;
    --report-dir) JUNIT="${2:?--report-dir needs a folder}/probe.xml"; shift 2;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0;;
    *) echo "test.sh: unknown argument $1 (see --help)" >&2; exit 2;;
  esac
done
if [ -n "$JUNIT" ]; then # an absolute path: the build changes directory
  mkdir -p "$(dirname "$JUNIT")" && JUNIT="$(cd "$(dirname "$JUNIT")" && pwd)/$(basename "$JUNIT")" ||
    { echo "test.sh: cannot write --junit $JUNIT" >&2; exit 2; }
fi

PASSED=0; FAILED=0; SKIPPED=0
WORK="$(mktemp -d /tmp/probe-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# Every result is also recorded for the JUnit report: results.tsv holds
# verdict<TAB>name<TAB>details file, one line per test, in order.
: >"$WORK/results.tsv"
record() {
  local details=""
  if [ -n "${3:-}" ] && [ -s "$3" ]; then details="$WORK/details.$(( PASSED + FAILED + SKIPPED ))"; cp "$3" "$details"; fi
  printf '%s\t%s\t%s\n' "$1" "$2" "$details" >>"$WORK/results.tsv"
}
pass() { echo "PASS $1"; record PASS "$1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1"; record FAIL "$1" "${2:-}"; FAILED=$((FAILED + 1)); [ -n "${2:-}" ] && sed 's/^/  /' "$2" >&2; return 0; }
skip() { echo "SKIP $1"; record SKIP "$1" "${2:-}"; SKIPPED=$((SKIPPED + 1)); }
# Runs "$@" quietly; PASS/FAIL line named $NAME, with its output shown on failure.
# Every program it runs has a time limit (a hang is that check's failure, exit 124); a shell
# function (probe below) runs the probe offline on a file and ends with it.
LIMIT=(timeout --kill-after=10 $((FUZZ_SECONDS + 600)))
check() {
  local name="$1" t=(); shift
  [ "$(type -t "$1")" = function ] || t=("${LIMIT[@]}")
  if "${t[@]}" "$@" >"$WORK/out" 2>&1; then pass "$name"; else fail "$name" "$WORK/out"; fi
}
# Re-emits a runner's own PASS/FAIL lines under a prefix and counts them; the
# lines a runner prints before a FAIL line (its failed checks) are that test's details.
relay() {
  local prefix="$1" log="$2" line
  : >"$WORK/pending"
  while IFS= read -r line; do
    case "$line" in
      "PASS "*) pass "$prefix${line#PASS }"; : >"$WORK/pending";;
      "FAIL "*) fail "$prefix${line#FAIL }" "$WORK/pending"; : >"$WORK/pending";;
      *) printf '%s\n' "$line" >>"$WORK/pending";;
    esac
  done <"$log"
}
# Text fit for XML 1.0: valid UTF-8, no control characters but tab and newline, markup escaped.
xml_text() {
  iconv -f UTF-8 -t UTF-8 -c | tr -d '\000-\010\013-\037' |
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' -e "s/'/\&apos;/g"
}
write_junit() {
  local out="$JUNIT.tmp" verdict name details
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites tests=\"$(( PASSED + FAILED + SKIPPED ))\" failures=\"$FAILED\" errors=\"0\" skipped=\"$SKIPPED\">"
    echo "<testsuite name=\"probe\" tests=\"$(( PASSED + FAILED + SKIPPED ))\" failures=\"$FAILED\" errors=\"0\" skipped=\"$SKIPPED\">"
    while IFS=$'\t' read -r verdict name details; do
      printf '<testcase classname="probe" name="%s"' "$(printf '%s' "$name" | xml_text)"
      case "$verdict" in
        PASS) echo '/>';;
        SKIP) echo '><skipped/></testcase>';;
        FAIL)
          local first=""
          [ -n "$details" ] && first="$(grep -m1 -v '^[[:space:]]*$' "$details" | cut -c1-300)"
          printf '><failure message="%s">' "$(printf '%s' "${first:-failed}" | xml_text)"
          [ -n "$details" ] && tail -n 200 "$details" | xml_text
          echo '</failure></testcase>';;
      esac
    done <"$WORK/results.tsv"
    echo '</testsuite>'
    echo '</testsuites>'
  } >"$out" && mv "$out" "$JUNIT"
}
# The closing line, the JUnit report, and the exit status.
finish() {
  local skipped=""
  [ $SKIPPED -gt 0 ] && skipped=", $SKIPPED skipped"
  echo "$PASSED passed, $FAILED failed$skipped"
  [ -z "$JUNIT" ] || write_junit
  [ $FAILED -eq 0 ]
  exit
}

if [ ! -x "$VENV_PY" ]; then
  echo "test.sh: the shared venv $VENV_PY is missing: run ./cheetah setup" >"$WORK/out"
  fail setup.venv "$WORK/out"; finish
fi

# --- build -------------------------------------------------------------------
if make -s -C "$HERE" -j2 BUILD="$BUILD" BIN="$BIN" PYTHON="$VENV_PY" all unit unit-asan fuzz >"$WORK/build.log" 2>&1; then
  pass build
else
  fail build "$WORK/build.log"
  finish
fi

# --- unit tests: cache, LRU, flight rule, parser, bins; then under ASan/UBSan --
# A runner that dies without a FAIL line (a crash) is a failure too.
"${LIMIT[@]}" "$BUILD/unit" >"$WORK/unit.log" 2>&1; rc=$?
relay "unit." "$WORK/unit.log"
if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$WORK/unit.log"; then fail unit.clean_exit "$WORK/unit.log"; fi
"${LIMIT[@]}" "$BUILD/unit-asan" >"$WORK/asan.log" 2>&1; rc=$?
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

# The kept corpus (seeds + what `./cheetah bench fuzz` found, minimised), each input run once: the
# folder is the one scripts/fuzz_targets.txt names for probe-packet, the list the soak reads too.
CORPUS="$(awk '$1 == "probe-packet" { print $5 }' "$ROOT/scripts/fuzz_targets.txt")"
check fuzz.corpus_replay_no_crash bash -c "[ -n '$CORPUS' ] && [ -n \"\$(ls -A '$ROOT/$CORPUS')\" ] &&
  '$BUILD/fuzz-parse' -runs=0 -timeout=10 '$ROOT/$CORPUS'"

# --- trace generator: its own tests (ingest/tracegen/test.sh), on the binary built above ---
bash "$ROOT/ingest/tracegen/test.sh" --bin "$BIN" >"$WORK/tracegen.log" 2>&1; rc=$?
relay "" "$WORK/tracegen.log"
if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$WORK/tracegen.log"; then fail tracegen.clean_exit "$WORK/tracegen.log"; fi
"$BIN/cheetah-tracegen" --scale 0.01 --seconds 5 --rate-threshold 50e6 --seed 7 \
  --out "$WORK/a.pcap" --truth "$WORK/a.json" >/dev/null 2>&1

# --- the offline contract, accuracy with L = 0, S = 1 ----------------------------
probe() { "$BIN/cheetah-probe" --quiet --pcap "$WORK/a.pcap" --rate-threshold 50e6 "$@"; }
mkdir -p "$WORK/single" "$WORK/dist" "$WORK/mem2"
check probe.offline_contract_runs probe --out "$WORK/single"
check accuracy.every_cheetah_above_r_none_below_half "${VENV_PY}" "$HERE/tests/check_accuracy.py" "$WORK/a.json" "$WORK/single"
check probe.distributor_2_workers_same_result bash -c "'$BIN/cheetah-probe' --quiet --pcap '$WORK/a.pcap' --rate-threshold 50e6 --workers 2 --out '$WORK/dist' && cmp <(sort '$WORK/single/cheetahs.csv') <(sort '$WORK/dist/cheetahs.csv') && cmp '$WORK/single/bins.csv' '$WORK/dist/bins.csv'"
check probe.memory_replay_2_workers_same_result bash -c "'$BIN/cheetah-probe' --quiet --pcap '$WORK/a.pcap' --rate-threshold 50e6 --memory --workers 2 --out '$WORK/mem2' && cmp <(sort '$WORK/single/cheetahs.csv') <(sort '$WORK/mem2/cheetahs.csv') && cmp '$WORK/single/bins.csv' '$WORK/mem2/bins.csv'"
check probe.errors_name_the_input bash "$HERE/tests/check_errors.sh" "$BIN/cheetah-probe" "$WORK"
# --help's topics are the manifest's (schemas/topics.yaml), its defaults the ones a run used.
check probe.help_agrees_with_manifest_and_run "${VENV_PY}" "$HERE/tests/check_help.py" "$BIN/cheetah-probe" \
  "$ROOT/schemas/topics.yaml" "$WORK/single/summary.json"

# --- integration: a real broker, live capture on veths (pytest) -----------------
if [ $KAFKA -eq 1 ]; then
  PROBE_BIN="$BIN/cheetah-probe" TRACEGEN_BIN="$BIN/cheetah-tracegen" CHEETAH="$ROOT/cheetah" \
    "$VENV_PY" -m pytest -q -rA -p no:cacheprovider -o timeout=600 "$HERE/tests/integration" >"$WORK/kafka.log" 2>&1; rc=$?
  # -rA summary lines: "PASSED path::test", "FAILED path::test - message",
  # "SKIPPED [n] path:line: reason"
  while read -r verdict name rest; do
    printf '%s\n' "$rest" >"$WORK/out"
    case "$verdict" in
      PASSED) pass "integration.${name##*::}";;
      FAILED|ERROR) fail "integration.${name##*::}" "$WORK/out";;
      SKIPPED) where="${rest%%: *}"; skip "integration.skipped.${where##*/}" "$WORK/out";;
    esac
  done < <(grep -E '^(PASSED|FAILED|ERROR|SKIPPED) ' "$WORK/kafka.log")
  if [ $rc -ne 0 ]; then
    tail -60 "$WORK/kafka.log" >"$WORK/out"
    grep -qE '^(PASSED|FAILED|ERROR) ' "$WORK/kafka.log" || fail integration.pytest_ran "$WORK/out"
    tail -60 "$WORK/kafka.log" >&2
  fi
else
  fail "integration.not_run (--no-kafka)"
fi

finish
