#!/usr/bin/env bash
# Cheetah benchmarks (docs/BENCHMARKS.md). Every figure is printed with the command that
# reproduces it and the load average at the time it was taken.
#
#   flink-jobs/bench/run.sh jmh     [REGEX] [JMH args...]   pure cores on one thread, the cheetah
#                                   operator in Flink's test harness among them (~3.5 min; REGEX:
#                                   only the benchmarks it matches, e.g. cheetahOperator)
#   flink-jobs/bench/run.sh e2e     [options...]    normalize + cheetah jobs in the MiniCluster,
#                                                   1M records (~1.5 min; `e2e --help`)
#   flink-jobs/bench/run.sh e2e --baseline DIR [--runs N] [options...]
#                                   the same, N times each (default 2), alternating with the
#                                   jobs of another built checkout DIR (this harness on DIR's
#                                   modules), in one run
#   flink-jobs/bench/run.sh stack   [--records N] [--timeout-s S] [--keep-data] [--set K=V]...
#                                   the whole stack: ./cheetah up itself (all its jobs, the
#                                   warehouse, goflow2) on a temp data dir and free ports, the e2e
#                                   workload (default 1M records) written to flows.goflow2.v1:
#                                   records/s until the cheetah operator has them all, until the
#                                   warehouse stored them all (exit 3 unless flows rows == flows.v1
#                                   records) and until every job reading flows.v1 committed all of
#                                   it; CPU of up's process tree and per process (~3 min; `stack --help`)
#   flink-jobs/bench/run.sh state   [--flows N[,N...]] [--no-legacy]
#                                   checkpointed state of the cheetah operator per concurrent
#                                   flow that cannot be a cheetah (default 10^5 and 10^6 mice),
#                                   now and as it was before the state was packed, same run;
#                                   deterministic bytes from a real snapshot (~2 min)
#   flink-jobs/bench/run.sh analyze [--runs N] [--rebuild-archive] [--archive 1m|10m]
#                                   [--baseline DIR]
#                                   `cheetah analyze` vs nfdump on an nfcapd archive: 1m = 1.06M
#                                   records in one file (~1 min, + ~3.5 min once to build it in
#                                   .cheetah/bench/), 10m = that file 10 times (10.6M records in
#                                   10 files; ~8 min); --baseline DIR also times the analyze of
#                                   another checkout DIR (built), in the same interleaved runs
#   flink-jobs/bench/run.sh archive [--rebuild-archive] [--archive 1m|10m]   only build (or
#                                   reuse) that archive
#   flink-jobs/bench/run.sh adapters [--commands N]  tc adapter command -> ack latency on a real
#                                   broker (root; ~1 min; adapters/bench/ack_latency.py)
#   flink-jobs/bench/run.sh cluster [--records N]   ./cheetah cluster: end-to-end records/s with
#                                   1 TaskManager at parallelism 1, then 2 at parallelism 2, and
#                                   recovery after kill -9 of a TaskManager (~10 min)
#   flink-jobs/bench/run.sh ingest  [--seconds S] [--rate R] [--no-nfcapd]
#                                   a paced exporter (R records/s asked, default 52000: >= 50,000
#                                   sent, ~4,900 datagrams/s) -> cheetah-goflow2 -> Kafka for S s (default 300):
#                                   records on the topic, kernel drops; then the same to nfcapd -B
#                                   (~12 min; ingest/goflow2/bench/ingest_rate.py --help)
#   flink-jobs/bench/run.sh latency [options...]    detection -> command latency of redirects,
#                                   NetFlow and probe cheetahs, the stack's five jobs in the
#                                   MiniCluster, before (committed input) and now (~5 min;
#                                   `latency --help`)
#   flink-jobs/bench/run.sh warehouse [--flows N] [--phase-s S] [--rounds R] [--users DIR]
#                                   the embedded warehouse's ingest rate from a Kafka backlog,
#                                   alone and while the dashboards user runs heavy queries
#                                   (~3 min; clickhouse/bench/ingest_vs_dashboards.py --help)
#   flink-jobs/bench/run.sh chaos   [--minutes N] [--seed S] [--gap-s G]
#                                   the chaos soak: ./cheetah cluster under the demo's workload
#                                   paced over N minutes (default 15) while a seeded schedule kills
#                                   (SIGKILL) and restarts a broker, a TaskManager, the JobManager,
#                                   goflow2, the warehouse and a tc adapter; then the truth check
#                                   by rows and each command applied once (~N + 8 min; summary in
#                                   .cheetah/bench/chaos/; exit 1 if anything was lost or doubled)
#   flink-jobs/bench/run.sh fuzz    [--minutes N] [--target NAME] [--list] [--reproduce FILE]
#                                   the fuzz soak: every target of scripts/fuzz_targets.txt
#                                   fuzzed N minutes (default 10) each, one after another; per
#                                   target execs, execs/s, corpus, coverage, crashes, hangs and the
#                                   command reproducing each (~10 min x 9 targets; --help)
#   flink-jobs/bench/run.sh fabric  [--modes ecmp,...] [--tests 1,2,3,4] [--runs N] [--size 20M] [--out DIR]
#                                   the EFM study's core collisions on the k = 4 fat-tree (root; OVS,
#                                   hosts in namespaces, 10 Mb/s links): per-flow FCT and throughput
#                                   of iperf3 elephants, means and 95 % intervals; table and SVG in
#                                   DIR (default .cheetah/bench/fabric; ~1 min per run of 20 MB flows;
#                                   adapters/cheetah_adapters/fabric_experiment.py --help)
#   flink-jobs/bench/run.sh all     jmh, e2e and analyze, in that order
#
# stdout: `FIGURE name value` lines (and `SUMMARY e2e|stack k=v ...`), each followed by the load
# average and the command; progress goes to stderr. Needs the Maven build and the venv
# (`./cheetah setup`); builds this module if its jar is missing. Exit status 0 when every
# requested figure was measured.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH="$ROOT/flink-jobs/bench"
# The comment block at the top of this file, without its "# ".
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
CLI="$ROOT/flink-jobs/cli"
STATE="$ROOT/.cheetah/bench"
PY="$ROOT/.cheetah/venv/bin/python"
# The same JVM options as ./cheetah's run_java (its one source), so the figures are those of the
# real commands.
mapfile -t JVM_OPTIONS < <(grep -Ev '^[[:space:]]*(#|$)' "$ROOT/flink-jobs/cli/jvm.options")
JVM=(java "${JVM_OPTIONS[@]}")

# The archives. 1m: the generator's research-site workload, 2 h of the site, >= 1 million flow
# records, one nfcapd file. 10m: that file ARCHIVE10_COPIES times under as many names (every
# record ARCHIVE10_COPIES times: 10x the records and files to read, not 10x distinct flows; the
# generator would need far longer than this machine gives a benchmark to model 20 h of the site).
# Changing any of these makes a new archive directory (the old one stays until deleted).
ARCHIVE_SEED=1
ARCHIVE_SPAN_S=7200
ARCHIVE_MICE_PER_S=145
ARCHIVE_TRANSFERS=200
ARCHIVE10_COPIES=10
ARCHIVE_RATE=40000 # records/s sent to nfcapd (it keeps up with this on loopback, no drops)
ARCHIVE=1m         # which archive `analyze` and `archive` use (--archive)

say() { printf '\033[1mbench:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mbench: error:\033[0m %s\n' "$*" >&2; exit 1; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# One figure: name, value, command. Machine-readable prefix, human-readable rest.
figure() { printf 'FIGURE %-28s %s\n       load %s | %s\n' "$1" "$2" "$(load)" "$3"; }

machine() {
  printf 'machine: %s cores (nproc), %s, %s\n' "$(nproc)" \
    "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(java -version 2>&1 | head -1)"
  printf 'date: %s  load average: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(load)"
}

bench_cp() {
  local jar="$BENCH/target/cheetah-bench-0.1.0-SNAPSHOT.jar"
  if [ ! -f "$jar" ] || [ ! -f "$BENCH/target/classpath.txt" ]; then
    say "building the benchmark module"
    (cd "$ROOT" && ./mvnw -q -B -o install -DskipTests -pl flink-jobs/bench) >&2 ||
      die "building flink-jobs/bench failed; run ./cheetah setup first (it installs the other modules)"
  fi
  printf '%s:%s' "$(cat "$BENCH/target/classpath.txt")" "$jar"
}

# --- JMH ------------------------------------------------------------------------------------
run_jmh() {
  local cp; cp="$(bench_cp)"
  local out; out="$(mktemp -d)"
  # Every benchmark of both classes, unless the first argument names which (a JMH regex).
  local which='(PipelineBenchmark|OperatorBenchmark)\.'
  local asked="$*"
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then which="$1"; shift; fi
  local cmd=("${JVM[@]}" -cp "$cp" org.openjdk.jmh.Main "$which" -rf json -rff "$out/jmh.json" "$@")
  say "JMH: ${cmd[*]:0:3} ... org.openjdk.jmh.Main $which $*"
  machine
  "${cmd[@]}"
  # No results to print when JMH only listed (-l) or described (-h) the benchmarks.
  [ -s "$out/jmh.json" ] || { rm -rf "$out"; return 0; }
  "$PY" - "$out/jmh.json" <<'EOF'
import json, sys
per = {  # what one operation of each benchmark is, and how to read it
    "normalize": "goflow2 msgs -> flows.v1 bytes + key, by hand (the normalize job's work per record)",
    "normalizeMessages": "the same with protobuf-java's messages (the job before)",
    "normalizeOnly": "goflow2 msgs -> flows.v1 records (no key, no encoding)",
    "decode": "flows.v1 bytes -> checked Flow, by hand (the cheetah job's source)",
    "decodeMessages": "the same through protobuf-java's FlowRecord (the source before)",
    "decodeAndDetect": "flows.v1 bytes -> decode -> stitch + interval rule (cheetah job, per record)",
    "detect": "decoded flows -> stitch + interval rule (pure detector)",
    "flowsetPerEvent": "cheetah events -> flowset membership + tau grouping (per event)",
    "groupFlowset": "closable() on a 16-member pair (per timer firing)",
    "cheetahOperator": "decoded flows -> CheetahOperator, heap keyed state, watermarks, checkpoints (the cheetah task's thread)",
}
for r in json.load(open(sys.argv[1])):
    name = r["benchmark"].rsplit(".", 1)[1]
    m = r["primaryMetric"]
    its = [x for fork in m["rawData"] for x in fork]
    print(f"FIGURE jmh.{name:<20} {float(m['score']):>11,.0f} ops/s on 1 thread"
          f" (iterations {min(its):,.0f}..{max(its):,.0f}) : {per.get(name, '')}")
EOF
  printf '       load %s | %s\n' "$(load)" "flink-jobs/bench/run.sh jmh $asked"
  rm -rf "$out"
}

# --- end to end -----------------------------------------------------------------------------
run_e2e() {
  local cp; cp="$(bench_cp)"
  local baseline="" runs=2 args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --baseline) baseline="$(cd "$2" && pwd)"; shift 2 ;;
      --runs) runs="$2"; shift 2 ;;
      *) args+=("$1"); shift ;;
    esac
  done
  machine
  if [ -z "$baseline" ]; then
    say "end to end: normalize + cheetah jobs on an in-JVM broker and MiniCluster"
    "${JVM[@]}" -Dlog4j2.configurationFile="$BENCH/log4j2-bench.xml" -cp "$cp" \
      net.cheetah.bench.EndToEndBenchmark "${args[@]}"
    printf '       load %s | %s\n' "$(load)" "flink-jobs/bench/run.sh e2e ${args[*]}"
    return
  fi
  # The baseline's modules (its jobs, operators, serializers) under this harness: its own
  # bench module may not print every figure this one does.
  local bcp="$baseline/flink-jobs/bench/target/classpath.txt"
  [ -f "$bcp" ] || die "the bench module of $baseline is not built: ./mvnw -o package -DskipTests -pl flink-jobs/bench -am there"
  local base_cp; base_cp="$(cat "$bcp"):$BENCH/target/cheetah-bench-0.1.0-SNAPSHOT.jar"
  local here; here="$(git -C "$ROOT" log -1 --format=%h 2>/dev/null || echo this)"
  local there; there="$(git -C "$baseline" log -1 --format=%h 2>/dev/null || echo baseline)"
  local out; out="$(mktemp)"
  local i which c
  for i in $(seq 1 "$runs"); do
    for which in this baseline; do
      c="$cp"; [ "$which" = this ] || c="$base_cp"
      say "end to end, run $i of $runs: $which"
      "${JVM[@]}" -Dlog4j2.configurationFile="$BENCH/log4j2-bench.xml" -cp "$c" \
        net.cheetah.bench.EndToEndBenchmark "${args[@]}" | tee >(cat >&2) |
        sed -n "s/^SUMMARY e2e /$which $i /p" >>"$out"
    done
  done
  local cmd="flink-jobs/bench/run.sh e2e --baseline $baseline --runs $runs ${args[*]}"
  for which in this baseline; do
    local label="$which ($here)"; [ "$which" = this ] || label="baseline ($there)"
    figure "e2e.$which" "$(awk -v w="$which" '$1 == w {
        for (f = 3; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
        printf "%s%s/s (%s/s per core, %s per cpu-s, ckpt p50 %s ms p99 %s ms, %s MB)", sep,
          v["records_per_s"], v["per_core"], v["per_cpu_s"], v["ckpt_p50_ms"], v["ckpt_p99_ms"],
          v["state_mb"]; sep = "; " }' "$out") : $label" "$cmd"
  done
  rm -f "$out"
}

# --- the whole stack: ./cheetah up ----------------------------------------------------------
# StackBenchmark runs `ROOT/cheetah up --set ...` (a later --cheetah PATH runs another script).
run_stack() {
  local cp; cp="$(bench_cp)"
  case " $* " in *" --help "* | *" -h "*) ;; *) machine ;; esac
  say "stack: ./cheetah up as a child process, fed the e2e workload through Kafka"
  "${JVM[@]}" -Dlog4j2.configurationFile="$BENCH/log4j2-bench.xml" -cp "$cp" \
    net.cheetah.bench.StackBenchmark --cheetah "$ROOT/cheetah" "$@"
  printf '       load %s | %s\n' "$(load)" "flink-jobs/bench/run.sh stack $*"
}

# --- cheetah operator state per flow -------------------------------------------------------
run_state() {
  local cp; cp="$(bench_cp)"
  case " $* " in *" --help "* | *" -h "*) ;; *) machine ;; esac
  say "state: the cheetah operator in Flink's operator test harness, snapshotted"
  "${JVM[@]}" -Dlog4j2.configurationFile="$BENCH/log4j2-bench.xml" -cp "$cp" \
    net.cheetah.bench.StateSizeBenchmark "$@"
  printf '       load %s | %s\n' "$(load)" "flink-jobs/bench/run.sh state $*"
}

# --- detection -> command latency -----------------------------------------------------------
run_latency() {
  local cp; cp="$(bench_cp)"
  case " $* " in *" --help "* | *" -h "*) ;; *) machine ;; esac
  # The emulated probe producer lingers as the probe's cheetah-event producer does (its source
  # is where that value lives); a --probe-linger-ms given here comes later and wins.
  local linger
  linger="$(sed -n 's/^#define CHEETAH_LINGER_MS "\([0-9]*\)".*/\1/p' "$ROOT/ingest/probe/src/kafka_export.c")"
  [ -n "$linger" ] || die "no CHEETAH_LINGER_MS in ingest/probe/src/kafka_export.c"
  say "latency: the stack's jobs on an in-JVM broker and MiniCluster, fed live"
  "${JVM[@]}" -Dlog4j2.configurationFile="$BENCH/log4j2-bench.xml" -cp "$cp" \
    net.cheetah.bench.LatencyBenchmark --probe-linger-ms "$linger" "$@"
  printf '       load %s | %s\n' "$(load)" "flink-jobs/bench/run.sh latency $*"
}

# --- the nfcapd archive ---------------------------------------------------------------------
archive_dir() {
  local base
  base="$(printf '%s/archive-s%s-span%s-mice%s-tr%s' "$STATE" "$ARCHIVE_SEED" "$ARCHIVE_SPAN_S" \
    "$ARCHIVE_MICE_PER_S" "$ARCHIVE_TRANSFERS")"
  case "$ARCHIVE" in
    1m) printf '%s' "$base" ;;
    10m) printf '%s-x%s' "$base" "$ARCHIVE10_COPIES" ;;
    *) die "unknown archive '$ARCHIVE' (1m or 10m)" ;;
  esac
}

# The 10m archive from the 1m one: its file copied under ARCHIVE10_COPIES names.
build_archive_copies() {
  local dir="$1" rebuild="$2"
  local one; one="$(ARCHIVE=1m archive_dir)"
  ARCHIVE=1m build_archive ${rebuild:+--rebuild-archive}
  local src=("$one"/flows/nfcapd.*)
  [ ${#src[@]} -eq 1 ] || die "expected one file in $one/flows, found ${#src[@]}"
  rm -rf "$dir"
  mkdir -p "$dir/flows"
  local i
  for i in $(seq 1 "$ARCHIVE10_COPIES"); do
    cp "${src[0]}" "$dir/flows/$(printf 'nfcapd.2000010100%02d' "$i")"
  done
  local want got
  want=$(($(cut -d' ' -f1 "$one/COMPLETE") * ARCHIVE10_COPIES))
  got="$(nfdump -R "$dir/flows" -q -o 'fmt:%ts' | wc -l)"
  [ "$got" = "$want" ] || die "nfdump reads $got records in $dir/flows, expected $want"
  printf '%s flow records, %s bytes, %s copies of %s\n' "$got" "$(du -sb "$dir/flows" | cut -f1)" \
    "$ARCHIVE10_COPIES" "${src[0]}" >"$dir/COMPLETE"
  say "archive complete: $(cat "$dir/COMPLETE")"
}

free_udp_port() {
  "$PY" -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Builds the archive unless a complete one exists: generator -> UDP -> nfcapd, paced, then
# nfcapd stopped with SIGTERM (it flushes and closes the file). Checks nothing was dropped.
build_archive() {
  local rebuild=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --rebuild-archive) rebuild=1 ;;
      --archive) ARCHIVE="$2"; shift ;;
      *) die "archive: unknown option '$1' (--rebuild-archive, --archive 1m|10m)" ;;
    esac
    shift
  done
  local dir; dir="$(archive_dir)"
  if [ -z "$rebuild" ] && [ -f "$dir/COMPLETE" ]; then
    say "reusing the archive $dir ($(cat "$dir/COMPLETE"))"
    return 0
  fi
  if [ "$ARCHIVE" = 10m ]; then
    build_archive_copies "$dir" "$rebuild"
    return 0
  fi
  [ -x "$PY" ] || die "no Python venv at $PY: run ./cheetah setup"
  command -v nfcapd >/dev/null || die "nfcapd is not installed: run ./cheetah setup (apt nfdump)"
  rm -rf "$dir"
  mkdir -p "$dir/flows" "$dir/truth"
  local port; port="$(free_udp_port)"
  say "building the archive in $dir (nfcapd on udp 127.0.0.1:$port; the generator needs ~2 min to model, then sends at $ARCHIVE_RATE records/s)"
  nfcapd -b 127.0.0.1 -p "$port" -w "$dir/flows" -t 3600 -B 4194304 >"$dir/nfcapd.log" 2>&1 &
  local nf=$!
  # shellcheck disable=SC2064
  trap "kill -TERM $nf 2>/dev/null || true" EXIT
  local gen=(env PYTHONPATH="$ROOT/ingest/generator" "$PY" -m cheetah_generator netflow
    --target "127.0.0.1:$port" --version 9 --seed "$ARCHIVE_SEED" --span "$ARCHIVE_SPAN_S"
    --mice-per-s "$ARCHIVE_MICE_PER_S" --transfers "$ARCHIVE_TRANSFERS" --rate "$ARCHIVE_RATE"
    --truth "$dir/truth")
  printf '%s\n' "${gen[*]}" >"$dir/generator.cmd"
  local t0=$SECONDS
  "${gen[@]}" 2>"$dir/generator.log" || { tail -5 "$dir/generator.log" >&2; die "the generator failed"; }
  sleep 1 # the last datagrams are in nfcapd's socket buffer; SIGTERM makes it drain and flush
  kill -TERM "$nf"
  wait "$nf" || true
  trap - EXIT
  local sent; sent="$(sed -n 's/^done: \([0-9]*\) records.*/\1/p' "$dir/generator.log" | tail -1)"
  local got; got="$(nfdump -R "$dir/flows" -q -o 'fmt:%ts' | wc -l)"
  [ -n "$sent" ] || die "cannot read the record count from $dir/generator.log"
  if [ "$got" != "$sent" ]; then
    die "nfcapd stored $got of $sent records (drops: lower ARCHIVE_RATE in $0); see $dir/nfcapd.log"
  fi
  printf '%s flow records, %s bytes, built in %s s\n' "$got" "$(du -sb "$dir/flows" | cut -f1)" \
    "$((SECONDS - t0))" >"$dir/COMPLETE"
  say "archive complete: $(cat "$dir/COMPLETE")"
}

# --- analyze vs nfdump ----------------------------------------------------------------------
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# Runs a command with stdout discarded; prints "wall_s cpu_s" (cpu = user + sys of it and its
# children). Fails, showing the command's stderr, when the command fails.
timed() {
  local err; err="$(mktemp)"
  local TIMEFORMAT='%R %U %S' t
  if ! t="$({ time "$@" >/dev/null 2>"$err"; } 2>&1)"; then
    cat "$err" >&2; rm -f "$err"; return 1
  fi
  rm -f "$err"
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' <<<"$t"
}

run_analyze() {
  local runs=3 rebuild="" baseline=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --runs) runs="$2"; shift 2 ;;
      --rebuild-archive) rebuild="--rebuild-archive"; shift ;;
      --archive) ARCHIVE="$2"; shift 2 ;;
      --baseline) baseline="$(cd "$2" && pwd)"; shift 2 ;;
      *) die "analyze: unknown option '$1' (--runs N, --rebuild-archive, --archive 1m|10m, --baseline DIR)" ;;
    esac
  done
  build_archive $rebuild --archive "$ARCHIVE"
  local dir; dir="$(archive_dir)"
  local flows="$dir/flows"
  local records; records="$(cut -d' ' -f1 "$dir/COMPLETE")"
  local files=("$flows"/nfcapd.*)
  local out; out="$(mktemp -d)"
  # What `./cheetah analyze` runs after its setup step (run_java in ./cheetah), verbatim, for the
  # checkout in $1.
  analyze_cmd() {
    local cli="$1/flink-jobs/cli"
    [ -f "$cli/target/classpath.txt" ] || die "the CLI of $1 is not built: run ./cheetah setup there"
    local cp; cp="$(cat "$cli/target/classpath.txt"):$(ls "$cli"/target/cheetah-cli-*.jar | head -1)"
    printf '%s\0' env CHEETAH_NFDUMP="$(command -v nfdump)" "${JVM[@]}" \
      -Dlog4j2.configurationFile="$cli/log4j2.xml" -cp "$cp" \
      net.cheetah.cli.Main analyze --input "$flows" --out "$out/result"
  }
  local analyze base=()
  mapfile -d '' analyze < <(analyze_cmd "$ROOT")
  [ -z "$baseline" ] || mapfile -d '' base < <(analyze_cmd "$baseline")
  local agg=(nfdump -R "$flows" -A srcip,dstip -q)
  local csv=(nfdump -R "$flows" -q -o csv)
  machine
  say "analyze vs nfdump on $dir ($records flow records in ${#files[@]} file(s)), $runs runs each, interleaved${baseline:+ (and the analyze of $baseline)}"
  local aw=() ac=() nw=() nc=() cw=() cc=() bw=() bc=() t
  for i in $(seq 1 "$runs"); do
    t="$(timed env TZ=UTC LC_ALL=C "${agg[@]}")"; nw+=("${t% *}"); nc+=("${t#* }")
    t="$(timed env TZ=UTC LC_ALL=C "${csv[@]}")"; cw+=("${t% *}"); cc+=("${t#* }")
    rm -rf "$out/result"
    t="$(timed "${analyze[@]}")"; aw+=("${t% *}"); ac+=("${t#* }")
    if [ -n "$baseline" ]; then
      mv "$out/result" "$out/this"
      t="$(timed "${base[@]}")"; bw+=("${t% *}"); bc+=("${t#* }")
      for f in cheetahs.csv flowsets.csv; do
        cmp -s "$out/this/$f" "$out/result/$f" || die "analyze of $ROOT and of $baseline differ in $f"
      done
      rm -rf "$out/this"
    fi
    printf '       run %s: nfdump -A %s s (cpu %s), nfdump -o csv %s s (cpu %s), analyze %s s (cpu %s)%s; load %s\n' \
      "$i" "${nw[-1]}" "${nc[-1]}" "${cw[-1]}" "${cc[-1]}" "${aw[-1]}" "${ac[-1]}" \
      "${baseline:+, baseline analyze ${bw[-1]:-} s (cpu ${bc[-1]:-}), same CSVs}" "$(load)"
  done
  med() { printf '%s\n' "$@" | median; }
  local a n c a_cpu n_cpu c_cpu
  a="$(med "${aw[@]}")"; n="$(med "${nw[@]}")"; c="$(med "${cw[@]}")"
  a_cpu="$(med "${ac[@]}")"; n_cpu="$(med "${nc[@]}")"; c_cpu="$(med "${cc[@]}")"
  # analyze's own account of one more run: where its time goes.
  rm -rf "$out/result"
  local inner; inner="$("${analyze[@]}" 2>/dev/null | head -3 | tr -s ' \n' ' ')"
  rate() { awk -v r="$records" -v s="$1" 'BEGIN {printf "%.0f", r / s}'; }
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
  local cmd="flink-jobs/bench/run.sh analyze --runs $runs --archive $ARCHIVE${baseline:+ --baseline $baseline}"
  figure "nfdump.aggregate" "$n s wall, $n_cpu s cpu (medians of $runs): $(rate "$n") records/s, $(rate "$n_cpu") per cpu-s" \
    "${agg[*]} > /dev/null"
  figure "nfdump.decode_csv" "$c s wall, $c_cpu s cpu (medians of $runs): $(rate "$c") records/s, $(rate "$c_cpu") per cpu-s" \
    "${csv[*]} > /dev/null"
  figure "analyze" "$a s wall, $a_cpu s cpu (medians of $runs): $(rate "$a") records/s, $(rate "$a_cpu") per cpu-s" \
    "java ... net.cheetah.cli.Main analyze --input $flows --out DIR (./cheetah analyze minus its setup step)"
  figure "ratio.analyze/nfdump-A" "$(ratio "$a" "$n") x the wall time, $(ratio "$a_cpu" "$n_cpu") x the cpu time" \
    "$cmd  (wall: analyze ${aw[*]}; nfdump -A ${nw[*]}; -o csv ${cw[*]})"
  if [ -n "$baseline" ]; then
    local b b_cpu; b="$(med "${bw[@]}")"; b_cpu="$(med "${bc[@]}")"
    figure "analyze.baseline" "$b s wall, $b_cpu s cpu (medians of $runs): $(rate "$b") records/s; the same CSVs in every run" \
      "the analyze of $baseline ($(git -C "$baseline" log -1 --format=%h 2>/dev/null || echo 'not a git checkout'))"
    figure "ratio.baseline/nfdump-A" "$(ratio "$b" "$n") x the wall time, $(ratio "$b_cpu" "$n_cpu") x the cpu time" \
      "$cmd  (wall: baseline ${bw[*]})"
  fi
  printf '       %s records in %s file(s) under %s; analyze says: %s\n' "$records" "${#files[@]}" "$flows" "$inner"
  rm -rf "$out"
}

# --- cluster ----------------------------------------------------------------------------
# Each configuration on a fresh ./cheetah cluster (free ports, a temp data directory), stopped
# afterwards: jobs submitted at the parallelism, then N goflow2 messages written to the three
# brokers and timed until both the normalize and the cheetah job committed them
# (ClusterBenchmark throughput); on the two-TaskManager cluster, kill -9 of one TaskManager timed
# until every job that lost a task runs again (ClusterBenchmark recovery).
CLUSTER_DATA=""
cluster_down() {
  [ -n "$CLUSTER_DATA" ] || return 0
  # Its state (the PIDs) is removed only once down stopped everything.
  if "$ROOT/cheetah" cluster down --set "data-dir=$CLUSTER_DATA" >&2; then
    rm -rf "$CLUSTER_DATA"
  else
    say "cluster down failed: its processes are in $CLUSTER_DATA/cluster/state.json"
  fi
  CLUSTER_DATA=""
}
cluster_state() { # KEY [process]: a value of DATA/cluster/state.json
  python3 - "$CLUSTER_DATA/cluster/state.json" "$@" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
if len(sys.argv) > 3:
    print(next(p["pid"] for p in s["processes"] if p["name"] == sys.argv[3]))
else:
    print(s[sys.argv[2]])
PY
}
run_cluster() {
  local records=300000
  while [ $# -gt 0 ]; do
    case "$1" in
      --records) records="$2"; shift ;;
      *) die "cluster: unknown option '$1' (--records N)" ;;
    esac
    shift
  done
  local cp; cp="$(bench_cp)"
  machine
  trap cluster_down EXIT
  local conf tms par out value
  for conf in "1 1" "2 2"; do
    read -r tms par <<<"$conf"
    CLUSTER_DATA="$(mktemp -d "${TMPDIR:-/tmp}/cheetah-bench-cluster.XXXXXX")"
    say "cluster: $tms TaskManager(s), parallelism $par, $records records (data $CLUSTER_DATA)"
    "$ROOT/cheetah" cluster up --free-ports --task-managers "$tms" --set "data-dir=$CLUSTER_DATA" >&2 \
      || die "cluster up failed"
    "$ROOT/cheetah" cluster submit --parallelism "$par" --set "data-dir=$CLUSTER_DATA" >&2 \
      || die "cluster submit failed"
    out="$("${JVM[@]}" -cp "$cp" net.cheetah.bench.ClusterBenchmark throughput \
      --bootstrap "$(cluster_state bootstrap)" --records "$records" --partitions 2)" \
      || die "the throughput run failed"
    value="$(awk '$2 == "records_per_s" { print $3 }' <<<"$out")"
    figure "cluster_e2e_tm${tms}_p${par}" "$value records/s ($(awk '$2 == "committed_s" { print $3 }' <<<"$out") s for $records records)" \
      "./cheetah bench cluster --records $records"
    if [ "$tms" -eq 2 ]; then
      out="$("${JVM[@]}" -cp "$cp" net.cheetah.bench.ClusterBenchmark recovery \
        --rest "$(cluster_state restUrl)" --task-manager taskmanager-2 \
        --pid "$(cluster_state pid taskmanager-2)")" || die "the recovery run failed"
      figure "cluster_recovery_tm_kill" "$(awk '$2 == "recovery_s" { print $3 }' <<<"$out") s ($(awk '$2 == "jobs_that_lost_a_task" { print $3 }' <<<"$out") jobs lost a task)" \
        "./cheetah bench cluster --records $records"
    fi
    cluster_down
  done
}

# --- chaos soak ----------------------------------------------------------------------------
# A fresh ./cheetah cluster (free ports, a temp data directory); ./cheetah cluster chaos runs the
# demo's workload and checks on it while it kills and restarts its parts (ClusterChaosCommand);
# then down. The data directory (logs) is kept when the soak failed.
run_chaos() {
  local minutes=15 seed="" gap=20
  while [ $# -gt 0 ]; do
    case "$1" in
      --minutes) minutes="$2"; shift ;;
      --seed) seed="$2"; shift ;;
      --gap-s) gap="$2"; shift ;;
      *) die "chaos: unknown option '$1' (--minutes N, --seed S, --gap-s G)" ;;
    esac
    shift
  done
  [ "$(id -u)" = 0 ] || die "chaos: the tc adapter drives an interface in a network namespace: run as root"
  machine
  mkdir -p "$STATE/chaos"
  local summary; summary="$STATE/chaos/summary-$(date -u +%Y%m%dT%H%M%SZ).txt"
  CLUSTER_DATA="$(mktemp -d "${TMPDIR:-/tmp}/cheetah-bench-chaos.XXXXXX")"
  trap cluster_down EXIT
  say "chaos: cluster up (data $CLUSTER_DATA)"
  "$ROOT/cheetah" cluster up --free-ports --set "data-dir=$CLUSTER_DATA" >&2 || die "cluster up failed"
  local rc=0
  "$ROOT/cheetah" cluster chaos --minutes "$minutes" --gap-s "$gap" ${seed:+--chaos-seed "$seed"} \
    --summary "$summary" --set "data-dir=$CLUSTER_DATA" || rc=$?
  if [ "$rc" -ne 0 ]; then
    "$ROOT/cheetah" cluster down --set "data-dir=$CLUSTER_DATA" >&2 || true
    say "chaos: FAILED (exit $rc); logs kept in $CLUSTER_DATA/cluster/logs, $CLUSTER_DATA/cluster/chaos"
    CLUSTER_DATA=""
  else
    cluster_down
  fi
  figure "chaos_soak" "$(tail -1 "$summary" 2>/dev/null || echo 'no summary')" \
    "nice -n 10 ./cheetah bench chaos --minutes $minutes${seed:+ --seed $seed} (summary $summary)"
  return "$rc"
}

# --- ingest at line rate -------------------------------------------------------------------
run_ingest() {
  [ -x "$PY" ] || die "no Python venv at $PY: run ./cheetah setup"
  # The collector's receive buffer is the stack's: netflow.receive-buffer-bytes (nfcapd -B too).
  local rcvbuf
  rcvbuf="$("$ROOT/cheetah" config | sed -n 's/^netflow\.receive-buffer-bytes=\([0-9]*\).*/\1/p')"
  [ -n "$rcvbuf" ] || die "cannot read netflow.receive-buffer-bytes from ./cheetah config"
  machine
  printf 'net.core.rmem_max: %s, net.core.rmem_default: %s\n' \
    "$(cat /proc/sys/net/core/rmem_max)" "$(cat /proc/sys/net/core/rmem_default)"
  "$PY" "$ROOT/ingest/goflow2/bench/ingest_rate.py" --rcvbuf "$rcvbuf" "$@"
}

cmd="${1:-help}"
shift || true
case "$cmd" in
  jmh) run_jmh "$@" ;;
  e2e) run_e2e "$@" ;;
  stack) run_stack "$@" ;;
  state) run_state "$@" ;;
  analyze) run_analyze "$@" ;;
  archive) build_archive "$@" ;;
  adapters) "$PY" "$ROOT/adapters/bench/ack_latency.py" "$@" ;;
  cluster) run_cluster "$@" ;;
  ingest) run_ingest "$@" ;;
  latency) run_latency "$@" ;;
  warehouse) "$PY" "$ROOT/clickhouse/bench/ingest_vs_dashboards.py" "$@" ;;
  chaos) run_chaos "$@" ;;
  fuzz) "$PY" "$ROOT/scripts/fuzz_soak.py" "$@" ;;
  fabric)
    case " $* " in *" --out "* | *" --out="* | *" -h "* | *" --help "*) ;; *) set -- "$@" --out "$STATE/fabric" ;; esac
    machine
    PYTHONPATH="$ROOT/adapters" "$PY" -m cheetah_adapters.fabric_experiment "$@"
    ;;
  all)
    run_jmh
    run_e2e
    run_analyze
    ;;
  help | -h | --help) usage ;;
  *) usage >&2; die "unknown benchmark '$cmd'" ;;
esac
