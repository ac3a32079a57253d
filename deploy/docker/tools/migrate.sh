#!/bin/bash
# clickhouse-migrate (docker-compose.yml): applies the migrations of clickhouse/migrations to the
# ClickHouse server with the warehouse's own runner (clickhouse/README.md, "Migrations"); applied
# files are recorded in schema_migrations, so a second run changes nothing. The Kafka engine
# tables it creates read the result topics from CHEETAH_KAFKA_BROKERS. With
# CHEETAH_CLICKHOUSE_ON_CLUSTER=CLUSTER (the Helm chart's clickhouse.replicated: '{cluster}'),
# tables are Replicated* and every statement runs ON CLUSTER (`migrate --replicated --on-cluster`).
set -euo pipefail
secret=${CHEETAH_CLICKHOUSE_PASSWORD_FILE:-/run/secrets/clickhouse_admin_password}
[[ -s $secret ]] || { echo "clickhouse-migrate: the secret clickhouse_admin_password is missing or empty: see deploy/compose/secrets/README.md" >&2; exit 1; }
url="$(python - "$secret" <<'PY'
import os, sys, urllib.parse
password = open(sys.argv[1]).read().replace("\n", "")
params = {"user": os.environ.get("CHEETAH_CLICKHOUSE_USER", "cheetah"), "password": password,
          "database": os.environ.get("CHEETAH_CLICKHOUSE_DATABASE", "cheetah")}
print(os.environ.get("CHEETAH_CLICKHOUSE_URL", "http://clickhouse:8123/") + "?" + urllib.parse.urlencode(params))
PY
)"
replicated=()
[[ -n ${CHEETAH_CLICKHOUSE_ON_CLUSTER:-} ]] && replicated=(--replicated --on-cluster "$CHEETAH_CLICKHOUSE_ON_CLUSTER")
exec python -m cheetah_warehouse migrate --url "$url" \
  --kafka-brokers "${CHEETAH_KAFKA_BROKERS:-kafka:9092}" \
  --kafka-group-prefix "${CHEETAH_KAFKA_GROUP_PREFIX:-cheetah-warehouse}" "${replicated[@]}"
