#!/usr/bin/env bash
# Generates the Go types of cheetah.v1.RejectedRecord and cheetah.v1.SnmpCounters from schemas/ into
# gen/cheetahv1/ (not committed): the collector publishes refused datagrams to flows.rejected.v1 and
# sFlow interface counters to snmp.counters.v1 in those encodings.
# The repository's one Go protobuf generator does it (scripts/gen_go_proto.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/../../scripts/gen_go_proto.sh" "$here" cheetah/v1/flows.proto
exec "$here/../../scripts/gen_go_proto.sh" "$here" cheetah/v1/snmp.proto
