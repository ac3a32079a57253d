#!/usr/bin/env bash
# Builds the redirect adapters: installs the tools the flowspec adapter drives, pinned, into
# OUTDIR (default adapters/.bin): GoBGP v4.8.0's daemon (gobgpd) and CLI (gobgp), from the Go
# module proxy, skipped when already there at that version; the incast guard from incast_bpf/
# (its tc programs incast_guard.bpf.o with clang-14, the loader cheetah-incast-guard against
# libbpf, and its share policy as libincast_policy.so for the tests), rebuilt when a source
# changed; then checks that the interpreter has every package pinned in requirements.txt and
# byte-compiles cheetah_adapters/.
# Usage: build.sh [OUTDIR]   (interpreter .cheetah/venv/bin/python; CHEETAH_PYTHON overrides)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
GOBGP_VERSION="v4.8.0"
OUT="$(realpath -m "${1:-$HERE/.bin}")"
mkdir -p "$OUT"
stamp="$OUT/.gobgp-version"
if [ -x "$OUT/gobgpd" ] && [ -x "$OUT/gobgp" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$GOBGP_VERSION" ]; then
  echo "==> adapters: GoBGP $GOBGP_VERSION already in $OUT"
else
  command -v go >/dev/null || { echo "build.sh: 'go' is not on PATH; GoBGP $GOBGP_VERSION is built with go install (Go >= 1.22)" >&2; exit 1; }
  echo "==> adapters: installing GoBGP $GOBGP_VERSION (gobgpd, gobgp) into $OUT"
  GOBIN="$OUT" GOFLAGS=-mod=mod go install \
    "github.com/osrg/gobgp/v4/cmd/gobgpd@$GOBGP_VERSION" \
    "github.com/osrg/gobgp/v4/cmd/gobgp@$GOBGP_VERSION"
  printf '%s' "$GOBGP_VERSION" > "$stamp"
fi
src="$HERE/incast_bpf"
sum="$(cat "$src"/*.c "$src"/*.h "$src"/build.sh | sha256sum | cut -c1-16)"
if [ -f "$OUT/incast_guard.bpf.o" ] && [ -x "$OUT/cheetah-incast-guard" ] && [ -f "$OUT/libincast_policy.so" ] \
    && [ "$(cat "$OUT/.incast-guard-sum" 2>/dev/null)" = "$sum" ]; then
  echo "==> adapters: incast guard already built in $OUT"
else
  echo "==> adapters: building the incast guard (tc programs, loader, share policy) into $OUT"
  bash "$src/build.sh" "$OUT"
  printf '%s' "$sum" > "$OUT/.incast-guard-sum"
fi
exec bash "$ROOT/scripts/python_component.sh" build "$HERE" "${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}" "$HERE/requirements.txt"
