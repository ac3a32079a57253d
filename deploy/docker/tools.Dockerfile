# Cheetah's init steps in docker-compose: topic creation from schemas/topics.yaml
# (deploy/kafka_topics.py) and the ClickHouse migrations (cheetah_warehouse migrate --url).
# The manifest, the migrations and the warehouse CLI are copied in the repository's layout.
# Context: the repository root.
FROM python:3.11.16-slim-bookworm
COPY requirements-dev.txt /tmp/pins/requirements-dev.txt
COPY clickhouse/warehouse/requirements.txt /tmp/pins/warehouse.txt
# The versions pinned in the repository: PyYAML (requirements-dev.txt), confluent-kafka (warehouse).
# hadolint ignore=DL3013,SC2046
RUN pip install --no-cache-dir $(grep -hE '^(PyYAML|confluent-kafka)==' /tmp/pins/*.txt)
COPY schemas /opt/cheetah/schemas
COPY scripts/gen_topics.py /opt/cheetah/scripts/gen_topics.py
COPY clickhouse/migrations /opt/cheetah/clickhouse/migrations
COPY clickhouse/tables /opt/cheetah/clickhouse/tables
COPY clickhouse/queries /opt/cheetah/clickhouse/queries
COPY clickhouse/users.d /opt/cheetah/clickhouse/users.d
COPY clickhouse/warehouse/cheetah_warehouse /opt/cheetah/clickhouse/warehouse/cheetah_warehouse
COPY deploy/kafka_topics.py /opt/cheetah/deploy/kafka_topics.py
COPY deploy/docker/tools/migrate.sh /opt/cheetah/deploy/docker/tools/migrate.sh
ENV PYTHONPATH=/opt/cheetah/clickhouse/warehouse
USER 65534:65534
