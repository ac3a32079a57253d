# The goflow2 collector (ingest/goflow2): goflow2 v2.2.6's packages plus the rejected-datagram
# hook, built as ./cheetah setup builds it. Context: the repository root.

# The build needs Go and protoc (grpcio-tools, pinned in clickhouse/warehouse/requirements.txt)
# together: scripts/gen_go_proto.sh generates cheetah.v1.RejectedRecord from schemas/.
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
COPY ingest/goflow2 ingest/goflow2
RUN bash ingest/goflow2/build.sh /out

FROM debian:bookworm-20260803-slim
COPY --from=build /out/cheetah-goflow2 /usr/local/bin/cheetah-goflow2
USER 65534:65534
# NetFlow/IPFIX (udp, -listen in docker-compose.yml) and metrics (-addr).
EXPOSE 2055/udp 8080
ENTRYPOINT ["/usr/local/bin/cheetah-goflow2"]
