#!/usr/bin/env bash
# Builds the collector, cheetah-goflow2, into OUT_DIR (default: ./bin).
#   ./build.sh [OUT_DIR]
# Generates the RejectedRecord type from schemas/ first (gen.sh).
# Modules come from the Go proxy / module cache as pinned in go.mod + go.sum
# (-mod=readonly: the build fails rather than change them; no vendoring).
# Idempotent (go build caches); ./cheetah setup builds into .cheetah/bin.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
out="${1:-$here/bin}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

go_bin="${GO:-}"
if [[ -z "$go_bin" ]]; then
  if command -v go >/dev/null 2>&1; then
    go_bin="$(command -v go)"
  elif [[ -x /usr/local/go/bin/go ]]; then
    go_bin=/usr/local/go/bin/go
  else
    echo "build.sh: no Go toolchain: put go on PATH or set GO=/path/to/go" >&2
    exit 1
  fi
fi

export GO="$go_bin"

export GOFLAGS="-mod=readonly -buildvcs=false"
cd "$here"
echo "==> $("$go_bin" version)"
echo "==> downloading modules (go.sum-verified)"
"$go_bin" mod download
"$here/gen.sh"
echo "==> go build -trimpath -o $out/cheetah-goflow2 ./cmd/cheetah-goflow2"
"$go_bin" build -trimpath -o "$out/cheetah-goflow2" ./cmd/cheetah-goflow2
echo "==> built $out/cheetah-goflow2 ($("$out/cheetah-goflow2" -v))"
