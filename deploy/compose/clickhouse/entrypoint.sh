#!/bin/bash
# The clickhouse service's entrypoint (docker-compose.yml): makes the dashboards' read-only user
# (clickhouse/users.d/cheetah-dashboards.xml, mounted unchanged) usable from Superset's container,
# then runs the image's own entrypoint. The users.d file allows loopback only and carries the
# default password's hash; here its password becomes the secret clickhouse_dashboards_password
# (stored as its SHA-256 only) and its networks the container network's (ClickHouse's port is
# published on the host's 127.0.0.1 only). Files in users.d merge in name order: zz- comes last.
set -euo pipefail
secret=/run/secrets/clickhouse_dashboards_password
[[ -s "$secret" ]] || { echo "clickhouse: the secret clickhouse_dashboards_password ($secret) is missing or empty: see deploy/compose/secrets/README.md" >&2; exit 1; }
hash="$(tr -d '\n' < "$secret" | sha256sum | cut -d' ' -f1)"
cat > /etc/clickhouse-server/users.d/zz-cheetah-compose.xml <<XML
<clickhouse>
  <users>
    <dashboards>
      <password_sha256_hex replace="replace">${hash}</password_sha256_hex>
      <networks replace="replace">
        <ip>::/0</ip>
      </networks>
    </dashboards>
  </users>
</clickhouse>
XML
exec /entrypoint.sh "$@"
