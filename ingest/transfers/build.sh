#!/usr/bin/env bash
# Builds the transfer-log shippers (standard library only at run time): checks that the
# interpreter has the pinned test packages (requirements-dev.txt) and byte-compiles
# cheetah_transfers/. Idempotent.
# Usage: build.sh   (interpreter .cheetah/venv/bin/python; CHEETAH_PYTHON overrides)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$ROOT/scripts/python_component.sh" build "$HERE" "${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}" \
  "$ROOT/requirements-dev.txt"
