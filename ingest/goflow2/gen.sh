#!/usr/bin/env bash
# Generates the Go type of cheetah.v1.RejectedRecord from schemas/ (the only
# source of message types) into gen/cheetahv1/ (not committed): the collector
# publishes refused datagrams to flows.rejected.v1 in that encoding.
#   ./gen.sh
# protoc is the one in the shared venv (grpc_tools); protoc-gen-go is built
# from the google.golang.org/protobuf version pinned in go.mod into .build/bin,
# so the generated code always matches the runtime library it links against.
# Offline once the module cache holds go.sum's modules.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
schemas="$repo/schemas"
python="${CHEETAH_PYTHON:-$repo/.cheetah/venv/bin/python}"
go_bin="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"

if [[ ! -x "$python" ]] || ! "$python" -c 'import grpc_tools' 2>/dev/null; then
  echo "gen.sh: no protoc: $python with grpc_tools is missing; run ./cheetah setup (or set CHEETAH_PYTHON)" >&2
  exit 1
fi
if [[ ! -x "$go_bin" ]]; then
  echo "gen.sh: no Go toolchain: put go on PATH or set GO=/path/to/go" >&2
  exit 1
fi

export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here"
mkdir -p .build/bin gen/cheetahv1
GOBIN="$here/.build/bin" "$go_bin" install google.golang.org/protobuf/cmd/protoc-gen-go

# flows.proto has no go_package: map it here instead of editing schemas/.
"$python" -m grpc_tools.protoc \
  --plugin=protoc-gen-go="$here/.build/bin/protoc-gen-go" \
  -I "$schemas" \
  --go_out="$here" \
  --go_opt=module=cheetah/ingest/goflow2 \
  --go_opt=Mcheetah/v1/flows.proto=cheetah/ingest/goflow2/gen/cheetahv1 \
  cheetah/v1/flows.proto
echo "==> generated gen/cheetahv1/flows.pb.go from $schemas/cheetah/v1/flows.proto" >&2
