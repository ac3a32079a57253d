#!/usr/bin/env bash
# Runs every test of the collector (cheetah-goflow2): go test -count=1 -timeout 10m ./...
# (decoder byte-level tests, the rejected-datagram hook, a real binary on loopback, its rejected
# records read back from a real broker started with ./cheetah broker).
# Usage: test.sh [--json FILE | --report-dir DIR] [go test args...]
#   --json FILE       write go test -json events to FILE (the report ./cheetah test tallies)
#   --report-dir DIR  the same, as DIR/go.jsonl
#   go test args      e.g. -run TestX -v
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
json=""
case "${1:-}" in
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  --json) json="${2:?--json needs a file}"; shift 2 ;;
  --report-dir) json="${2:?--report-dir needs a folder}/go.jsonl"; shift 2 ;;
esac
go_bin="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
[ -x "$go_bin" ] || { echo "test.sh: no Go toolchain: put go on PATH or set GO=/path/to/go" >&2; exit 1; }
if [ -n "$json" ]; then
  mkdir -p "$(dirname "$json")"
  json="$(cd "$(dirname "$json")" && pwd)/$(basename "$json")"
fi
cd "$HERE"
# go test compiles the RejectedRecord type generated from schemas/ (gen/, not committed).
bash "$HERE/gen.sh" >&2
if [ -n "$json" ]; then
  exec "$go_bin" test -json -count=1 -timeout 10m ./... "$@" >"$json"
fi
exec "$go_bin" test -count=1 -timeout 10m ./... "$@"
