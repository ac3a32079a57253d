#!/usr/bin/env bash
# The build step every Go component shares (the goflow2 collector, the SNMP poller); each
# COMPONENT/build.sh calls this with its folder, its command and the flag that prints its version.
#
#   go_component.sh build DIR CMD VERSION_FLAG OUT_DIR
#       finds Go (GO, else go on PATH, else /usr/local/go/bin/go), downloads the modules pinned in
#       DIR's go.mod + go.sum (-mod=readonly: the build fails rather than change them; no
#       vendoring), runs DIR/gen.sh (message types from schemas/), builds DIR/cmd/CMD into
#       OUT_DIR/CMD and prints its version. Idempotent (go build caches).
set -euo pipefail
verb="${1:?build}" dir="${2:?component folder}" cmd="${3:?command name}" version_flag="${4:?version flag}"
out="${5:?output folder}"
[ "$verb" = build ] || { echo "go_component.sh: unknown step '$verb' (build)" >&2; exit 2; }
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
cd "$dir"
echo "==> $("$go_bin" version)"
echo "==> downloading modules (go.sum-verified)"
"$go_bin" mod download
"$dir/gen.sh"
echo "==> go build -trimpath -o $out/$cmd ./cmd/$cmd"
"$go_bin" build -trimpath -o "$out/$cmd" "./cmd/$cmd"
echo "==> built $out/$cmd ($("$out/$cmd" "$version_flag"))"
