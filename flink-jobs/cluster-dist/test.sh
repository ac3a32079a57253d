#!/usr/bin/env bash
# The cluster's fault tests: ./cheetah cluster (three brokers, a JobManager, two TaskManagers, the
# warehouse and goflow2, each a process on 127.0.0.1) with the demo's NetFlow workload and truth
# check, once per case. Each case: up on a fresh data directory (free ports), cluster demo with its
# faults, status, down (every process must be gone afterwards); passes only if the demo's every
# check passed.
# - secure (the default suite's one case, one cluster for both faults: each case costs about five
#   minutes of CI): up --secure (TLS on every listener, SCRAM, one principal per component with the
#   ACLs of schemas/topics.yaml; docs/DEPLOY.md, "Security"), then the demo with two kills while
#   NetFlow flows (cluster demo --kill kafka-leader --kill taskmanager-2 --kill-at-records 15000):
#   - first the broker leading the flows.goflow2.v1 partition goflow2 writes to, with SIGKILL: the
#     collector's Kafka producer must ride through the leader election (acks=all, idempotent,
#     retries spanning it; nothing lost, nothing doubled);
#   - then, once every job runs all its tasks again, taskmanager-2 with SIGKILL: every job that had
#     a task on it must restart (numRestarts at least one more than just before the kill, REST
#     API), the jobs restoring over authenticated connections, one broker still down.
#   Then cluster up to start both again (from their recorded commands), cluster security-check
#   (unauthenticated clients refused, the adapters' principal cannot write redirects.commands.v1,
#   the brokers hold exactly the chart's ACLs), then an operator's ./cheetah guard set and list
#   with the jobs' configuration (connecting as the redirect authority).
# - broker, taskmanager (only with --only or --all): each kill alone, without security.
# Usage: test.sh [--report-dir DIR] [--only taskmanager|broker|secure | --all] [cluster demo options...]
#   --report-dir DIR  write DIR/cluster.xml (JUnit, one case per case run) for ./cheetah test
#   --only WHAT       run one case (default: secure; --all: the three)
# Needs ./cheetah setup (the distributions' jars, the shaded job jar, goflow2, the venv).
# Logs: each case's under its data directory, kept when it fails (printed).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
report_dir="" only=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --report-dir) report_dir="$2"; shift ;;
    --only) only="$2"; shift ;;
    --all) only=all ;;
    *) break ;;
  esac
  shift
done
faults=()
case "$only" in
  ""|secure) faults=(secure) ;;
  all) faults=(taskmanager-2 kafka-leader secure) ;;
  taskmanager) faults=(taskmanager-2) ;;
  broker) faults=(kafka-leader) ;;
  *) echo "test.sh: --only taskmanager|broker|secure, not '$only'" >&2; exit 2 ;;
esac

# One fault: up, demo with the kill, status, down; the case's exit code and log.
run_case() {
  local fault="$1"; shift
  local data rc=0 pids
  data="$(mktemp -d "${TMPDIR:-/tmp}/cheetah-cluster-test.XXXXXX")"
  # The case's log outlives the data directory (removed when the case passed) for the report.
  local log="$data.log"
  {
    local up=() demo=(--kill "$fault")
    # Both kills inside the export's ~15 s: the broker's once 15,000 records are in Kafka, the
    # TaskManager's as soon as the jobs run again (records reach Kafka late until the partition
    # has its new leader, so a later mark would come after the export).
    if [ "$fault" = secure ]; then
      up=(--secure)
      demo=(--kill kafka-leader --kill taskmanager-2 --kill-at-records 15000)
    fi
    echo "== $fault: cluster up ${up[*]} (data $data)"
    "$ROOT/cheetah" cluster up --free-ports "${up[@]}" --set "data-dir=$data" || rc=$?
    if [ "$rc" -eq 0 ]; then
      echo "== $fault: cluster demo ${demo[*]}"
      "$ROOT/cheetah" cluster demo --set "data-dir=$data" "${demo[@]}" "$@" || rc=$?
      if [ "$fault" = secure ]; then
        # The killed broker and TaskManager come back with up (what an operator runs after a
        # crash): the checks below want the whole cluster, and a restart from the recorded
        # commands is tested.
        echo "== $fault: cluster up (starts the killed broker and taskmanager-2 again)"
        "$ROOT/cheetah" cluster up --set "data-dir=$data" || rc=$((rc ? rc : 1))
        echo "== $fault: cluster security-check"
        "$ROOT/cheetah" cluster security-check --set "data-dir=$data" || rc=$((rc ? rc : 1))
        # An operator's guard, with the jobs' configuration: it connects as the redirect authority.
        echo "== $fault: ./cheetah guard set, list (--config DATA/cluster/jobs.properties)"
        "$ROOT/cheetah" guard set --config "$data/cluster/jobs.properties" --device tor-secure \
          --receiver 192.0.2.10 --buffer 256KiB || rc=$((rc ? rc : 1))
        "$ROOT/cheetah" guard list --config "$data/cluster/jobs.properties" >"$data/guards.txt" || rc=$((rc ? rc : 1))
        cat "$data/guards.txt"
        grep -q "^tor-secure  *192.0.2.10 " "$data/guards.txt" \
          || { echo "FAILED: the guard set as cheetah-redirects is not listed in force"; rc=$((rc ? rc : 1)); }
      fi
      "$ROOT/cheetah" cluster status --set "data-dir=$data" || true
    fi
    pids="$(python3 -c 'import json,sys; print(" ".join(str(p["pid"]) for p in json.load(open(sys.argv[1]))["processes"] if p["pid"]))' "$data/cluster/state.json" 2>/dev/null)"
    echo "== $fault: cluster down"
    "$ROOT/cheetah" cluster down --set "data-dir=$data" || rc=$((rc ? rc : 1))
    for pid in $pids; do
      if kill -0 "$pid" 2>/dev/null; then
        echo "FAILED: pid $pid of the cluster still runs after down"; rc=$((rc ? rc : 1))
      fi
    done
    echo "== $fault: exit $rc"
  } >"$log" 2>&1
  cat "$log"
  if [ "$rc" -eq 0 ]; then rm -rf "$data"; else echo "test.sh: $fault failed; kept $data (logs in $data/cluster/logs)" >&2; fi
  CASE_LOG="$log" CASE_RC="$rc"
}

args=() failed=0
for f in "${faults[@]}"; do
  run_case "$f" "$@"
  if [ "$f" = secure ]; then
    args+=("secure_kafka_demo_kill_leader_broker_then_taskmanager_2_and_refusals" "$CASE_RC" "$CASE_LOG")
  else
    args+=("kill_${f//-/_}_mid_export" "$CASE_RC" "$CASE_LOG")
  fi
  [ "$CASE_RC" -eq 0 ] || failed=1
done
if [ -n "$report_dir" ]; then
  mkdir -p "$report_dir"
  python3 "$ROOT/scripts/junit_case.py" "$report_dir/cluster.xml" cluster "${args[@]}"
fi
exit "$failed"
