# The SNMP poller (ingest/snmp), built as ./cheetah setup builds it. Context: the repository root.

# Go and protoc together: scripts/gen_go_proto.sh generates cheetah.v1.SnmpCounters from schemas/.
FROM golang:1.26.7-bookworm AS go
FROM python:3.11.16-slim-bookworm AS build
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH CGO_ENABLED=0 CHEETAH_PYTHON=/opt/protoc/bin/python
COPY clickhouse/warehouse/requirements.txt /tmp/pins.txt
# hadolint ignore=DL3013,SC2046
RUN python -m venv /opt/protoc \
 && /opt/protoc/bin/pip install --no-cache-dir $(grep -E '^(grpcio|grpcio-tools|protobuf)==' /tmp/pins.txt)
WORKDIR /src
COPY schemas schemas
COPY scripts/gen_go_proto.sh scripts/gen_go_proto.sh
COPY ingest/snmp ingest/snmp
RUN bash ingest/snmp/build.sh /out

FROM debian:bookworm-20260803-slim
COPY --from=build /out/cheetah-snmp-poller /usr/local/bin/cheetah-snmp-poller
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/cheetah-snmp-poller"]
