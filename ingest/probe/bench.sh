#!/usr/bin/env bash
# Accuracy and performance reports of the probe, as markdown for docs/BENCHMARKS.md.
# Usage: bench.sh [accuracy|perf|all] [--out FILE.md]
#   accuracy  precision, recall, detection delay for L in {0,600,800}, S in {1,0.1,0.001}  (~3 min)
#   perf      packets/s per worker core (memory replay of the full minute, 1 and 2 workers),
#             cache sweep 1K..1M, and softflowd -r / nfpcapd -r on the same pcap   (~6 min, ~8 GB temp disk)
# Benchmarks pass or fail on nothing; they print figures, the load average and the commands.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
case "${1:-all}" in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0;; esac
make -s -C "$HERE" -j2 BUILD="$HERE/build" BIN="$HERE/build/bin" all
exec "$ROOT/.cheetah/venv/bin/python" "$HERE/bench/run_bench.py" --bin "$HERE/build/bin" "$@"
