#!/usr/bin/env bash
# Bad input gets a clear error naming the input and the fix, and a non-zero exit, never a crash.
set -u
PROBE="$1"; WORK="$2"
expect() { # expect EXIT_CODE PATTERN -- ARGS...
  local code="$1" pattern="$2"; shift 3
  out="$("$PROBE" "$@" 2>&1)"; rc=$?
  if [ $rc -ne "$code" ] || ! grep -q -- "$pattern" <<<"$out"; then
    echo "cheetah-probe $*: exit $rc (want $code), output: $out (want /$pattern/)"; return 1
  fi
}
printf 'not a pcap at all' > "$WORK/junk.pcap"
ok=0
expect 2 "give exactly one input" -- --out "$WORK" || ok=1
expect 2 "rate-threshold abc: expected a number" -- --pcap x --rate-threshold abc || ok=1
expect 2 "sampling 2: expected a number from 0 to 1" -- --pcap x --sampling 2 || ok=1
expect 2 "unknown option" -- --pcap x --frobnicate || ok=1
expect 1 "cannot open --pcap $WORK/missing.pcap" -- --pcap "$WORK/missing.pcap" || ok=1
expect 1 "is not a classic pcap file" -- --pcap "$WORK/junk.pcap" || ok=1
# --out is created when missing; under a regular file it cannot be.
expect 1 "cannot write $WORK/a.pcap/out/cheetahs.csv" -- --pcap "$WORK/a.pcap" --out "$WORK/a.pcap/out" || ok=1
expect 0 "Usage: cheetah-probe" -- --help || ok=1
head -c -10 "$WORK/a.pcap" > "$WORK/cut.pcap"   # the last record cut short: read the rest, and say so
mkdir -p "$WORK/cut"
expect 0 "is damaged at byte" -- --pcap "$WORK/cut.pcap" --out "$WORK/cut" || ok=1
exit $ok
