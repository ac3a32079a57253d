#!/usr/bin/env bash
# Installs the tools the flowspec adapter drives, pinned, into OUTDIR (default adapters/.bin):
# GoBGP v4.8.0's daemon (gobgpd) and CLI (gobgp), from the Go module proxy.
# Usage: adapters/build.sh [OUTDIR]     (skips what is already there at the pinned version)
set -euo pipefail
GOBGP_VERSION="v4.8.0"
OUT="$(realpath -m "${1:-$(dirname "${BASH_SOURCE[0]}")/.bin}")"
mkdir -p "$OUT"
stamp="$OUT/.gobgp-version"
if [ -x "$OUT/gobgpd" ] && [ -x "$OUT/gobgp" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$GOBGP_VERSION" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "build.sh: 'go' is not on PATH; GoBGP $GOBGP_VERSION is built with go install (Go >= 1.22)" >&2; exit 1; }
echo "build.sh: installing GoBGP $GOBGP_VERSION (gobgpd, gobgp) into $OUT" >&2
GOBIN="$OUT" GOFLAGS=-mod=mod go install \
  "github.com/osrg/gobgp/v4/cmd/gobgpd@$GOBGP_VERSION" \
  "github.com/osrg/gobgp/v4/cmd/gobgp@$GOBGP_VERSION"
printf '%s' "$GOBGP_VERSION" > "$stamp"
