#!/usr/bin/env bash
# Generates the Go types of one schemas/ file into a Go module's gen/cheetahv1/ (not committed):
#   scripts/gen_go_proto.sh MODULE_DIR PROTO      e.g. ingest/snmp cheetah/v1/snmp.proto
# schemas/ is the only source of message types. protoc is the one in the shared venv
# (grpc_tools); protoc-gen-go is built from the google.golang.org/protobuf version pinned in
# the module's go.mod into MODULE_DIR/.build/bin, so the generated code always matches the
# runtime library it links against. Offline once the module cache holds go.sum's modules.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: gen_go_proto.sh MODULE_DIR PROTO (e.g. ingest/snmp cheetah/v1/snmp.proto)" >&2; exit 2; }
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
here="$(cd "$1" && pwd)"
proto="$2"
schemas="$repo/schemas"
module="$(awk '$1 == "module" { print $2; exit }' "$here/go.mod")"
python="${CHEETAH_PYTHON:-$repo/.cheetah/venv/bin/python}"
go_bin="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"

[[ -f "$schemas/$proto" ]] || { echo "gen_go_proto.sh: no $schemas/$proto" >&2; exit 1; }
if [[ ! -x "$python" ]] || ! "$python" -c 'import grpc_tools' 2>/dev/null; then
  echo "gen_go_proto.sh: no protoc: $python with grpc_tools is missing; run ./cheetah setup (or set CHEETAH_PYTHON)" >&2
  exit 1
fi
if [[ ! -x "$go_bin" ]]; then
  echo "gen_go_proto.sh: no Go toolchain: put go on PATH or set GO=/path/to/go" >&2
  exit 1
fi

export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here"
mkdir -p .build/bin gen/cheetahv1
GOBIN="$here/.build/bin" "$go_bin" install google.golang.org/protobuf/cmd/protoc-gen-go

# schemas/ carry no go_package: map the file here instead of editing schemas/.
"$python" -m grpc_tools.protoc \
  --plugin=protoc-gen-go="$here/.build/bin/protoc-gen-go" \
  -I "$schemas" \
  --go_out="$here" \
  --go_opt=module="$module" \
  --go_opt=M"$proto"="$module/gen/cheetahv1" \
  "$proto"
echo "==> generated gen/cheetahv1/$(basename "${proto%.proto}").pb.go in $module from schemas/$proto" >&2
