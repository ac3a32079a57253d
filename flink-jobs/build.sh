#!/usr/bin/env bash
# Builds the Java modules (flink-jobs/*, Java 17) with the Maven wrapper, main code only (tests
# are compiled by test.sh: a test that does not compile fails the tests, not every command).
# Writes flink-jobs/cli/target/classpath.txt, from which ./cheetah runs the CLI.
# Usage: build.sh [--package] [maven args...]
#   (default)   ./mvnw -q -B install -Dmaven.test.skip=true   (what ./cheetah setup runs)
#   --package   the same up to package: nothing is installed into ~/.m2 (several checkouts on one
#               machine share ~/.m2; ./cheetah runs this checkout's own jars either way)
#   maven args  e.g. -o (offline, once dependencies are downloaded)
# Idempotent: Maven recompiles what changed; the first run downloads ~300 MB into ~/.m2.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
phase=install
case "${1:-}" in
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  --package) phase=package; shift ;;
esac
command -v java >/dev/null && java -version 2>&1 | grep -q 'version "17' \
  || { echo "build.sh: Java 17 is required (java -version: $(java -version 2>&1 | head -1))" >&2; exit 1; }
echo "==> flink-jobs: ./mvnw -q -B $phase -Dmaven.test.skip=true $*"
cd "$ROOT"
./mvnw -q -B "$phase" -Dmaven.test.skip=true "$@" || { echo "build.sh: the Maven build failed (output above)" >&2; exit 1; }
echo "==> flink-jobs: built $(ls -d "$HERE"/*/target/*.jar 2>/dev/null | wc -l) jars; CLI classpath in flink-jobs/cli/target/classpath.txt"
