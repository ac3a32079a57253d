#!/usr/bin/env bash
# Builds cheetah-snmp-poller into OUT_DIR (default: ./bin).
#   ./build.sh [OUT_DIR]
# Generates the message type from schemas/ first (gen.sh); modules as pinned in go.mod + go.sum
# (scripts/go_component.sh). Idempotent; ./cheetah setup builds into .cheetah/bin.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$here/../../scripts/go_component.sh" build "$here" cheetah-snmp-poller --version "${1:-$here/bin}"
