#!/usr/bin/env bash
# Generates the Go type of cheetah.v1.SnmpCounters from schemas/ into gen/cheetahv1/ (not
# committed), with the repository's one Go protobuf generator (scripts/gen_go_proto.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../scripts/gen_go_proto.sh" "$here" cheetah/v1/snmp.proto
