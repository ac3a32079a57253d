#!/usr/bin/env bash
# Runs every test of the SNMP poller (what CI runs):
#   sudo ./test.sh            (root: the tests create network namespaces and veths)
# Generates the message type first (gen.sh: go test compiles it), then runs
# unit tests, tests against a real snmpd, and the end-to-end test into the
# Cheetah broker. 40-60 s warm, most of it `cheetah broker` starting.
# Usage: test.sh [--json FILE | --report-dir DIR] [go test args...]
#   --json FILE       write go test -json events to FILE (the report ./cheetah test tallies)
#   --report-dir DIR  the same, as DIR/go.jsonl
#   go test args      e.g. -run TestX; with -json, stdout holds only go test's JSON lines
#                     (gen.sh writes to stderr)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
json=""
case "${1:-}" in
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  --json) json="${2:?--json needs a file}"; shift 2 ;;
  --report-dir) json="${2:?--report-dir needs a folder}/go.jsonl"; shift 2 ;;
esac
if [ -n "$json" ]; then
  mkdir -p "$(dirname "$json")"
  json="$(cd "$(dirname "$json")" && pwd)/$(basename "$json")"
fi
cd "$here"
go_bin="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
export GOFLAGS="-mod=readonly -buildvcs=false"
"$here/gen.sh" >&2 # stdout is for go test alone (-json: one JSON object per line)
if [ -n "$json" ]; then
  exec "$go_bin" test -json -count=1 -v -timeout 5m ./... "$@" >"$json"
fi
exec "$go_bin" test -count=1 -v -timeout 5m ./... "$@"
