#!/usr/bin/env bash
# Builds the probe, cheetah-probe, and the trace generator, cheetah-tracegen (its own Makefile,
# ingest/tracegen), into OUTDIR (default ingest/probe/build/bin). The protobuf-c code and
# topics.h (Kafka topic names, from schemas/topics.yaml) are generated on the way.
# Idempotent: make rebuilds only what changed; intermediate files go to OUTDIR/.probe-build.
# Usage: build.sh [OUTDIR]   (topics.h is written with .cheetah/venv/bin/python; CHEETAH_PYTHON overrides)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
OUT="${1:-$HERE/build/bin}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
for tool in pkg-config protoc-c make gcc; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing: run ./cheetah setup (it installs the probe's pinned packages)" >&2; exit 1; }
done
pkg-config --exists libdpdk rdkafka libprotobuf-c || {
  echo "build.sh: dpdk-dev, librdkafka-dev or libprotobuf-c-dev is missing: run ./cheetah setup" >&2; exit 1; }
PYTHON="${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}"
"$PYTHON" -c 'import yaml' 2>/dev/null || {
  echo "build.sh: $PYTHON with PyYAML (to read schemas/topics.yaml) is missing: run ./cheetah setup (it creates the venv)" >&2; exit 1; }
echo "==> probe: make cheetah-probe and cheetah-tracegen into $OUT"
make -s -C "$HERE" -j2 BUILD="$OUT/.probe-build" BIN="$OUT" PYTHON="$PYTHON" all \
  || { echo "build.sh: the probe build failed (output above)" >&2; exit 1; }
echo "==> probe: built $OUT/cheetah-probe, $OUT/cheetah-tracegen"
