#!/bin/bash
# superset-init (docker-compose.yml): Superset's metadata, the admin user and the bundles of
# dashboards/bundles imported into the home volume, connected to ClickHouse as the read-only user
# `dashboards` (python -m cheetah_dashboards import; docs/DASHBOARDS.md). Idempotent: the
# bundles are the source of truth and overwrite what the home holds.
set -euo pipefail
for s in superset_admin_password clickhouse_dashboards_password; do
  [[ -s /run/secrets/$s ]] || { echo "superset-init: the secret $s is missing or empty: see deploy/compose/secrets/README.md" >&2; exit 1; }
done
CHEETAH_SUPERSET_ADMIN_PASSWORD="$(tr -d '\n' < /run/secrets/superset_admin_password)"
export CHEETAH_SUPERSET_ADMIN_PASSWORD
password="$(python -c 'import sys, urllib.parse; print(urllib.parse.quote(open(sys.argv[1]).read().replace("\n", ""), safe=""))' \
  /run/secrets/clickhouse_dashboards_password)"
cd /opt/cheetah/dashboards
exec python -m cheetah_dashboards import --state-dir /app/superset_home/cheetah \
  --warehouse-url "http://dashboards:${password}@${CHEETAH_WAREHOUSE_HOST:-clickhouse:8123}/${CHEETAH_WAREHOUSE_DATABASE:-cheetah}"
