#!/usr/bin/env bash
# Builds the dashboards: checks that Superset's venv has every package pinned in
# requirements.txt at that version, byte-compiles cheetah_dashboards/, and loads every bundle
# under bundles/ (a malformed YAML file fails here, naming it). Idempotent.
# Usage: build.sh   (interpreter .cheetah/superset-venv/bin/python; CHEETAH_SUPERSET_PYTHON overrides)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
python="${CHEETAH_SUPERSET_PYTHON:-$ROOT/.cheetah/superset-venv/bin/python}"
bash "$ROOT/scripts/python_component.sh" build "$HERE" "$python" "$HERE/requirements.txt"
cd "$HERE"
"$python" -c 'from cheetah_dashboards.bundles import load_bundles
for b in load_bundles(): print(f"==> dashboards: bundle {b.name}: {len(b.files)} files")'
