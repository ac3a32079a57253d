#!/bin/bash
# The clickhouse service's entrypoint (docker-compose.yml): writes a users.d override for the two
# users, then runs the image's own entrypoint. Files in users.d merge in name order: zz- comes last.
# - dashboards, the read-only user (clickhouse/users.d/cheetah-dashboards.xml, mounted unchanged):
#   the file allows loopback only and carries the default password's hash; here its password
#   becomes the secret clickhouse_dashboards_password (stored as its SHA-256 only) and its
#   networks the container network's, for Superset (ClickHouse's port is published on the
#   host's 127.0.0.1 only).
# - the admin ($CLICKHOUSE_USER, full access): the image writes it with the secret
#   clickhouse_admin_password in plain text and every network (::/0); here the plain password is
#   removed and its SHA-256 put in its place (the merged config, which ClickHouse also keeps in
#   the data volume's preprocessed_configs/, holds the hash only), and the user is reachable only
#   from the container's own loopback (`docker compose exec clickhouse clickhouse-client`, the
#   image's init step) and from the clickhouse-migrate service (by its compose DNS name): not from
#   Superset, not from the host's published port.
# CHEETAH_SECRETS, CHEETAH_USERS_D and CHEETAH_NEXT_ENTRYPOINT are for the offline test only
# (deploy/tests/test_compose.py runs this script outside a container).
set -euo pipefail
secrets="${CHEETAH_SECRETS:-/run/secrets}"
users_d="${CHEETAH_USERS_D:-/etc/clickhouse-server/users.d}"
# The SHA-256 of a secret file, as the clients send it (migrate.sh and Superset drop newlines).
hash_of() {
  local name=$1 secret=$secrets/$1
  [[ -s "$secret" ]] || { echo "clickhouse: the secret $name ($secret) is missing or empty: see deploy/compose/secrets/README.md" >&2; exit 1; }
  tr -d '\n' < "$secret" | sha256sum | cut -d' ' -f1
}
dashboards_hash="$(hash_of clickhouse_dashboards_password)"
admin_hash="$(hash_of clickhouse_admin_password)"
admin="${CLICKHOUSE_USER:?clickhouse: CLICKHOUSE_USER (the admin user) is not set in docker-compose.yml}"
cat > "$users_d/zz-cheetah-compose.xml" <<XML
<clickhouse>
  <users>
    <dashboards>
      <password_sha256_hex replace="replace">${dashboards_hash}</password_sha256_hex>
      <networks replace="replace">
        <ip>::/0</ip>
      </networks>
    </dashboards>
    <${admin}>
      <password remove="remove"/>
      <password_sha256_hex replace="replace">${admin_hash}</password_sha256_hex>
      <networks replace="replace">
        <ip>::1</ip>
        <ip>127.0.0.1</ip>
        <host>clickhouse-migrate</host>
      </networks>
    </${admin}>
  </users>
</clickhouse>
XML
exec "${CHEETAH_NEXT_ENTRYPOINT:-/entrypoint.sh}" "$@"
