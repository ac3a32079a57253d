#!/usr/bin/env bash
# Runs every test of the SNMP poller (what CI runs):
#   sudo ./test.sh            (root: the tests create network namespaces and veths)
# Generates the message type first (gen.sh: go test compiles it), then runs
# unit tests, tests against a real snmpd, and the end-to-end test into the
# Cheetah broker. 40-60 s warm, most of it `cheetah broker` starting.
# Extra arguments go to go test (./test.sh -json -run TestX): with -json,
# stdout holds only go test's JSON lines; gen.sh writes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
go_bin="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
export GOFLAGS="-mod=readonly -buildvcs=false"
"$here/gen.sh" >&2 # stdout is for go test alone (-json: one JSON object per line)
exec "$go_bin" test -count=1 -v -timeout 5m ./... "$@"
