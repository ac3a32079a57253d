# The DPDK capture probe (ingest/probe) on Debian 12's DPDK 22.11, librdkafka and protobuf-c, at
# the versions of APT_PINS in ./cheetah (the deploy suite checks they agree). Context: the
# repository root.
FROM debian:bookworm-20260803 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      dpdk-dev=22.11.11-0+deb12u1 libnuma-dev=2.0.16-1 librdkafka-dev=2.0.2-1 \
      protobuf-c-compiler=1.4.1-1+b1 libprotobuf-c-dev=1.4.1-1+b1 libpcap-dev=1.10.3-1 \
      gcc=4:12.2.0-3 make=4.3-4.1 pkg-config=1.8.1-1 python3-yaml=6.0-3+b2 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY schemas schemas
COPY scripts/gen_topics.py scripts/gen_topics.py
COPY ingest/probe ingest/probe
COPY ingest/tracegen ingest/tracegen
# OPT without -march=native: the image runs on CPUs other than the build machine's.
RUN make -s -C ingest/probe -j2 BUILD=/out/.probe-build BIN=/out PYTHON=python3 OPT="-O3 -g" probe

FROM debian:bookworm-20260803-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      dpdk=22.11.11-0+deb12u1 libnuma1=2.0.16-1 librdkafka1=2.0.2-1 libprotobuf-c1=1.4.1-1+b1 \
      libpcap0.8=1.10.3-1 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/cheetah-probe /usr/local/bin/cheetah-probe
ENTRYPOINT ["/usr/local/bin/cheetah-probe"]
