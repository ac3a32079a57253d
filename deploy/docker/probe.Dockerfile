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
# The runtime packages, exactly as built against: the owners of every library the binary links,
# plus the DPDK drivers EAL loads as plugins (the af_packet and pcap ports, the ring mempool),
# which are only "Recommends" of Debian's dpdk and never linked.
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=SC2016
RUN ldd /out/cheetah-probe | awk '$3 ~ /^\// { print $3 }' | sed -E 's|^.*/([^/]+/[^/]+)$|*/\1|' \
    | xargs dpkg -S | cut -d: -f1 | sort -u \
    | xargs dpkg-query -W -f='${Package}=${Version}\n' > /out/runtime-packages \
 && dpkg-query -W -f='${Package}=${Version}\n' \
      librte-net-af-packet23 librte-net-pcap23 librte-mempool-ring23 >> /out/runtime-packages \
 && grep -q '^librte-eal23=' /out/runtime-packages

FROM debian:bookworm-20260803-slim
COPY --from=build /out/runtime-packages /tmp/runtime-packages
# hadolint ignore=DL3008
RUN apt-get update \
 && xargs -a /tmp/runtime-packages apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages
COPY --from=build /out/cheetah-probe /usr/local/bin/cheetah-probe
ENTRYPOINT ["/usr/local/bin/cheetah-probe"]
