#!/usr/bin/env bash
# Builds the trace generator, cheetah-tracegen, into OUTDIR (default ingest/tracegen/build/bin).
# Idempotent: make rebuilds only when a source changed. ./cheetah setup builds it into
# .cheetah/bin together with the probe (ingest/probe/build.sh).
# Usage: build.sh [OUTDIR]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
OUT="$(realpath -m "${1:-$HERE/build/bin}")"
for tool in make gcc; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing: install build-essential" >&2; exit 1; }
done
echo "==> tracegen: make $OUT/cheetah-tracegen"
make -s -C "$HERE" BIN="$OUT" all || { echo "build.sh: the trace generator does not build (above)" >&2; exit 1; }
echo "==> tracegen: built $OUT/cheetah-tracegen"
