#!/usr/bin/env bash
# Builds cheetah-probe and cheetah-tracegen into OUTDIR (default ingest/probe/build/bin).
# Idempotent: make rebuilds only what changed; intermediate files go to OUTDIR/.probe-build.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$HERE/build/bin}"
case "$OUT" in -h|--help) echo "Usage: build.sh [OUTDIR]  (builds cheetah-probe and cheetah-tracegen into OUTDIR)"; exit 0;; esac
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
for tool in pkg-config protoc-c make gcc; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing: run ./cheetah setup (it installs the probe's pinned packages)" >&2; exit 1; }
done
pkg-config --exists libdpdk rdkafka libprotobuf-c || {
  echo "build.sh: dpdk-dev, librdkafka-dev or libprotobuf-c-dev is missing: run ./cheetah setup" >&2; exit 1; }
exec make -s -C "$HERE" -j2 BUILD="$OUT/.probe-build" BIN="$OUT" all
