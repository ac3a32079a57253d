# The redirect adapters (adapters/): tc (iproute2), BGP FlowSpec through GoBGP's CLI (the version
# of adapters/build.sh), OpenFlow through Open vSwitch's ovs-ofctl, and the incast guard (its tc
# programs and libbpf loader, built from adapters/incast_bpf). Context: the repository root.
FROM golang:1.26.7-bookworm AS gobgp
COPY adapters/build.sh /tmp/adapters-build.sh
RUN version="$(sed -n 's/^GOBGP_VERSION="\(.*\)"$/\1/p' /tmp/adapters-build.sh)" \
 && test -n "$version" \
 && GOBIN=/out CGO_ENABLED=0 go install "github.com/osrg/gobgp/v4/cmd/gobgp@$version"

FROM debian:bookworm-20260803 AS incast
RUN apt-get update \
 && apt-get install -y --no-install-recommends clang-14=1:14.0.6-12 gcc=4:12.2.0-3 \
      libbpf-dev=1:1.1.2-0+deb12u1 \
 && rm -rf /var/lib/apt/lists/*
COPY adapters/incast_bpf /src
RUN bash /src/build.sh /out --no-policy-lib

FROM python:3.11.16-slim-bookworm
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN apt-get update \
 && apt-get install -y --no-install-recommends iproute2=6.1.0-3 openvswitch-common=3.1.0-2+deb12u1 \
      libbpf1=1:1.1.2-0+deb12u1 \
 && rm -rf /var/lib/apt/lists/*
COPY adapters/requirements.txt /tmp/requirements.txt
# hadolint ignore=DL3013,SC2046
RUN pip install --no-cache-dir $(grep -E '^[A-Za-z0-9_.-]+==' /tmp/requirements.txt | grep -v '^pytest')
COPY --from=gobgp /out/gobgp /usr/local/bin/gobgp
COPY --from=incast /out/ /usr/local/lib/cheetah-incast/
COPY schemas /opt/cheetah/schemas
COPY adapters/cheetah_adapters /opt/cheetah/adapters/cheetah_adapters
ENV PYTHONPATH=/opt/cheetah/adapters CHEETAH_SCHEMAS=/opt/cheetah/schemas CHEETAH_GOBGP_BIN=/usr/local/bin \
    CHEETAH_ADAPTERS_BIN=/usr/local/lib/cheetah-incast
# uid 9999, as the Flink images: the redirect keys secret (mode 0600) is that user's.
RUN useradd --system --uid 9999 --home-dir /var/lib/cheetah-adapter --create-home cheetah
USER 9999:9999
ENTRYPOINT ["python", "-m", "cheetah_adapters"]
