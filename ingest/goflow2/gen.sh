#!/usr/bin/env bash
# Generates the Go type of cheetah.v1.RejectedRecord from schemas/ into gen/cheetahv1/ (not
# committed): the collector publishes refused datagrams to flows.rejected.v1 in that encoding.
# The repository's one Go protobuf generator does it (scripts/gen_go_proto.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../scripts/gen_go_proto.sh" "$here" cheetah/v1/flows.proto
