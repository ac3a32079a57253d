#!/bin/bash
# superset (docker-compose.yml): serves the home superset-init prepared (its superset_config.py,
# metadata and imported dashboards) on the container's port 8088.
set -euo pipefail
home=/app/superset_home/cheetah
[[ -f $home/superset_config.py ]] || { echo "superset: $home has no superset_config.py: superset-init has not run" >&2; exit 1; }
export SUPERSET_CONFIG_PATH=$home/superset_config.py SUPERSET_HOME=$home FLASK_APP="superset.app:create_app()"
exec gunicorn --bind 0.0.0.0:8088 --workers "${SUPERSET_WORKERS:-4}" --worker-class gthread --threads 4 \
  --timeout 120 --limit-request-line 0 --limit-request-field_size 0 "superset.app:create_app()"
