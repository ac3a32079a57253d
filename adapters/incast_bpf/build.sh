#!/usr/bin/env bash
# Builds the incast guard into OUTDIR: its tc programs (incast_guard.bpf.o, clang-14 -target bpf),
# the loader cheetah-incast-guard (against libbpf) and, unless --no-policy-lib, its share policy
# as libincast_policy.so for the tests. Used by adapters/build.sh and the adapters image.
# Usage: build.sh OUTDIR [--no-policy-lib]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in ""|-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
OUT="$1"
mkdir -p "$OUT"
clang-14 -O2 -g -Wall -Werror -target bpf -mcpu=v3 -I/usr/include/x86_64-linux-gnu \
  -c "$HERE/guard.bpf.c" -o "$OUT/incast_guard.bpf.o"
cc -O2 -Wall -Werror -o "$OUT/cheetah-incast-guard" "$HERE/loader.c" -lbpf
if [ "${2:-}" != "--no-policy-lib" ]; then
  cc -O2 -Wall -Werror -shared -fPIC -o "$OUT/libincast_policy.so" "$HERE/policy_lib.c"
fi
