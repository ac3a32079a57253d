#!/usr/bin/env bash
# The build and test steps every Python component shares (warehouse, generator, adapters,
# dashboards); each COMPONENT/build.sh and COMPONENT/test.sh calls this with its own folder and
# interpreter, so the component's two scripts stay a few lines each.
#
#   python_component.sh build DIR PYTHON REQUIREMENTS...
#       checks that PYTHON has every pinned package of REQUIREMENTS (name==version lines) at that
#       version, then byte-compiles DIR (a syntax error fails here, not in the middle of a run).
#   python_component.sh test DIR PYTHON [--junit FILE | --report-dir DIR] [pytest args...]
#       pytest in DIR (its pytest.ini/pyproject.toml sets the per-test time limit) with a JUnit
#       XML report: --junit FILE, or --report-dir R (R/pytest.xml). Stock goflow2 and GoBGP come
#       from .cheetah/bin (GOFLOW2, CHEETAH_GOBGP_BIN override).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
verb="${1:?build or test}" dir="${2:?component folder}" python="${3:?python interpreter}"
shift 3
name="${dir#"$ROOT"/}"
if [ ! -x "$python" ]; then
  echo "$name: no Python at $python: run ./cheetah setup (it creates the venvs)" >&2
  exit 1
fi
case "$verb" in
  build)
    echo "==> $name: pinned packages of ${*#"$ROOT"/} in $python"
    "$python" - "$@" <<'PY'
import re, sys
from importlib.metadata import PackageNotFoundError, version
wrong = []
for req in sys.argv[1:]:
    for line in open(req):
        m = re.match(r"\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*==\s*([^\s;#]+)", line)
        if not m:
            continue  # comments, -c/-r lines, unpinned names
        name, want = m.group(1), m.group(3)
        try:
            have = version(name)
        except PackageNotFoundError:
            have = None
        if have != want:
            wrong.append(f"{name}=={want} ({'missing' if have is None else 'installed: ' + have}; {req})")
if wrong:
    sys.exit("not installed as pinned:\n  " + "\n  ".join(wrong) + "\nrun ./cheetah setup (it installs the pins)")
PY
    echo "==> $name: byte-compiling"
    "$python" -m compileall -q -x '/(\.bin|build|target)/' "$dir" >/dev/null \
      || { echo "$name: a Python file does not compile (above)" >&2; exit 1; }
    echo "==> $name: ready" ;;
  test)
    junit=""
    case "${1:-}" in
      --junit) junit="${2:?--junit needs a file}"; shift 2 ;;
      --report-dir) junit="${2:?--report-dir needs a folder}/pytest.xml"; shift 2 ;;
    esac
    if [ -n "$junit" ]; then
      mkdir -p "$(dirname "$junit")"
      junit="$(cd "$(dirname "$junit")" && pwd)/$(basename "$junit")"
      set -- --junitxml="$junit" -o junit_family=xunit2 "$@"
    fi
    cd "$dir"
    GOFLOW2="${GOFLOW2:-$ROOT/.cheetah/bin/goflow2}" CHEETAH_GOBGP_BIN="${CHEETAH_GOBGP_BIN:-$ROOT/.cheetah/bin}" \
      CHEETAH_ADAPTERS_BIN="${CHEETAH_ADAPTERS_BIN:-$ROOT/.cheetah/bin}" \
      exec "$python" -m pytest -q -p no:cacheprovider "$@" ;;
  *) echo "python_component.sh: unknown step '$verb' (build or test)" >&2; exit 2 ;;
esac
