#!/bin/bash
# flink-submit (docker-compose.yml): runs each job of $CHEETAH_JOBS from the shaded jar on the
# session cluster through its REST API (flink run -m), unless a job of that name is running.
# Each job's savepoints live in $CHEETAH_SAVEPOINTS/JOB (flink.savepoint-dir) and its retained
# checkpoints in $CHEETAH_CHECKPOINTS/JOB (flink.checkpoint-dir); a job that is not running starts
# from the newest of them, so "stop with savepoint, then run this again" is an upgrade, and after
# the JobManager died (no HA in compose) the jobs resume from their last checkpoint (docs/DEPLOY.md). Jar interface: net.cheetah.jobs.JobMain --job NAME --config
# FILE --set key=value.
#
#   submit-jobs.sh                      submit (the service's command)
#   submit-jobs.sh --restore-point JOB  print what JOB would restore from ('' = a fresh start)
set -euo pipefail
rest="${CHEETAH_FLINK_REST:-jobmanager:8081}"
jar=/opt/flink/usrlib/cheetah-jobs.jar
config="${CHEETAH_JOBS_CONFIG:-/etc/cheetah/jobs.properties}"
savepoints="${CHEETAH_SAVEPOINTS:-/flink-data/savepoints}"
checkpoints="${CHEETAH_CHECKPOINTS:-/flink-data/checkpoints}"

# The newest complete savepoint or retained checkpoint of a job (both have a _metadata file once
# complete; a checkpoint cut short by a crash has none and is skipped), '' if there is none.
restore_point() {
  local sp="$savepoints/$1" cp="$checkpoints/$1"
  { [[ ! -d $sp ]] || find "$sp" -mindepth 2 -maxdepth 2 -path "$sp/savepoint-*/_metadata" -printf '%T@ %h\n'
    [[ ! -d $cp ]] || find "$cp" -mindepth 3 -maxdepth 3 -path "$cp/*/chk-*/_metadata" -printf '%T@ %h\n'
  } | sort -rn | head -1 | cut -d' ' -f2-
}
if [[ ${1:-} == --restore-point ]]; then restore_point "${2:?--restore-point JOB}"; exit 0; fi

jobs="${CHEETAH_JOBS:?CHEETAH_JOBS lists the jobs to run}"
[[ -f $config ]] || { echo "flink-submit: no job configuration at $config" >&2; exit 1; }

# The JobManager may still be starting: wait for its REST API, with a deadline.
deadline=$((SECONDS + ${CHEETAH_SUBMIT_WAIT_S:-300}))
until running="$(flink list -r -m "$rest" 2>/dev/null)"; do
  (( SECONDS < deadline )) || { echo "flink-submit: no Flink REST API at $rest after ${CHEETAH_SUBMIT_WAIT_S:-300} s" >&2; exit 1; }
  sleep 3
done

for job in $jobs; do
  if grep -qE " : ${job} \((RUNNING|CREATED|RESTARTING)\)" <<<"$running"; then
    echo "flink-submit: $job is already running"
    continue
  fi
  sp="$savepoints/$job" cp="$checkpoints/$job"
  mkdir -p "$sp" "$cp"
  newest="$(restore_point "$job")"
  restore=()
  [[ -z $newest ]] || restore=(--fromSavepoint "file://$newest")
  echo "flink-submit: $job${newest:+ from $newest}"
  flink run --detached -m "$rest" "${restore[@]}" --class net.cheetah.jobs.JobMain "$jar" \
    --job "$job" --config "$config" --set "flink.savepoint-dir=file://$sp" --set "flink.checkpoint-dir=file://$cp"
done
