#!/usr/bin/env bash
# Validates the Helm chart (helm/cheetah) with pytest (docs/DEPLOY.md, "Kubernetes (Helm)"):
# helm lint --strict on the defaults and on values-production.yaml; helm template on both (and
# with the chart's own Secrets); every rendered object against the schema of its kind (core
# Kubernetes 1.37 from kubernetes-validate, CRDs from the operators' published API artifacts,
# made by helm/build.sh); the topics, Kafka users, Flink jobs and collector service against
# schemas/topics.yaml and the values; the validator against objects broken on purpose.
# Usage: test.sh [--junit FILE | --report-dir DIR] [pytest args...]
#   --junit FILE      also write a JUnit XML report (the one ./cheetah test tallies)
#   --report-dir DIR  the same, as DIR/pytest.xml
# Interpreter: .cheetah/helm-venv/bin/python (CHEETAH_HELM_PYTHON overrides); helm: .cheetah/bin/helm
# (CHEETAH_HELM overrides); schemas: .cheetah/helm-schemas (CHEETAH_HELM_SCHEMAS overrides).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
exec bash "$ROOT/scripts/python_component.sh" test "$HERE" "${CHEETAH_HELM_PYTHON:-$ROOT/.cheetah/helm-venv/bin/python}" "$@"
