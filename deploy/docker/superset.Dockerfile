# Superset at the version of dashboards/requirements.txt, with ClickHouse's driver and Cheetah's
# dashboard tooling (dashboards/, the SQL of clickhouse/queries/dashboards). The superset-init
# service imports the bundles into the shared home volume; superset serves them.
# Context: the repository root.
FROM apache/superset:6.1.0
USER root
COPY dashboards/requirements.txt /tmp/dashboards-requirements.txt
# The driver, PyYAML and selenium (imported by the tooling's CLI) at the versions of dashboards/requirements.txt, into Superset's own
# environment (uv where the image has it, pip otherwise).
# hadolint ignore=DL3013,SC2046,SC2086
RUN pins="$(grep -E '^(clickhouse-connect|PyYAML|selenium)==' /tmp/dashboards-requirements.txt)" \
 && if command -v uv >/dev/null; then uv pip install --no-cache --python "$(command -v python)" $pins; \
    else python -m pip install --no-cache-dir $pins; fi
COPY dashboards/cheetah_dashboards /opt/cheetah/dashboards/cheetah_dashboards
COPY dashboards/bundles /opt/cheetah/dashboards/bundles
COPY clickhouse/queries /opt/cheetah/clickhouse/queries
COPY deploy/docker/superset/init.sh deploy/docker/superset/run.sh /opt/cheetah/superset/
ENV PYTHONPATH=/opt/cheetah/dashboards
USER superset
