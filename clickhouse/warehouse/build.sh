#!/usr/bin/env bash
# Builds the warehouse (embedded ClickHouse, chdb): checks that its interpreter has every
# package pinned in requirements.txt and ../../requirements-dev.txt (PyYAML: `schema` reads
# clickhouse/tables/*.yaml and schemas/topics.yaml) at that version, and byte-compiles cheetah_warehouse/.
# Idempotent. Usage: build.sh   (interpreter .cheetah/venv/bin/python; CHEETAH_PYTHON overrides)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$ROOT/scripts/python_component.sh" build "$HERE" "${CHEETAH_PYTHON:-$ROOT/.cheetah/venv/bin/python}" "$HERE/requirements.txt" "$ROOT/requirements-dev.txt"
