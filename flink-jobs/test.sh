#!/usr/bin/env bash
# Runs every test of the Java modules: ./mvnw -B -fae verify -Dmaven.test.failure.ignore=true, so
# every module is built and tested whatever another did (a test failure does not stop a module's
# dependents; failures are counted from the Surefire reports). Each test has a Surefire time limit.
# Integration tests (tag "integration") start a real Kafka broker, a Flink MiniCluster, goflow2 and
# the warehouse on loopback.
# Usage: test.sh [--report-dir DIR] [--format] [maven args...]
#   --report-dir DIR  copy every module's Surefire XML into DIR (MODULE-TEST-*.xml) and list in
#                     DIR/expect one report pattern per module with tests, so a module whose build
#                     failed counts as failed (what ./cheetah test tallies); without it, the
#                     reports are tallied here and the exit status says whether all passed
#   --format          instead: check the Java formatting (spotless:check, google-java-format);
#                     with --report-dir, DIR/format.xml holds it as one test case
#   maven args        e.g. -o -pl flink-jobs/cli -am -Dtest=TruthCheckTest
#                     -Dsurefire.failIfNoSpecifiedTests=false (then no module is expected)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
dir="" format=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --report-dir) dir="${2:?--report-dir needs a folder}"; shift 2 ;;
    --format) format=1; shift ;;
    *) break ;;
  esac
done
cd "$ROOT"

if [ -n "$format" ]; then
  log="$(mktemp /tmp/java-format.XXXXXX)"
  trap 'rm -f "$log"' EXIT
  rc=0
  ./mvnw -B -q spotless:check "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
  [ $rc -eq 0 ] || echo "test.sh: formatting differs from google-java-format: run ./mvnw -q spotless:apply" >&2
  if [ -n "$dir" ]; then
    mkdir -p "$dir" && python3 "$ROOT/scripts/junit_case.py" "$dir/format.xml" format google-java-format "$rc" "$log"
  fi
  exit $rc
fi

standalone=""
if [ -z "$dir" ]; then
  standalone="$(mktemp -d /tmp/java-tests.XXXXXX)"
  trap 'rm -rf "$standalone"' EXIT
  dir="$standalone/java"
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
rm -rf "$HERE"/*/target/surefire-reports
rc=0
./mvnw -B -fae verify -Dmaven.test.failure.ignore=true "$@" || rc=$?
for m in "$HERE"/*/; do
  [ -d "$m/src/test" ] || continue
  m="${m%/}"; m="${m##*/}"
  [ $# -gt 0 ] || echo "$m-TEST-*.xml" >> "$dir/expect"
  for f in "$HERE/$m/target/surefire-reports"/TEST-*.xml; do
    if [ -f "$f" ]; then cp "$f" "$dir/$m-${f##*/}"; fi
  done
done
if [ -n "$standalone" ]; then
  echo "$rc" > "$dir/exit"
  python3 "$ROOT/scripts/tally_tests.py" "$standalone" java
  exit $?
fi
exit $rc
